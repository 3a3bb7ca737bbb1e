package io.varve.builder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.core.shard.ShardManifest;
import io.varve.core.shard.ShardRouter;
import io.varve.core.store.KeyMode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the sharded builder refuses, and that a build that fails publishes nothing and leaves
 * nothing behind. Lookups through the built stores are in the reader's {@code ShardedStoreTest}.
 */
class ShardedStoreBuilderTest {
  @TempDir Path temp;

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private List<String> leftovers() throws IOException {
    try (Stream<Path> entries = Files.list(temp)) {
      return entries.map(p -> p.getFileName().toString()).toList();
    }
  }

  @Test
  void refusesBadShardCountsBudgetsAndAnExistingRoot() throws IOException {
    Path root = temp.resolve("root");
    assertThrows(IllegalArgumentException.class, () -> ShardedStoreBuilder.create(root, 0));
    assertThrows(IllegalArgumentException.class, () -> ShardedStoreBuilder.create(root, 65_537));
    IllegalArgumentException budget =
        assertThrows(IllegalArgumentException.class, () -> ShardedStoreBuilder.create(root, 129));
    assertTrue(budget.getMessage().contains("memoryBudget"), budget.getMessage());
    ShardedStoreBuilder.create(root, 128, BuildOptions.DEFAULTS).close();
    Files.createDirectory(root);
    assertThrows(FileAlreadyExistsException.class, () -> ShardedStoreBuilder.create(root, 4));
  }

  @Test
  void aDuplicateKeyFailsTheBuildAndPublishesNothing() throws IOException {
    Path root = temp.resolve("root");
    try (ShardedStoreBuilder builder = ShardedStoreBuilder.create(root, 7)) {
      for (int i = 0; i < 1_000; i++) {
        builder.put(utf8("k" + i), utf8("v" + i));
      }
      builder.put(utf8("k500"), utf8("again"));
      DuplicateKeyException e = assertThrows(DuplicateKeyException.class, builder::build);
      assertTrue(e.getMessage().contains("k500"), e.getMessage());
      assertFalse(Files.exists(root));
    }
    assertEquals(List.of(), leftovers());
  }

  @Test
  void aListenerThatFailsAtPublishingPublishesNothing() throws IOException {
    Path root = temp.resolve("root");
    BuildOptions options = BuildOptions.builder()
        .listener((phase, done, total) -> {
          if (phase == BuildListener.Phase.PUBLISH) {
            throw new IllegalStateException("stop before publishing");
          }
        })
        .build();
    try (ShardedStoreBuilder builder = ShardedStoreBuilder.create(root, 3, options)) {
      for (int i = 0; i < 5_000; i++) {
        builder.put(utf8("k" + i), utf8("v" + i));
      }
      assertThrows(IllegalStateException.class, builder::build);
    }
    assertFalse(Files.exists(root));
    assertEquals(List.of(), leftovers());
  }

  @Test
  void progressCoversInputWriteAndPublishInOrder() throws IOException {
    List<String> reports = new ArrayList<>();
    long[] lastWrite = {-1};
    BuildOptions options = BuildOptions.builder()
        .listener((phase, done, total) -> {
          if (phase == BuildListener.Phase.WRITE) {
            assertTrue(done > lastWrite[0] && done <= total, done + " after " + lastWrite[0] + " of " + total);
            lastWrite[0] = done;
          }
          if (reports.isEmpty() || !reports.get(reports.size() - 1).equals(phase.name())) {
            reports.add(phase.name());
          }
        })
        .build();
    try (ShardedStoreBuilder builder = ShardedStoreBuilder.create(temp.resolve("root"), 5, options)) {
      for (int i = 0; i < 200_000; i++) {
        builder.put(utf8("k" + i), utf8("v"));
      }
      ShardedBuildSummary summary = builder.build();
      assertEquals(200_000, summary.manifest().recordCount());
    }
    assertEquals(List.of("INPUT", "WRITE", "PUBLISH"), reports);
    assertEquals(200_000, lastWrite[0]);
  }

  @Test
  void buildShardRefusesAKeyOfAnotherShard() throws IOException {
    ShardRouter router = ShardRouter.of(9, 4);
    byte[] key = utf8("misrouted");
    int other = (router.shardOf(key) + 1) % 4;
    Path directory = temp.resolve(ShardManifest.shardName(other));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ShardedStoreBuilder.buildShard(
        directory, router, other, BuildOptions.DEFAULTS, DuplicatePolicy.FAIL, List.of(Map.entry(key, utf8("v"))).iterator()));
    assertTrue(e.getMessage().contains("misrouted") && e.getMessage().contains("routes to shard"), e.getMessage());
    assertFalse(Files.exists(directory));
  }

  @Test
  void theManifestDescribesEveryShard() throws IOException {
    Path root = temp.resolve("root");
    BuildOptions options = BuildOptions.builder().keyMode(KeyMode.signature(40)).build();
    ShardedBuildSummary summary;
    try (ShardedStoreBuilder builder = ShardedStoreBuilder.create(root, 6, options).seed(77)) {
      for (int i = 0; i < 3_000; i++) {
        builder.put(utf8("k" + i), utf8("v" + i));
      }
      summary = builder.build();
    }
    ShardManifest manifest = ShardManifest.read(root.resolve(ShardManifest.FILE_NAME));
    assertEquals(summary.manifest(), manifest);
    assertEquals(77, manifest.seed());
    assertEquals(KeyMode.signature(40), manifest.keyMode());
    assertEquals(3_000, manifest.recordCount());
    for (int i = 0; i < 6; i++) {
      ShardManifest.Shard shard = manifest.shards().get(i);
      assertEquals(ShardManifest.shardName(i), shard.name());
      assertEquals(ShardManifest.describe(root.resolve(shard.name()), shard.name()), shard);
    }
    try (Stream<Path> entries = Files.list(root)) {
      assertEquals(7, entries.count(), "six shards and the manifest, nothing else");
    }
  }
}
