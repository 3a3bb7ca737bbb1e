package io.varve.reader;

import io.varve.builder.StoreBuilder;
import io.varve.builder.StoreMerger;
import io.varve.builder.StoreReindexer;
import io.varve.core.store.StoreRoot;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.SplittableRandom;

/**
 * The child process of {@link KillTest}: builds, merges, re-indexes and publishes versions of a
 * {@link StoreRoot} in a loop, in little memory (so that builds spill), until it is killed.
 */
public final class KillTestChild {
  private KillTestChild() {}

  public static void main(String[] args) throws Exception {
    StoreRoot root = StoreRoot.open(Path.of(args[0]));
    SplittableRandom random = new SplittableRandom(Long.parseLong(args[1]));
    for (int generation = 0; ; generation++) {
      Path built = root.newVersion();
      System.out.println("build " + built.getFileName());
      try (StoreBuilder builder = StoreBuilder.create(built).memoryBudget(StoreBuilder.MIN_MEMORY_BUDGET)) {
        int records = 20_000 + random.nextInt(60_000);
        for (int i = 0; i < records; i++) {
          builder.put(key(i), value(i, generation));
        }
        builder.build();
      }
      root.publish(built.getFileName().toString());
      Path merged = root.newVersion();
      System.out.println("merge " + merged.getFileName());
      try (StoreMerger merger = StoreMerger.create(merged).base(built).memoryBudget(StoreBuilder.MIN_MEMORY_BUDGET)) {
        for (int i = 0; i < 20_000; i++) {
          int k = random.nextInt(100_000);
          if (random.nextInt(4) == 0) {
            merger.delete(key(k));
          } else {
            merger.put(key(k), value(k, generation + 1));
          }
        }
        merger.merge();
      }
      root.publish(merged.getFileName().toString());
      Path sparse = root.newVersion();
      System.out.println("reindex " + sparse.getFileName());
      StoreReindexer.reindex(merged, sparse, 4096, null);
      root.publish(sparse.getFileName().toString());
    }
  }

  static byte[] key(int i) {
    return ("key-" + i).getBytes(StandardCharsets.UTF_8);
  }

  static byte[] value(int i, int generation) {
    return ("value-" + i + "-of-generation-" + generation).getBytes(StandardCharsets.UTF_8);
  }
}
