package io.varve.builder;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.core.shard.ShardManifest;
import io.varve.core.shard.ShardRouter;
import io.varve.core.testing.TestRecords;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One shard built from array slices ({@link ShardedStoreBuilder.ShardRecords}), with its routes
 * checked on the build's own hash: against a {@link HashMap}.
 */
class ShardBuildTest {
  private static final int SHARDS = 4;
  private static final int SHARD = 2;

  @TempDir Path temp;

  /** Random keys (empty and non-ASCII ones among them) of {@code shard}, with values. */
  private static Map<ByteBuffer, byte[]> recordsOf(ShardRouter router, int shard, int count, SplittableRandom random) {
    Map<ByteBuffer, byte[]> records = new HashMap<>();
    byte[] empty = new byte[0];
    if (router.shardOf(empty) == shard) {
      records.put(ByteBuffer.wrap(empty), "empty key".getBytes(StandardCharsets.UTF_8));
    }
    while (records.size() < count) {
      byte[] key = new byte[random.nextInt(1, 24)];
      random.nextBytes(key);
      if (router.shardOf(key) == shard) {
        byte[] value = new byte[random.nextInt(0, 40)];
        random.nextBytes(value);
        records.put(ByteBuffer.wrap(key), value);
      }
    }
    return records;
  }

  /** Puts each record as slices in the middle of a larger array, as a shuffle hands them over. */
  private static void putAsSlices(Map<ByteBuffer, byte[]> records, StoreBuilder builder) throws IOException {
    for (Map.Entry<ByteBuffer, byte[]> record : records.entrySet()) {
      byte[] key = record.getKey().array();
      byte[] value = record.getValue();
      byte[] packed = new byte[3 + key.length + value.length + 5];
      System.arraycopy(key, 0, packed, 3, key.length);
      System.arraycopy(value, 0, packed, 3 + key.length, value.length);
      builder.put(packed, 3, key.length, packed, 3 + key.length, value.length);
    }
  }

  private static void assertStoreHolds(Path directory, Map<ByteBuffer, byte[]> expected) throws IOException {
    Map<ByteBuffer, byte[]> got = StoreFiles.read(directory).asMap();
    assertEquals(expected.size(), got.size(), "record count");
    for (Map.Entry<ByteBuffer, byte[]> record : expected.entrySet()) {
      assertArrayEquals(record.getValue(), got.get(record.getKey()), "value of a key");
    }
  }

  /** Builds the shard from {@code records} as slices, spilling (the smallest memory budget). */
  private ShardManifest.Shard buildSpilling(ShardRouter router, ShardedStoreBuilder.ShardRecords records) throws IOException {
    BuildOptions options = BuildOptions.builder().memoryBudget(StoreBuilder.MIN_MEMORY_BUDGET).build();
    return ShardedStoreBuilder.buildShard(shardDirectory(), router, SHARD, options, DuplicatePolicy.FAIL, records);
  }

  private Path shardDirectory() {
    return temp.resolve(ShardManifest.shardName(SHARD));
  }

  @Test
  void slicesOfOneShardBuildItWhileSpilling() throws IOException {
    SplittableRandom random = TestRecords.seeded("ShardBuildTest.slicesOfOneShardBuildItWhileSpilling", 0x5A1CE5L);
    ShardRouter router = ShardRouter.of(31, SHARDS);
    Map<ByteBuffer, byte[]> records = recordsOf(router, SHARD, 60_000, random);
    ShardManifest.Shard entry = buildSpilling(router, builder -> putAsSlices(records, builder));
    assertEquals(records.size(), entry.records());
    assertEquals(router.seed(), entry.storeSeed());
    assertStoreHolds(shardDirectory(), records);
    StoreFiles.assertNoLeftovers(temp);
  }

  @Test
  void aMisroutedKeyAfterManyGoodOnesFailsTheBuildByName() throws IOException {
    SplittableRandom random = TestRecords.seeded("ShardBuildTest.aMisroutedKeyAfterManyGoodOnesFailsTheBuildByName", 0xBAD5L);
    ShardRouter router = ShardRouter.of(31, SHARDS);
    Map<ByteBuffer, byte[]> records = recordsOf(router, SHARD, 20_000, random);
    byte[] misrouted = "élan-misrouted".getBytes(StandardCharsets.UTF_8);
    for (int i = 0; router.shardOf(misrouted) == SHARD; i++) {
      misrouted = ("élan-misrouted-" + i).getBytes(StandardCharsets.UTF_8);
    }
    byte[] wrong = misrouted;
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> buildSpilling(router, builder -> {
      putAsSlices(records, builder);
      builder.put(wrong, new byte[] {1});
    }));
    assertTrue(e.getMessage().contains("élan-misrouted") && e.getMessage().contains("routes to shard " + router.shardOf(wrong))
        && e.getMessage().contains("not " + SHARD), e.getMessage());
    assertFalse(Files.exists(shardDirectory()));
    StoreFiles.assertNoLeftovers(temp);
  }

  /**
   * A collision of two keys under the router's seed moves the build to the next seed; the records
   * it takes along are not checked again under that seed, whose hashes route elsewhere.
   */
  @Test
  void aRehashedShardKeepsItsRecords() throws IOException {
    SplittableRandom random = TestRecords.seeded("ShardBuildTest.aRehashedShardKeepsItsRecords", 0xC011DEL);
    ShardRouter router = ShardRouter.of(47, SHARDS);
    Map<ByteBuffer, byte[]> records = recordsOf(router, SHARD, 30_000, random);
    byte[] a = records.keySet().iterator().next().array();
    byte[] b = records.keySet().stream().map(ByteBuffer::array).filter(k -> k != a).findFirst().orElseThrow();
    BuildSummary summary;
    try (StoreBuilder builder = StoreBuilder.create(shardDirectory()).memoryBudget(StoreBuilder.MIN_MEMORY_BUDGET).shard(router, SHARD)
        .hashers(StoreBuilderTest.twoKeysCollideAt(router.seed(), a, b))) {
      putAsSlices(records, builder);
      summary = builder.build();
    }
    assertEquals(2, summary.seedAttempts());
    assertEquals(router.seed() + 1, summary.meta().seed());
    assertStoreHolds(shardDirectory(), records);
  }

  @Test
  void theShardMustBeOneOfTheRouters() throws IOException {
    ShardRouter router = ShardRouter.of(1, SHARDS);
    assertThrows(IndexOutOfBoundsException.class, () -> ShardedStoreBuilder.buildShard(temp.resolve("s"), router, SHARDS,
        BuildOptions.DEFAULTS, DuplicatePolicy.FAIL, builder -> {}));
    assertFalse(Files.exists(temp.resolve("s")));
  }
}
