package io.varve.benchmarks.silt;

import io.varve.benchmarks.peers.ProcessStats;
import io.varve.silt.SiltOptions;
import io.varve.silt.SiltStats;
import io.varve.silt.SiltStore;
import io.varve.silt.SiltTuning;
import io.varve.silt.SiltWriteStats;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * A SILT store at scale: {@code KEYS} inserts of 16-byte keys and {@code VALUE_BYTES}-byte values
 * through {@link SiltStore#put}, with the options {@link SiltTuning} picks for a memory budget of
 * {@code BYTES_PER_ENTRY} bytes per key; then memory per entry, write amplification against the
 * model, and random gets of present keys with the page cache dropped and read-ahead off, counting
 * the disk's reads (root, Linux).
 *
 * <pre>
 * java -Xmx3g -cp benchmarks/target/benchmarks.jar io.varve.benchmarks.silt.SiltScale DIR KEYS [VALUE_BYTES [BYTES_PER_ENTRY [LOOKUPS]]]
 * </pre>
 *
 * Not thread-safe: a program.
 */
public final class SiltScale {
  private SiltScale() {}

  static byte[] key(long i) {
    long h = i * 0x9E3779B97F4A7C15L;
    return ByteBuffer.allocate(16).putLong(h ^ (h >>> 29)).putLong(i).array();
  }

  static byte[] value(long i, int bytes) {
    byte[] v = new byte[bytes];
    Arrays.fill(v, (byte) i);
    if (bytes >= 8) {
      ByteBuffer.wrap(v).putLong(0, i);
    }
    return v;
  }

  public static void main(String[] args) throws Exception {
    Path dir = Path.of(args[0]);
    long keys = Long.parseLong(args[1]);
    int valueBytes = args.length > 2 ? Integer.parseInt(args[2]) : 8;
    double budget = args.length > 3 ? Double.parseDouble(args[3]) : 1.0;
    int lookups = args.length > 4 ? Integer.parseInt(args[4]) : 20_000;
    if (Files.exists(dir)) {
      throw new IllegalArgumentException(dir + " exists");
    }
    // Paged sorted stores of small records hold well under a bit per key; 1.0 is a safe guess.
    SiltTuning tuning = new SiltTuning(keys, 16 + valueBytes, 1.0);
    SiltOptions options = tuning.optionsFor((long) (budget * keys), 1.02, SiltOptions.DEFAULTS);
    System.out.printf("%,d keys of 16 + %d bytes, %.2f bytes per entry: %s%n", keys, valueBytes, budget, options);
    System.out.printf("model: write amplification %.2f (updates of %,d keys), %.2f (inserts, %,d keys on average); "
        + "read amplification %.4f at the peak, %.4f on average; peak memory %.3f bytes per entry%n",
        tuning.writeAmplification(options), keys, new SiltTuning(Math.max(1, keys / 2), 16 + valueBytes, 1.0).writeAmplification(options),
        keys / 2, tuning.readAmplification(options), tuning.averageReadAmplification(options), tuning.memoryBytesPerEntry(options));
    long start = System.nanoTime();
    long peakMemory = 0;
    SiltStats stats;
    SiltWriteStats writes;
    try (SiltStore store = SiltStore.open(dir, options)) {
      for (long i = 0; i < keys; i++) {
        store.put(key(i), value(i, valueBytes));
        if ((i & 0xFFFFF) == 0) {
          SiltStats now = store.stats();
          peakMemory = Math.max(peakMemory, now.memoryBytes());
          if ((i & 0xFFFFFF) == 0) {
            System.out.printf("%,12d puts, %.0f s: %s%n", i, (System.nanoTime() - start) / 1e9, now);
          }
        }
      }
      store.sync();
      stats = store.stats();
      peakMemory = Math.max(peakMemory, stats.memoryBytes());
      writes = store.writeStats();
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    long diskBytes;
    try (var walk = Files.walk(dir)) {
      diskBytes = walk.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
    }
    System.out.printf("loaded in %.0f s (%,.0f puts/s): %s%n", seconds, keys / seconds, stats);
    System.out.printf("memory: %.3f bytes per entry at the end, %.3f at the sampled peak; process peak RSS %,d MiB; disk %.1f bytes per entry%n",
        stats.memoryBytesPerEntry(), (double) peakMemory / keys, ProcessStats.peakRssBytes() >> 20, (double) diskBytes / keys);
    System.out.printf("writes: %s; write amplification %.2f entries (%.2f bytes per byte)%n", writes, writes.writeAmplification(),
        writes.byteWriteAmplification());

    String readAhead = ProcessStats.setReadAheadKib(dir, "0");
    // Without background work: the hash stores the load left would start a merge at open, and its
    // reads would count as the gets'. The gets then see every store the load left.
    try (SiltStore store = SiltStore.open(dir, options.toBuilder().backgroundMerges(false).build())) {
      System.out.println("gets on: " + store.stats());
      if (!ProcessStats.dropPageCache()) {
        System.out.println("cannot drop the page cache (not root?): no cold figures");
        return;
      }
      SplittableRandom random = new SplittableRandom(42);
      long[] before = ProcessStats.diskReads(dir);
      long t0 = System.nanoTime();
      for (int n = 0; n < lookups; n++) {
        long i = random.nextLong(keys);
        byte[] found = store.get(key(i));
        if (found == null || !Arrays.equals(found, value(i, valueBytes))) {
          throw new AssertionError("wrong value for key " + i);
        }
      }
      double micros = (System.nanoTime() - t0) / 1e3 / lookups;
      long[] after = ProcessStats.diskReads(dir);
      System.out.printf("cold gets: %,d; %.4f disk reads per get, %.0f bytes read per get, %.0f us per get (read-ahead was %s KiB)%n",
          lookups, (after[0] - before[0]) / (double) lookups, (after[1] - before[1]) * 512.0 / lookups, micros, readAhead);
    } finally {
      if (readAhead != null) {
        ProcessStats.setReadAheadKib(dir, readAhead);
      }
    }
  }
}
