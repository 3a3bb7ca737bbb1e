package io.varve.benchmarks.peers;

import io.varve.benchmarks.WorkDirectory;
import io.varve.core.files.FileTrees;
import java.nio.channels.FileChannel;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One measurement in a process of its own, so that its peak RSS is its own and no system's
 * leftovers (heap, native memory, mappings) weigh on the next. {@link PeerComparison} starts these;
 * each prints one {@code RESULT key=value ...} line.
 *
 * <pre>
 * PeerTask build  SYSTEM DATASET_SPEC DIR
 * PeerTask update SYSTEM DATASET_SPEC BASE_DIR OUT_DIR
 * PeerTask cold   SYSTEM DATASET_SPEC DIR SECONDS_PER_THREAD_COUNT
 * </pre>
 *
 * A cold run first makes random lookups for a few seconds in a small store of the same system and
 * shape (so that the lookup path is compiled), then, for each thread count, drops the page cache,
 * opens the store, reads the system's page-cache index back in (see {@link
 * Peer.Reader#pageCacheIndex}) and makes one eighth as many random lookups as the store has 4 KiB
 * pages (at least {@value #MIN_COLD_LOOKUPS}, at most {@value #MAX_COLD_LOOKUPS}), so that few of
 * them find a page an earlier one brought in; it stops early after the given seconds. The disk's
 * read-ahead is switched off meanwhile (and restored): with it, a page fault in a memory-mapped
 * file reads up to {@code read_ahead_kb} around the page, which pulls a small store wholly into
 * the cache after a few lookups and hides the cost of a random read that a store larger than
 * memory pays.
 *
 * Every task checks the store it touched: {@value #CHECKED_KEYS} random member keys must return
 * their values and changed copies of them (absent keys) null; a wrong answer fails the task.
 */
public final class PeerTask {
  /** The first word of the line that carries a task's results. */
  static final String RESULT = "RESULT";
  static final int CHECKED_KEYS = 10_000;
  static final long SEED = 0x5EEDL;
  /** Thread counts of the cold-lookup runs. */
  static final int[] COLD_THREADS = {1, 2, 16};
  static final long MIN_COLD_LOOKUPS = 2_000;
  static final long MAX_COLD_LOOKUPS = 20_000;
  static final long JIT_WARMUP_LOOKUPS = 2_000_000;
  static final long JIT_STORE_RECORDS = 100_000;
  static final double JIT_WARMUP_SECONDS = 4;

  private PeerTask() {}

  public static void main(String[] args) throws Exception {
    Peer peer = Peers.byName(args[1]);
    Dataset dataset = Dataset.parse(args[2]);
    Map<String, Object> result = new LinkedHashMap<>();
    switch (args[0]) {
      case "build" -> build(peer, dataset, Path.of(args[3]), result);
      case "update" -> update(peer, dataset, Path.of(args[3]), Path.of(args[4]), result);
      case "cold" -> cold(peer, dataset, Path.of(args[3]), Double.parseDouble(args[4]), result);
      case "open" -> open(peer, dataset, Path.of(args[3]), result);
      default -> throw new IllegalArgumentException("unknown task " + args[0] + "; expected build, update, cold or open");
    }
    StringBuilder line = new StringBuilder(RESULT);
    result.forEach((key, value) -> line.append(' ').append(key).append('=').append(value));
    System.out.println(line);
  }

  /** The fields of a {@code RESULT key=value ...} line as {@link #main} prints it, or null for other lines. */
  static Map<String, String> parseResult(String line) {
    if (!line.startsWith(RESULT)) {
      return null;
    }
    Map<String, String> fields = new LinkedHashMap<>();
    for (String field : line.substring(RESULT.length()).trim().split(" ")) {
      String[] keyAndValue = field.split("=", 2);
      if (keyAndValue.length == 2) {
        fields.put(keyAndValue[0], keyAndValue[1]);
      }
    }
    return fields;
  }

  private static void build(Peer peer, Dataset dataset, Path dir, Map<String, Object> result) throws Exception {
    long start = System.nanoTime();
    peer.build(dataset.base(), dir);
    double seconds = (System.nanoTime() - start) / 1e9;
    result.put("seconds", seconds);
    result.put("recordsPerSecond", dataset.base().size() / seconds);
    result.put("peakRssBytes", ProcessStats.peakRssBytes());
    result.put("diskBytes", WorkDirectory.treeBytes(dir));
    try (Peer.Reader reader = peer.open(dir)) {
      result.put("indexBytes", reader.indexBytes());
      check(reader, dataset.base(), SEED);
    }
  }

  /** Opens a store built before (by another task), as {@link #build} does after building. */
  private static void open(Peer peer, Dataset dataset, Path dir, Map<String, Object> result) throws Exception {
    try (Peer.Reader reader = peer.open(dir)) {
      result.put("indexBytes", reader.indexBytes());
      check(reader, dataset.base(), SEED);
    }
  }

  private static void update(Peer peer, Dataset dataset, Path base, Path out, Map<String, Object> result)
      throws Exception {
    peer.prepareUpdate(base, out);
    long start = System.nanoTime();
    peer.update(dataset, base, out);
    double seconds = (System.nanoTime() - start) / 1e9;
    result.put("seconds", seconds);
    result.put("method", peer.updateMethod());
    result.put("peakRssBytes", ProcessStats.peakRssBytes());
    result.put("diskBytes", WorkDirectory.treeBytes(out));
    try (Peer.Reader reader = peer.open(out)) {
      check(reader, dataset.merged(), SEED + 1);
    }
  }

  private static void cold(Peer peer, Dataset dataset, Path dir, double seconds, Map<String, Object> result)
      throws Exception {
    RecordSet records = dataset.base();
    long pages = WorkDirectory.treeBytes(dir) / 4096;
    long limit = Math.max(MIN_COLD_LOOKUPS, Math.min(MAX_COLD_LOOKUPS, pages / 8));
    Path jitStore = dir.resolveSibling(dir.getFileName() + "-jit");
    String readAhead = ProcessStats.setReadAheadKib(dir, "0");
    result.put("readAheadKib", readAhead == null ? "unchanged" : readAhead);
    try {
      // A serving host's JIT has compiled the lookup path: without this, the first cold lookups
      // run interpreted. A small store of the same shape serves, since pages this process maps
      // stay resident whatever the page cache is told.
      RecordSet head = RecordSets.head(records, JIT_STORE_RECORDS);
      peer.build(head, jitStore);
      try (Peer.Reader reader = peer.open(jitStore)) {
        lookupFor(reader, head, 2, JIT_WARMUP_LOOKUPS, JIT_WARMUP_SECONDS);
      }
      for (int threads : COLD_THREADS) {
        if (!ProcessStats.dropPageCache()) {
          result.put("skipped", "dropping_the_page_cache_needs_root");
          return;
        }
        measureCold(peer, records, dir, threads, limit, seconds, result);
        // The next thread count starts cold only once this reader's mappings are gone.
        result.put("t" + threads + ".unmapped", ProcessStats.awaitUnmapped(dir));
      }
    } finally {
      if (readAhead != null) {
        ProcessStats.setReadAheadKib(dir, readAhead);
      }
      FileTrees.deleteTree(jitStore);
    }
  }

  /**
   * One cold run, in a method of its own so that its reader is unreachable once it returns (an
   * interpreted frame would keep it alive, and with it the mappings of readers that unmap on GC).
   */
  private static void measureCold(
      Peer peer, RecordSet records, Path dir, int threads, long limit, double seconds, Map<String, Object> result)
      throws Exception {
    try (Peer.Reader reader = peer.open(dir)) {
      for (Peer.FileRange range : reader.pageCacheIndex()) {
        readThrough(range);
      }
      long[] before = ProcessStats.diskReads(dir);
      long[] lookups = lookupFor(reader, records, threads, limit, seconds);
      long[] after = ProcessStats.diskReads(dir);
      String prefix = "t" + threads + ".";
      result.put(prefix + "lookupsPerSecond", lookups[0] / (lookups[1] / 1e9));
      result.put(prefix + "lookups", lookups[0]);
      if (before != null && after != null) {
        result.put(prefix + "readsPerLookup", (after[0] - before[0]) / (double) lookups[0]);
        result.put(prefix + "bytesReadPerLookup", 512.0 * (after[1] - before[1]) / lookups[0]);
      }
    }
  }

  /** Pulls {@code range} into the page cache. */
  static void readThrough(Peer.FileRange range) throws java.io.IOException {
    try (FileChannel channel = FileChannel.open(range.file(), StandardOpenOption.READ)) {
      ByteBuffer buffer = ByteBuffer.allocateDirect(1 << 20);
      for (long position = range.offset(); position < range.offset() + range.length(); ) {
        buffer.clear();
        int read = channel.read(buffer, position);
        if (read < 0) {
          break;
        }
        position += read;
      }
    }
  }

  /**
   * {@code limit} random member lookups on {@code threads} threads, or fewer when {@code seconds}
   * run out: {lookups, nanos}.
   */
  private static long[] lookupFor(Peer.Reader reader, RecordSet records, int threads, long limit, double seconds)
      throws Exception {
    AtomicLong done = new AtomicLong();
    AtomicLong remaining = new AtomicLong(limit);
    List<Thread> workers = new ArrayList<>();
    List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
    List<Peer.Reader> readers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      readers.add(t == 0 ? reader : reader.forAnotherThread());
    }
    long start = System.nanoTime();
    long deadline = start + (long) (seconds * 1e9);
    for (int t = 0; t < threads; t++) {
      Peer.Reader own = readers.get(t);
      SplittableRandom random = new SplittableRandom(SEED + 31L * threads + t);
      Thread worker =
          new Thread(
              () -> {
                try {
                  long count = 0;
                  while (remaining.getAndDecrement() > 0 && System.nanoTime() < deadline) {
                    long j = random.nextLong(records.size());
                    byte[] value = own.get(records.key(j));
                    if (!Arrays.equals(value, records.value(j))) {
                      throw new AssertionError("wrong value for member " + j);
                    }
                    count++;
                  }
                  done.addAndGet(count);
                } catch (Throwable e) {
                  failures.add(e);
                } finally {
                  if (own != reader) {
                    own.close();
                  }
                }
              });
      worker.start();
      workers.add(worker);
    }
    for (Thread worker : workers) {
      worker.join();
    }
    if (!failures.isEmpty()) {
      throw new IllegalStateException("a lookup thread failed", failures.get(0));
    }
    return new long[] {done.get(), System.nanoTime() - start};
  }

  /**
   * Checks {@value #CHECKED_KEYS} random members (or all, when fewer) and as many absent keys (a
   * member key with its last byte's top bit flipped; skipped where that could name another member).
   */
  static void check(Peer.Reader reader, RecordSet records, long seed) throws Exception {
    SplittableRandom random = new SplittableRandom(seed);
    long checks = Math.min(CHECKED_KEYS, records.size());
    for (long c = 0; c < checks; c++) {
      long j = records.size() <= CHECKED_KEYS ? c : random.nextLong(records.size());
      byte[] key = records.key(j);
      byte[] value = reader.get(key);
      if (!Arrays.equals(value, records.value(j))) {
        throw new AssertionError(String.format(Locale.ROOT,
            "member %d: expected %d bytes, got %s", j, records.value(j).length, value == null ? "null" : value.length + " bytes"));
      }
      if (key.length > 0 && (key[key.length - 1] & 0x80) == 0) {
        key[key.length - 1] ^= (byte) 0x80;
        if (records.fixedKeyBytes() > 0 || !isUtf8(key)) {
          byte[] absent = reader.get(key);
          if (absent != null) {
            throw new AssertionError("absent key (member " + j + " changed) returned " + absent.length + " bytes");
          }
        }
      }
    }
  }

  /** Whether {@code bytes} is valid UTF-8 (text keys that are not cannot be members). */
  private static boolean isUtf8(byte[] bytes) {
    try {
      java.nio.charset.StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(bytes));
      return true;
    } catch (java.nio.charset.CharacterCodingException e) {
      return false;
    }
  }
}
