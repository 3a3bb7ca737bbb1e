package io.varve.benchmarks;

import io.varve.builder.BuildSummary;
import io.varve.builder.MergeSummary;
import io.varve.builder.StoreBuilder;
import io.varve.builder.StoreMerger;
import io.varve.core.files.FileTrees;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Whole-process timing of an incremental merge against a full rebuild of the same result, both in
 * one run: builds a base store of {@code N} records (16-byte keys, 8-byte values), then, {@code
 * rounds} times, merges a batch of {@code N / 10} operations into it and rebuilds the merged
 * content from scratch with {@link StoreBuilder}, printing both times and their ratio.
 *
 * <pre>
 * java -Xmx2g -cp benchmarks/target/benchmarks.jar io.varve.benchmarks.MergeVsRebuild \
 *     50000000 /tmp/varve-merge [add|mixed] [rounds] [memoryBudgetMiB]
 * </pre>
 *
 * {@code add}: the batch is {@code N / 10} new keys. {@code mixed}: new keys for 6 % of {@code N},
 * new values for 3 % of the old keys, deletes of 1 %. The work directory must not exist; it is
 * deleted at the end. The merged store and the rebuilt one are compared by size. A command-line
 * program: it has no state to share between threads.
 */
public final class MergeVsRebuild {
  private MergeVsRebuild() {}

  public static void main(String[] args) throws IOException {
    long n = Long.parseLong(args[0]);
    Path work = Path.of(args[1]);
    boolean mixed = args.length > 2 && args[2].equals("mixed");
    int rounds = args.length > 3 ? Integer.parseInt(args[3]) : 1;
    long budget = args.length > 4 ? Long.parseLong(args[4]) << 20 : StoreBuilder.DEFAULT_MEMORY_BUDGET;
    Files.createDirectory(work);
    try {
      Content content = new Content(n, mixed);
      Path base = work.resolve("base");
      long start = System.nanoTime();
      try (StoreBuilder builder = StoreBuilder.create(base).memoryBudget(budget)) {
        content.putBase(builder);
        builder.build();
      }
      System.out.printf("base: %,d records built in %.1f s%n", n, (System.nanoTime() - start) / 1e9);
      for (int round = 1; round <= rounds; round++) {
        Path merged = work.resolve("merged-" + round);
        MergeSummary merge;
        try (StoreMerger merger = StoreMerger.create(merged).base(base).memoryBudget(budget)) {
          content.feedBatch(merger);
          merge = merger.merge();
        }
        Path rebuilt = work.resolve("rebuilt-" + round);
        BuildSummary rebuild;
        try (StoreBuilder builder = StoreBuilder.create(rebuilt).memoryBudget(budget)) {
          content.putResult(builder);
          rebuild = builder.build();
        }
        if (merge.meta().recordCount() != rebuild.meta().recordCount()) {
          throw new IllegalStateException(
              "merged " + merge.meta().recordCount() + " records, rebuilt " + rebuild.meta().recordCount());
        }
        System.out.printf(
            "round %d (%s): merge %.2f s (%,d ops: %,d inserted, %,d replaced, %,d deleted), rebuild %.2f s"
                + " (%,d records): merge/rebuild = %.3f; bytes merged %,d, rebuilt %,d%n",
            round,
            mixed ? "mixed" : "add",
            merge.nanos() / 1e9,
            merge.operations(),
            merge.inserted(),
            merge.replaced(),
            merge.deleted(),
            rebuild.nanos() / 1e9,
            rebuild.meta().recordCount(),
            merge.nanos() / (double) rebuild.nanos(),
            WorkDirectory.bytes(merged),
            WorkDirectory.bytes(rebuilt));
        FileTrees.deleteTree(merged);
        FileTrees.deleteTree(rebuilt);
      }
    } finally {
      FileTrees.deleteTree(work);
    }
  }

  /**
   * The records: old key {@code i < n} and new key {@code i >= n} are mixes of {@code i}; values
   * are {@code i} (new values: {@code ~i}). Which old keys are updated or deleted follows from a
   * mix of {@code i}, so base, batch and result are consistent without being stored.
   */
  private static final class Content {
    private final long n;
    private final boolean mixed;
    private final long newKeys;
    private final byte[] key = new byte[16];
    private final byte[] value = new byte[8];

    Content(long n, boolean mixed) {
      this.n = n;
      this.mixed = mixed;
      this.newKeys = mixed ? n * 6 / 100 : n / 10;
    }

    /** 0..99: below 3 updated, 3 deleted, in mixed mode. */
    private int fate(long i) {
      return mixed ? (int) Long.remainderUnsigned(mix(i ^ 0xFA7EL), 100) : 99;
    }

    void putBase(StoreBuilder builder) throws IOException {
      for (long i = 0; i < n; i++) {
        builder.put(key(i), value(i));
      }
    }

    void feedBatch(StoreMerger merger) throws IOException {
      if (mixed) {
        for (long i = 0; i < n; i++) {
          int fate = fate(i);
          if (fate < 3) {
            merger.put(key(i), value(~i));
          } else if (fate == 3) {
            merger.delete(key(i));
          }
        }
      }
      for (long i = n; i < n + newKeys; i++) {
        merger.put(key(i), value(i));
      }
    }

    void putResult(StoreBuilder builder) throws IOException {
      for (long i = 0; i < n + newKeys; i++) {
        int fate = i < n ? fate(i) : 99;
        if (fate != 3) {
          builder.put(key(i), value(fate < 3 ? ~i : i));
        }
      }
    }

    private byte[] key(long i) {
      long a = mix(i);
      long b = mix(a ^ i);
      for (int j = 0; j < 8; j++) {
        key[j] = (byte) (a >>> (8 * j));
        key[8 + j] = (byte) (b >>> (8 * j));
      }
      return key;
    }

    private byte[] value(long v) {
      for (int j = 0; j < 8; j++) {
        value[j] = (byte) (v >>> (8 * j));
      }
      return value;
    }

    /** SplitMix64's finalizer: a bijection of longs. */
    private static long mix(long z) {
      z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
      z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
      return z ^ (z >>> 31);
    }
  }
}
