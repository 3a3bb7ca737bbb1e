package io.varve.benchmarks;

import io.varve.builder.StoreBuilder;
import io.varve.core.index.IndexKind;
import io.varve.core.index.IndexParameters;
import io.varve.core.store.PagedParameters;
import io.varve.reader.Store;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;

/**
 * Lookups with the page cache dropped: counts the major page faults (reads from disk) and the
 * bytes read per lookup. Needs root (it writes {@code /proc/sys/vm/drop_caches}) and Linux.
 *
 * <pre>
 * java --add-opens=java.base/java.lang.reflect=ALL-UNNAMED --add-exports=java.base/sun.nio.ch=ALL-UNNAMED \
 *     --add-exports=java.base/jdk.internal.ref=ALL-UNNAMED -cp benchmarks/target/benchmarks.jar \
 *     io.varve.benchmarks.ColdLookups DIR RECORDS MAX_VALUE_BYTES [LOOKUPS [INDEX]]
 * </pre>
 *
 * Builds a store of {@code RECORDS} records (8-byte keys; values of {@code MAX_VALUE_BYTES}
 * bytes, or random sizes up to it when followed by {@code r}, e.g. {@code 4000r}) in {@code DIR}
 * unless it exists, then opens it, drops the page cache and looks up {@code LOOKUPS} random member
 * keys (default 10000), checking each value's length. {@code INDEX} is {@code blocked} (the
 * builder's default for fixed sizes), {@code ect} (g = 64, hmax = 64, 3 skip levels) or {@code paged}
 * (the default for variable sizes), for a store built here.
 */
public final class ColdLookups {
  private ColdLookups() {}

  private static IndexParameters parameters(IndexKind index) {
    return switch (index) {
      case ECT -> StoreBuilder.DEFAULT_ECT_INDEX;
      case PAGED -> PagedParameters.INSTANCE;
      default -> StoreBuilder.DEFAULT_INDEX;
    };
  }

  public static void main(String[] args) throws Exception {
    Path dir = Path.of(args[0]);
    long records = Long.parseLong(args[1]);
    boolean randomSizes = args[2].endsWith("r");
    int valueBytes = Integer.parseInt(randomSizes ? args[2].substring(0, args[2].length() - 1) : args[2]);
    int lookups = args.length > 3 ? Integer.parseInt(args[3]) : 10_000;
    IndexKind index = args.length > 4 ? IndexKind.fromLabel(args[4]) : IndexKind.BLOCKED;
    if (!Files.exists(dir)) {
      long start = System.nanoTime();
      try (StoreBuilder builder =
          StoreBuilder.create(dir).indexParameters(parameters(index))) {
        for (long i = 0; i < records; i++) {
          builder.put(StoreLookupBenchmark.key(i), new byte[valueLength(i, valueBytes, randomSizes)]);
        }
        builder.build();
      }
      System.out.printf("built %s in %.1f s%n", dir, (System.nanoTime() - start) / 1e9);
    }
    try (Store store = Store.open(dir)) {
      System.out.printf("store: %s index, %,d records, %,d data bytes (%.0f bytes/record)%n",
          store.stats().indexKind().label(),
          store.size(), store.stats().dataBytes(), store.stats().dataBytes() / (double) Math.max(1, store.size()));
      dropPageCache();
      SplittableRandom random = new SplittableRandom(BenchmarkData.LOOKUP_SEED);
      long[] before = processCounters();
      long start = System.nanoTime();
      for (int i = 0; i < lookups; i++) {
        long k = random.nextLong(store.size());
        byte[] value = store.get(StoreLookupBenchmark.key(k));
        if (value == null || value.length != valueLength(k, valueBytes, randomSizes)) {
          throw new AssertionError("wrong value for key " + k);
        }
      }
      long nanos = System.nanoTime() - start;
      long[] after = processCounters();
      System.out.printf(
          "cold lookups: %,d; %.3f major faults (disk reads) per lookup, %.0f bytes read from disk per lookup, %.1f us per lookup%n",
          lookups, (after[0] - before[0]) / (double) lookups, (after[1] - before[1]) / (double) lookups, nanos / 1e3 / lookups);
    }
  }

  static int valueLength(long i, int valueBytes, boolean randomSizes) {
    return randomSizes ? (int) Math.floorMod(i * 0x9E3779B97F4A7C15L >>> 17, valueBytes + 1) : valueBytes;
  }

  private static void dropPageCache() throws IOException, InterruptedException {
    new ProcessBuilder("sync").inheritIO().start().waitFor();
    Files.writeString(Path.of("/proc/sys/vm/drop_caches"), "1");
  }

  /** This process's major page faults and bytes read from storage. */
  private static long[] processCounters() throws IOException {
    String[] stat = Files.readString(Path.of("/proc/self/stat")).split("\\) ")[1].split(" ");
    long majorFaults = Long.parseLong(stat[9]);
    long readBytes = 0;
    for (String line : Files.readAllLines(Path.of("/proc/self/io"))) {
      if (line.startsWith("read_bytes:")) {
        readBytes = Long.parseLong(line.substring("read_bytes:".length()).trim());
      }
    }
    return new long[] {majorFaults, readBytes};
  }
}
