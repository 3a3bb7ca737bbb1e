package io.varve.benchmarks.bufferhash;

import io.varve.benchmarks.WorkDirectory;
import io.varve.benchmarks.cgroup.MemoryCgroup;
import io.varve.core.files.FileTrees;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * One system's run of the comparison, in a child JVM of its own inside a memory cgroup (see
 * {@link BufferHashComparison}): warms the JIT up on a small scratch store, limits the cgroup to its
 * charge plus the RAM budget, loads the data set into a new store (timed), then makes lookups at
 * 40 % and at 0 % success (timed, each answer checked), and prints one line {@code RESULT
 * key=value ...}.
 *
 * <p>Arguments: {@code kind dir ramBytes records lookups lookupSeconds seed [cgroupDir]}.
 */
public final class ComparisonTask {
  private static final long WARM_UP_RECORDS = 200_000;
  /** Where the warm-up's garbage goes, so that the JIT cannot drop the allocations. */
  private static volatile byte[] sink;

  private ComparisonTask() {}

  public static void main(String[] args) throws Exception {
    StoreKind kind = StoreKind.valueOf(args[0]);
    Path dir = Path.of(args[1]);
    long ramBytes = Long.parseLong(args[2]);
    long records = Long.parseLong(args[3]);
    long lookups = Long.parseLong(args[4]);
    double lookupSeconds = Double.parseDouble(args[5]);
    long seed = Long.parseLong(args[6]);
    Path cgroup = args.length > 7 ? Path.of(args[7]) : null;

    warmUp(kind, dir.resolveSibling(dir.getFileName() + "-warm-up"), seed);
    long baseline = 0;
    long baselineRss = 0;
    if (cgroup != null) {
      baseline = MemoryCgroup.limitToChargePlus(cgroup, ramBytes);
      baselineRss = MemoryCgroup.statBytes(cgroup, "rss");
      System.out.printf(Locale.ROOT, "cgroup baseline %.1f MiB, limit %.1f MiB%n", baseline / 1048576.0,
          (baseline + ramBytes) / 1048576.0);
    }

    Map<String, Object> result = new LinkedHashMap<>();
    FileTrees.deleteTree(dir);
    long start = System.nanoTime();
    MutableStore store = kind.open(ramBytes, dir, records);
    try {
      if (store instanceof BufferHashStore bufferHash) {
        System.out.println("BufferHash tuning: " + bufferHash.tuning());
      }
      long loadNanos = load(store, records, true) - start;
      result.put("records", records);
      result.put("loadSeconds", loadNanos / 1e9);
      result.put("ramAfterLoad", store.ramBytesUsed());
      lookups(store, records, 0.4, lookups, lookupSeconds, seed, "40", result);
      lookups(store, records, 0.0, lookups, lookupSeconds, seed + 1, "0", result);
      result.put("ramAfterLookups", store.ramBytesUsed());
      if (cgroup != null) {
        result.put("cgroupPeak", MemoryCgroup.peakBytes(cgroup) - baseline);
        // Anonymous memory added since the baseline: the system's own RAM (heap, native), without
        // the page cache, as the kernel counts it.
        result.put("rssGrowth", MemoryCgroup.statBytes(cgroup, "rss") - baselineRss);
      }
    } catch (Throwable t) {
      try {
        store.close();
      } catch (Throwable suppressed) {
        t.addSuppressed(suppressed);
      }
      throw t;
    }
    long closeStart = System.nanoTime();
    store.close();
    result.put("closeSeconds", (System.nanoTime() - closeStart) / 1e9);
    result.put("diskBytes", WorkDirectory.treeBytes(dir));
    FileTrees.deleteTree(dir);
    System.out.println("RESULT " + result.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue())
        .collect(Collectors.joining(" ")));
  }

  /** Puts records {@code 0..records-1}; returns {@link System#nanoTime()} at the end. */
  private static long load(MutableStore store, long records, boolean progress) throws IOException {
    long start = System.nanoTime();
    long report = Math.max(1, records / 10);
    byte[] key = new byte[Fingerprints.KEY_BYTES];
    for (long i = 0; i < records; i++) {
      Fingerprints.key(i, key);
      store.put(key, Fingerprints.value(i));
      if (progress && (i + 1) % report == 0) {
        System.out.printf(Locale.ROOT, "loaded %,d records, %,.0f/s so far%n", i + 1,
            (i + 1) / ((System.nanoTime() - start) / 1e9));
      }
    }
    return System.nanoTime();
  }

  /**
   * Makes up to {@code count} lookups (stopping early after {@code seconds}) at the given success
   * rate, checks every answer, and records lookups/s, the share found, the bytes this process read
   * from the disk per lookup and, where the store counts them, its reads per lookup.
   */
  private static void lookups(MutableStore store, long records, double successRate, long count, double seconds,
      long seed, String label, Map<String, Object> result) throws IOException {
    Fingerprints.Lookups lookups = new Fingerprints.Lookups(records, successRate, seed);
    long[] readsBefore = store.readsPerLookup();
    long bytesBefore = readBytes();
    byte[] key = new byte[Fingerprints.KEY_BYTES];
    long found = 0;
    long done = 0;
    long start = System.nanoTime();
    long deadline = start + (long) (seconds * 1e9);
    while (done < count && (done % 256 != 0 || System.nanoTime() < deadline)) {
      long index = lookups.next();
      Fingerprints.key(index, key);
      byte[] value = store.get(key);
      if (index < records ? !Fingerprints.isValueOf(index, value) : value != null) {
        throw new IllegalStateException("wrong answer for record " + index + ": " + Arrays.toString(value));
      }
      found += value == null ? 0 : 1;
      done++;
    }
    long nanos = System.nanoTime() - start;
    result.put("lookups" + label, done);
    result.put("lookupSeconds" + label, nanos / 1e9);
    result.put("found" + label, found);
    result.put("diskBytesRead" + label, readBytes() - bytesBefore);
    long[] readsAfter = store.readsPerLookup();
    if (readsAfter != null) {
      long[] difference = new long[readsAfter.length];
      for (int i = 0; i < readsAfter.length; i++) {
        difference[i] = readsAfter[i] - (readsBefore != null && i < readsBefore.length ? readsBefore[i] : 0);
      }
      result.put("readsPerLookup" + label, Arrays.stream(difference).mapToObj(Long::toString)
          .collect(Collectors.joining(",")));
    }
  }

  /** Bytes this process caused to be read from storage ({@code read_bytes} of /proc/self/io), or -1. */
  private static long readBytes() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/io"))) {
        if (line.startsWith("read_bytes:")) {
          return Long.parseLong(line.substring("read_bytes:".length()).trim());
        }
      }
    } catch (IOException | RuntimeException e) {
      return -1;
    }
    return -1;
  }

  /**
   * Runs the load and lookup paths on a small scratch store so that they are compiled before the
   * timed run, then deletes it; then allocates enough to cycle the young generation through all of
   * its pages, so that the heap pages every run touches anyway are charged before the baseline is
   * taken and not to the system measured.
   */
  private static void warmUp(StoreKind kind, Path scratch, long seed) throws IOException {
    FileTrees.deleteTree(scratch);
    // A small budget: what the warm-up leaves touched (a Java cache's heap pages) counts in the
    // baseline, free for the timed run.
    try (MutableStore store = kind.open(2L << 20, scratch, WARM_UP_RECORDS)) {
      load(store, WARM_UP_RECORDS, false);
      Fingerprints.Lookups lookups = new Fingerprints.Lookups(WARM_UP_RECORDS, 0.4, seed - 1);
      for (int i = 0; i < WARM_UP_RECORDS; i++) {
        store.get(Fingerprints.key(lookups.next()));
      }
    }
    FileTrees.deleteTree(scratch);
    for (int i = 0; i < 4096; i++) {
      sink = new byte[64 << 10];
    }
    sink = null;
    System.gc();
  }
}
