package io.varve.benchmarks;

import io.varve.builder.BuildListener;
import io.varve.builder.BuildSummary;
import io.varve.builder.StoreBuilder;
import io.varve.core.store.PageCacheWrites;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;

/**
 * Whole-process build throughput: puts {@code N} records of 16-byte random keys and 8-byte values
 * (or {@code --value-bytes V}: the record's number, then bytes that repeat) into a {@link
 * StoreBuilder} and builds the store, printing records and bytes per second. Run it under {@code
 * /usr/bin/time -v} for peak RSS:
 *
 * <pre>
 * /usr/bin/time -v java -Xmx1g -cp benchmarks/target/benchmarks.jar \
 *     io.varve.benchmarks.BuildThroughput 100000000 /tmp/varve-scale [memoryBudgetMiB] [--value-bytes V] [--data-writes SMALL|HUGE_PAGES|UNCACHED] [--keep]
 * </pre>
 *
 * The target directory must not exist; it is deleted at the end unless {@code --keep} is given.
 */
public final class BuildThroughput {
  private BuildThroughput() {}

  /** Prints the build's phase and progress at most every {@code seconds}, timed from {@code start} ({@link System#nanoTime}). */
  static BuildListener progressPrinter(long start, int seconds) {
    long[] lastReport = {start};
    return (phase, done, total) -> {
      long now = System.nanoTime();
      if (now - lastReport[0] > seconds * 1_000_000_000L) {
        lastReport[0] = now;
        System.out.printf("  %s %,d of %,d at %.1f s%n", phase, done, total, (now - start) / 1e9);
      }
    };
  }

  public static void main(String[] args) throws IOException {
    long n = Long.parseLong(args[0]);
    Path target = Path.of(args[1]);
    long budget = StoreBuilder.DEFAULT_MEMORY_BUDGET;
    boolean keep = false;
    int valueBytes = 8;
    PageCacheWrites dataWrites = PageCacheWrites.SMALL;
    for (int a = 2; a < args.length; a++) {
      switch (args[a]) {
        case "--keep" -> keep = true;
        case "--value-bytes" -> valueBytes = Integer.parseInt(args[++a]);
        case "--data-writes" -> dataWrites = PageCacheWrites.valueOf(args[++a]);
        default -> budget = Long.parseLong(args[a]) << 20;
      }
    }
    if (valueBytes < 8) {
      throw new IllegalArgumentException("--value-bytes must be at least 8, got " + valueBytes);
    }
    SplittableRandom random = new SplittableRandom(BenchmarkData.SEED);
    byte[] key = new byte[16];
    byte[] value = new byte[valueBytes];
    for (int j = 8; j < valueBytes; j++) {
      value[j] = (byte) (j * 31);
    }
    long start = System.nanoTime();
    BuildSummary summary;
    try (StoreBuilder builder = StoreBuilder.create(target).memoryBudget(budget).dataWrites(dataWrites).listener(progressPrinter(start, 5))) {
      for (long i = 0; i < n; i++) {
        long a = random.nextLong();
        long b = random.nextLong();
        for (int j = 0; j < 8; j++) {
          key[j] = (byte) (a >>> (8 * j));
          key[8 + j] = (byte) (b >>> (8 * j));
          value[j] = (byte) (i >>> (8 * j));
        }
        builder.put(key, value);
      }
      long input = System.nanoTime();
      System.out.printf("input: %,d records in %.1f s (%.2f M records/s)%n", n, (input - start) / 1e9, n / ((input - start) / 1e3));
      summary = builder.build();
      long end = System.nanoTime();
      System.out.printf(
          "build: %.1f s after input; total %.1f s = %.2f M records/s = %.2f GB/s of records end to end; %d spills, %d records%n",
          (end - input) / 1e9, (end - start) / 1e9, n / ((end - start) / 1e3), n * (16.0 + valueBytes) / (end - start),
          summary.spills(), summary.meta().recordCount());
    }
    long bytes = 0;
    try (var files = Files.list(target)) {
      for (Path file : (Iterable<Path>) files::iterator) {
        bytes += Files.size(file);
      }
    }
    System.out.printf("store: %,d bytes (%.2f bytes/record)%n", bytes, bytes / (double) n);
    if (!keep) {
      try (var files = Files.list(target)) {
        for (Path file : (Iterable<Path>) files::iterator) {
          Files.delete(file);
        }
      }
      Files.delete(target);
    }
  }
}
