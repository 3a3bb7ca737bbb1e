package io.varve.cli;

import io.varve.builder.BuildSummary;
import io.varve.builder.StoreBuilder;
import io.varve.core.files.FileTrees;
import io.varve.core.index.IndexParameters;
import io.varve.reader.Store;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/**
 * {@code varve demo}: generates records, builds a store in bounded memory, opens it, looks up
 * sampled member keys (checking every value) and absent keys, verifies it, and prints sizes and
 * timings. The store goes to a temporary directory, deleted at the end unless {@code --keep}. Not
 * thread-safe.
 */
@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    header = "Builds, queries and verifies a store of generated records.",
    usageHelpWidth = 100,
    sortOptions = false,
    description = "Builds a store from generated records, queries it, verifies it, and prints its stats.")
final class DemoCommand implements Callable<Integer> {
  @ParentCommand Varve varve;

  @Option(names = "--records", paramLabel = "N", defaultValue = "10000000", description = "number of records (default 10000000)")
  long records;

  @Option(names = "--memory", paramLabel = "SIZE", converter = ByteSizes.Converter.class, description = "memory budget (default 256m, or a quarter of a smaller heap)")
  Long memory;

  @Mixin IndexOptions index;

  @Option(names = "--lookups", paramLabel = "N", defaultValue = "1000000", description = "member and absent lookups to time (default 1000000)")
  int lookups;

  @Option(names = "--seed", paramLabel = "S", defaultValue = "42", description = "the values' generator seed (default 42)")
  long seed;

  @Option(names = "--dir", paramLabel = "DIR", description = "build into DIR (default: a temporary directory, deleted at the end)")
  String dirOption;

  @Option(names = "--keep", description = "keep the store (with --dir, or in the temporary directory)")
  boolean keep;

  /** Key {@code i}: readable text. */
  static byte[] key(long i) {
    return ("user:" + i).getBytes(StandardCharsets.UTF_8);
  }

  /** Value {@code i}: 8 to 40 pseudo-random bytes determined by {@code i} and the seed. */
  static byte[] value(long i, long seed) {
    SplittableRandom random = new SplittableRandom(seed ^ (i * 0x9E3779B97F4A7C15L));
    byte[] value = new byte[8 + random.nextInt(33)];
    random.nextBytes(value);
    return value;
  }

  @Override
  public Integer call() throws IOException {
    if (records < 0 || records > 1L << 40) {
      throw new IllegalArgumentException("--records must be in [0, " + (1L << 40) + "], got " + records);
    }
    if (lookups < 0) {
      throw new IllegalArgumentException("--lookups must be at least 0, got " + lookups);
    }
    long budget = Arguments.memoryBudget(memory);
    IndexParameters knobs = index.parameters(StoreBuilder.DEFAULT_ECT_INDEX);
    PrintStream out = varve.out;
    Path parent = dirOption == null ? Files.createTempDirectory("varve-demo") : null;
    Path dir = dirOption == null ? parent.resolve("store") : Path.of(dirOption);
    try {
      out.printf("varve demo: %,d records (keys user:<i>, values of 8-40 random bytes) into %s, memory budget %d MiB%n",
          records, dir, budget >> 20);
      long start = System.nanoTime();
      BuildSummary summary;
      try (ProgressBar progress = ProgressBar.forTerminal(varve.err, "read");
          StoreBuilder builder =
              StoreBuilder.create(dir)
                  .memoryBudget(budget)
                  .indexParameters(knobs != null ? knobs : StoreBuilder.DEFAULT_INDEX)
                  .listener(progress)) {
        for (long i = 0; i < records; i++) {
          builder.put(key(i), value(i, seed));
        }
        progress.phase("write");
        summary = builder.build();
      }
      double buildSeconds = (System.nanoTime() - start) / 1e9;
      out.printf("  build    %8.2f s  (%.2f M records/s, %d spills of the memory buffer)%n",
          buildSeconds, records / 1e6 / Math.max(1e-9, buildSeconds), summary.spills());
      try (Store loaded = Store.load(dir)) {
        lookUp(loaded, records, lookups, seed, "loaded", out);
      }
      try (Store store = Store.open(dir)) {
        lookUp(store, records, lookups, seed, "mapped", out);
        long verifyStart = System.nanoTime();
        try (ProgressBar progress = ProgressBar.forTerminal(varve.err, "verify")) {
          progress.ticking("verify");
          store.verify();
        }
        out.printf("  verify   %8.2f s  (all checksums, every key finds its record)%n", (System.nanoTime() - verifyStart) / 1e9);
        StatsCommand.print(store, store.stats(), out);
      }
      if (keep) {
        out.println("kept " + dir);
      }
      return Varve.OK;
    } finally {
      if (!keep) {
        FileTrees.deleteTree(parent != null ? parent : dir);
      }
    }
  }

  /** Times {@code get} of member and absent keys; {@code how} names the store's {@link Store#dataAccess}. */
  private static void lookUp(Store store, long records, int lookups, long seed, String how, PrintStream out) {
    SplittableRandom random = new SplittableRandom(seed + 1);
    int members = records == 0 ? 0 : lookups;
    long[] ids = new long[members];
    byte[][] keys = new byte[members][];
    for (int i = 0; i < members; i++) {
      ids[i] = random.nextLong(records);
      keys[i] = key(ids[i]);
    }
    byte[][] found = new byte[members][];
    // Untimed: the first lookups run interpreted, which would charge the JIT to whichever store
    // is timed first.
    for (int i = 0; i < Math.min(members, 200_000); i++) {
      found[i] = store.get(keys[i]);
    }
    long start = System.nanoTime();
    for (int i = 0; i < members; i++) {
      found[i] = store.get(keys[i]);
    }
    long memberNanos = System.nanoTime() - start;
    long wrong = 0;
    for (int i = 0; i < members; i++) {
      if (!Arrays.equals(value(ids[i], seed), found[i])) {
        wrong++;
      }
    }
    byte[][] absent = new byte[lookups][];
    for (int i = 0; i < lookups; i++) {
      absent[i] = ("absent:" + random.nextLong()).getBytes(StandardCharsets.UTF_8);
    }
    long falseHits = 0;
    start = System.nanoTime();
    for (int i = 0; i < lookups; i++) {
      if (store.get(absent[i]) != null) {
        falseHits++;
      }
    }
    long absentNanos = System.nanoTime() - start;
    out.printf("  get      %8.0f ns/lookup for %,d member keys (%d wrong values), %.0f ns/lookup for %,d absent keys (%d false hits); %s%n",
        memberNanos / (double) Math.max(1, members), members, wrong, absentNanos / (double) Math.max(1, lookups), lookups, falseHits,
        how.equals("loaded") ? "data loaded into memory (Store.load)" : "data mapped (Store.open)");
  }
}
