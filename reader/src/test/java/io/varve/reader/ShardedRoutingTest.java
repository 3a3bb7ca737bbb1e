package io.varve.reader;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.builder.BuildOptions;
import io.varve.builder.DuplicatePolicy;
import io.varve.builder.ShardedStoreBuilder;
import io.varve.core.format.CorruptStoreException;
import io.varve.core.shard.ShardManifest;
import io.varve.core.shard.ShardRouter;
import io.varve.core.store.KeyMode;
import io.varve.core.testing.TestRecords;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Shards built apart ({@link ShardedStoreBuilder#buildShard}) and a manifest written by hand, as a
 * distributed job does: a manifest that lists the shards in another order, or with another seed
 * or shard count than their keys were routed by, opened and verified as intact, and lookups then
 * answered null for most keys the store holds, silently. Each entry matches its shard's meta file,
 * so nothing but the keys tells. Now the open refuses it (the first 64 keys and the last of each shard) and so does
 * {@link ShardedStore#verify()} (every key).
 */
class ShardedRoutingTest {
  private static final long SEED = 0x5A2D0L;
  private static final int SHARDS = 4;

  @TempDir Path temp;

  private Map<ByteBuffer, byte[]> records;

  /** Shards of {@code router} built apart under {@code root}, described in shard order. */
  private List<ShardManifest.Shard> buildApart(Path root, ShardRouter router) throws IOException {
    return buildApart(root, router, BuildOptions.DEFAULTS);
  }

  /** {@link #buildApart(Path, ShardRouter)} with {@code options}. */
  private List<ShardManifest.Shard> buildApart(Path root, ShardRouter router, BuildOptions options) throws IOException {
    List<List<Map.Entry<byte[], byte[]>>> partitions = new ArrayList<>();
    for (int i = 0; i < router.shardCount(); i++) {
      partitions.add(new ArrayList<>());
    }
    records.forEach((k, v) -> partitions.get(router.shardOf(k.array())).add(Map.entry(k.array(), v)));
    Files.createDirectories(root);
    List<ShardManifest.Shard> shards = new ArrayList<>();
    for (int i = 0; i < router.shardCount(); i++) {
      shards.add(ShardedStoreBuilder.buildShard(root.resolve("part-" + i), router, i, options,
          DuplicatePolicy.FAIL, partitions.get(i).iterator()));
    }
    return shards;
  }

  private void setUp() {
    System.out.println("ShardedRoutingTest seed " + Long.toHexString(SEED));
    records = TestRecords.variable(4_000, SEED, 16, 16);
  }

  @Test
  void aManifestListingTheShardsInAnotherOrderIsRefused() throws IOException {
    setUp();
    Path root = temp.resolve("reordered");
    List<ShardManifest.Shard> shards = buildApart(root, ShardRouter.of(SEED, SHARDS));
    new ShardManifest(SEED, KeyMode.FULL, 0, List.of(shards.get(1), shards.get(0), shards.get(2), shards.get(3)))
        .write(root.resolve(ShardManifest.FILE_NAME));
    refused(root, "shard 0 of 4 (part-1)");
  }

  @Test
  void aManifestOfAnotherSeedThanTheShardsWereRoutedByIsRefused() throws IOException {
    setUp();
    Path root = temp.resolve("reseeded");
    List<ShardManifest.Shard> shards = buildApart(root, ShardRouter.of(SEED, SHARDS));
    new ShardManifest(SEED + 1, KeyMode.FULL, 0, shards).write(root.resolve(ShardManifest.FILE_NAME));
    refused(root, "of 4 (part-");
  }

  /**
   * Two shards under manifests of 200 other seeds: the open checked each shard's first and last
   * key, two routes a shard, each right with probability 1/2 under another seed, so that one
   * manifest in 16 was opened, and its lookups then missed half the keys, silently (13 of these
   * 200). The open now reads the routes of each shard's first 64 records as well.
   */
  @Test
  void aTwoShardManifestOfAnotherSeedIsRefusedAtOpen() throws IOException {
    setUp();
    Path root = temp.resolve("two-reseeded");
    List<ShardManifest.Shard> shards = buildApart(root, ShardRouter.of(SEED, 2));
    Path file = root.resolve(ShardManifest.FILE_NAME);
    List<Long> opened = new ArrayList<>();
    for (long seed = SEED + 1; seed <= SEED + 200; seed++) {
      Files.deleteIfExists(file);
      new ShardManifest(seed, KeyMode.FULL, 0, shards).write(file);
      try (ShardedStore store = ShardedStore.open(root)) {
        opened.add(seed);
      } catch (CorruptStoreException expected) {
        assertTrue(expected.getMessage().contains("routed to shard"), expected.getMessage());
      }
    }
    assertEquals(List.of(), opened, "manifests of another seed opened");
  }

  /**
   * Shards that keep no keys, listed in another order: the open cannot tell (it reads no hash
   * file), and verify said the store was intact, since its routing check looked at keys only, while
   * every lookup missed. Verify now checks every record's route by the hash file.
   */
  @Test
  void verifyFindsHashOnlyShardsInAnotherOrder() throws IOException {
    setUp();
    Path root = temp.resolve("hash-only-reordered");
    List<ShardManifest.Shard> shards = buildApart(root, ShardRouter.of(SEED, SHARDS), BuildOptions.builder().keyMode(KeyMode.NONE).build());
    new ShardManifest(SEED, KeyMode.NONE, 0, shards).write(root.resolve(ShardManifest.FILE_NAME));
    try (ShardedStore store = ShardedStore.open(root)) {
      store.verify();
    }
    Files.delete(root.resolve(ShardManifest.FILE_NAME));
    new ShardManifest(SEED, KeyMode.NONE, 0, List.of(shards.get(0), shards.get(2), shards.get(1), shards.get(3)))
        .write(root.resolve(ShardManifest.FILE_NAME));
    try (ShardedStore store = ShardedStore.open(root)) {
      CorruptStoreException e = assertThrows(CorruptStoreException.class, store::verify);
      System.out.println("ShardedRoutingTest: " + e.getMessage());
      assertTrue(e.getMessage().contains("shard 1 of 4 (part-2) holds a key routed to shard 2"), e.getMessage());
    }
  }

  @Test
  void shardsRoutedForAnotherShardCountAreRefused() throws IOException {
    setUp();
    Path root = temp.resolve("recounted");
    List<ShardManifest.Shard> shards = buildApart(root, ShardRouter.of(SEED, SHARDS + 1));
    new ShardManifest(SEED, KeyMode.FULL, 0, shards.subList(0, SHARDS)).write(root.resolve(ShardManifest.FILE_NAME));
    refused(root, "of 4 (part-");
  }

  @Test
  void theShardsInTheirOrderServeAndVerify() throws IOException {
    setUp();
    Path root = temp.resolve("right");
    List<ShardManifest.Shard> shards = buildApart(root, ShardRouter.of(SEED, SHARDS));
    new ShardManifest(SEED, KeyMode.FULL, 0, shards).write(root.resolve(ShardManifest.FILE_NAME));
    try (ShardedStore store = ShardedStore.open(root)) {
      store.verify();
      for (Map.Entry<ByteBuffer, byte[]> e : records.entrySet()) {
        assertArrayEquals(e.getValue(), store.get(e.getKey().array()));
      }
    }
  }

  /**
   * A shard that holds one key of another shard among its own (built by a job that skipped
   * buildShard's check): the open checks the first and last record only, so verify must find it.
   */
  @Test
  void verifyFindsAStrayKeyAmongAShardsOwn() throws IOException {
    setUp();
    Path root = temp.resolve("stray");
    ShardRouter router = ShardRouter.of(SEED, SHARDS);
    List<ShardManifest.Shard> shards = new ArrayList<>(buildApart(root, router));
    byte[] stray = null;
    for (ByteBuffer key : records.keySet()) {
      if (router.shardOf(key.array()) == 1) {
        stray = key.array();
        break;
      }
    }
    Path zero = root.resolve("part-0");
    io.varve.core.files.FileTrees.deleteTree(zero);
    try (io.varve.builder.StoreBuilder builder = io.varve.builder.StoreBuilder.create(zero).seed(SEED)) {
      for (Map.Entry<ByteBuffer, byte[]> e : records.entrySet()) {
        if (router.shardOf(e.getKey().array()) == 0 || e.getKey().array() == stray) {
          builder.put(e.getKey().array(), e.getValue());
        }
      }
      builder.build();
    }
    shards.set(0, ShardManifest.describe(zero, "part-0"));
    new ShardManifest(SEED, KeyMode.FULL, 0, shards).write(root.resolve(ShardManifest.FILE_NAME));
    try (ShardedStore store = ShardedStore.open(root)) {
      CorruptStoreException e = assertThrows(CorruptStoreException.class, store::verify);
      System.out.println("ShardedRoutingTest: " + e.getMessage());
      assertTrue(e.getMessage().contains("shard 0 of 4 (part-0) holds a key routed to shard 1"), e.getMessage());
    }
  }

  /** The open refuses the store, naming {@code named}, and says why. */
  private static void refused(Path root, String named) throws IOException {
    CorruptStoreException e = assertThrows(CorruptStoreException.class, () -> {
      try (ShardedStore store = ShardedStore.open(root)) {
        store.verify();
      }
    });
    System.out.println("ShardedRoutingTest: " + e.getMessage());
    assertTrue(e.getMessage().contains(named) && e.getMessage().contains("routed to shard"), e.getMessage());
  }
}
