package io.varve.reader;

import io.varve.builder.BuildOptions;
import io.varve.builder.ShardedStoreBuilder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * The child process of {@link ShardedKillTest}: builds sharded stores {@code root-1}, {@code
 * root-2}, ... in a directory, in little memory (so that shards spill), until it is killed.
 */
public final class ShardedKillTestChild {
  static final int SHARDS = 5;
  static final int RECORDS = 60_000;

  private ShardedKillTestChild() {}

  public static void main(String[] args) throws Exception {
    Path directory = Path.of(args[0]);
    BuildOptions options = BuildOptions.builder().memoryBudget(SHARDS * BuildOptions.MIN_MEMORY_BUDGET).build();
    for (int generation = 1; ; generation++) {
      Path root = directory.resolve("root-" + generation);
      if (root.toFile().exists()) {
        continue;
      }
      System.out.println("build " + root.getFileName());
      try (ShardedStoreBuilder builder = ShardedStoreBuilder.create(root, SHARDS, options)) {
        for (int i = 0; i < RECORDS; i++) {
          builder.put(key(i), value(i));
        }
        builder.build();
      }
    }
  }

  static byte[] key(int i) {
    return ("key-" + i).getBytes(StandardCharsets.UTF_8);
  }

  static byte[] value(int i) {
    return ("value-" + i + "-" + "x".repeat(i % 200)).getBytes(StandardCharsets.UTF_8);
  }
}
