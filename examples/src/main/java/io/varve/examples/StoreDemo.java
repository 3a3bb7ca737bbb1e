package io.varve.examples;

import io.varve.builder.BuildListener;
import io.varve.builder.BuildSummary;
import io.varve.builder.StoreBuilder;
import io.varve.core.index.IndexParameters;
import io.varve.reader.Store;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
import java.util.SplittableRandom;
import java.util.stream.Stream;

/**
 * {@code varve demo}: generates records, builds a store in bounded memory, opens it, looks up
 * sampled member keys (checking every value) and absent keys, verifies it, and prints sizes and
 * timings. The store goes to a temporary directory, deleted at the end unless {@code --keep}.
 */
final class StoreDemo {
  private StoreDemo() {}

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

  static int run(String[] args, PrintStream out, PrintStream err) throws IOException {
    Options options =
        Options.parse(
            args, java.util.Set.of("keep"), Options.names(BuildCommand.INDEX_OPTIONS, "records", "memory", "lookups", "seed", "dir"));
    long records = options.getLong("records", 10_000_000, 0, 1L << 40);
    long memory = BuildCommand.memoryBudget(options);
    IndexParameters index = BuildCommand.indexKnobs(options, StoreBuilder.DEFAULT_ECT_INDEX);
    int lookups = options.getInt("lookups", 1_000_000, 0, Integer.MAX_VALUE);
    long seed = options.getLong("seed", 42, Long.MIN_VALUE, Long.MAX_VALUE);
    String dirOption = options.getString("dir", null);
    boolean keep = options.flag("keep");
    options.checkAllUsed();
    if (!options.positional().isEmpty()) {
      throw new IllegalArgumentException("unexpected argument '" + options.positional().get(0) + "'");
    }
    Path parent = dirOption == null ? Files.createTempDirectory("varve-demo") : null;
    Path dir = dirOption == null ? parent.resolve("store") : Path.of(dirOption);
    try {
      out.printf("varve demo: %,d records (keys user:<i>, values of 8-40 random bytes) into %s, memory budget %d MiB%n",
          records, dir, memory >> 20);
      Progress progress = Progress.forTerminal(err);
      long start = System.nanoTime();
      BuildSummary summary;
      try (StoreBuilder builder =
          StoreBuilder.create(dir)
              .memoryBudget(memory)
              .indexParameters(index != null ? index : StoreBuilder.DEFAULT_INDEX)
              .listener(progress)) {
        for (long i = 0; i < records; i++) {
          builder.put(key(i), value(i, seed));
        }
        summary = builder.build();
      }
      progress.done();
      double buildSeconds = (System.nanoTime() - start) / 1e9;
      out.printf("  build    %8.2f s  (%.2f M records/s, %d spills of the memory buffer)%n",
          buildSeconds, records / 1e6 / Math.max(1e-9, buildSeconds), summary.spills());
      try (Store loaded = Store.load(dir)) {
        lookUp(loaded, records, lookups, seed, "loaded", out);
      }
      try (Store store = Store.open(dir)) {
        lookUp(store, records, lookups, seed, "mapped", out);
        long verifyStart = System.nanoTime();
        store.verify();
        out.printf("  verify   %8.2f s  (all checksums, every key finds its record)%n", (System.nanoTime() - verifyStart) / 1e9);
        StoreCommands.printStats(store, store.stats(), out);
      }
      if (keep) {
        out.println("kept " + dir);
      }
      return 0;
    } finally {
      if (!keep) {
        deleteTree(parent != null ? parent : dir);
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

  static void deleteTree(Path root) throws IOException {
    if (root == null || !Files.exists(root)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(root)) {
      for (Path p : (Iterable<Path>) walk.sorted(Comparator.reverseOrder())::iterator) {
        Files.delete(p);
      }
    }
  }

  /** Reports build progress on a terminal (stderr), one updating line; silent otherwise. */
  static final class Progress implements BuildListener {
    private final PrintStream err;
    private final boolean terminal;
    private final long start = System.nanoTime();
    private boolean printed;

    private Progress(PrintStream err, boolean terminal) {
      this.err = err;
      this.terminal = terminal;
    }

    static Progress forTerminal(PrintStream err) {
      return new Progress(err, System.console() != null && err == System.err);
    }

    @Override
    public void progress(Phase phase, long done, long total) {
      if (!terminal) {
        return;
      }
      double seconds = (System.nanoTime() - start) / 1e9;
      String bar = "";
      if (total > 0) {
        int width = 30;
        int filled = (int) (width * Math.min(1.0, done / (double) total));
        bar = " [" + "#".repeat(filled) + " ".repeat(width - filled) + "] " + (100 * done / total) + "%";
      }
      err.printf("\r%-6s %,15d records%s  %.0f s   ", phase == Phase.INPUT ? "read" : "write", done, bar, seconds);
      err.flush();
      printed = true;
    }

    /** Clears the progress line; again after that, does nothing (error paths may call it twice). */
    void done() {
      if (printed) {
        err.print("\r" + " ".repeat(78) + "\r");
        err.flush();
        printed = false;
      }
    }
  }
}
