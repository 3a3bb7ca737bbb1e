package io.varve.reader;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.builder.BuildOptions;
import io.varve.builder.DuplicatePolicy;
import io.varve.builder.ShardedBuildSummary;
import io.varve.builder.ShardedStoreBuilder;
import io.varve.builder.StoreBuilder;
import io.varve.core.files.FileTrees;
import io.varve.core.format.CorruptStoreException;
import io.varve.core.shard.ShardManifest;
import io.varve.core.shard.ShardRouter;
import io.varve.core.testing.TestRecords;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Sharded stores built by {@link ShardedStoreBuilder} (or shard by shard) and read by {@link
 * ShardedStore}, checked against a {@link HashMap} and against one store built from the same
 * records: every key found with its value, absent keys absent; damage named by shard.
 */
class ShardedStoreTest {
  @TempDir Path temp;

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private Path build(String name, int shards, Map<ByteBuffer, byte[]> records, BuildOptions options) throws IOException {
    Path root = temp.resolve(name);
    try (ShardedStoreBuilder builder = ShardedStoreBuilder.create(root, shards, options)) {
      for (Map.Entry<ByteBuffer, byte[]> e : records.entrySet()) {
        builder.put(e.getKey().array(), e.getValue());
      }
      ShardedBuildSummary summary = builder.build();
      assertEquals(records.size(), summary.manifest().recordCount());
    }
    return root;
  }

  private Path build(String name, int shards, Map<ByteBuffer, byte[]> records) throws IOException {
    return build(name, shards, records, BuildOptions.DEFAULTS);
  }

  private Path buildSingle(String name, Map<ByteBuffer, byte[]> records) throws IOException {
    Path dir = temp.resolve(name);
    try (StoreBuilder builder = StoreBuilder.create(dir)) {
      for (Map.Entry<ByteBuffer, byte[]> e : records.entrySet()) {
        builder.put(e.getKey().array(), e.getValue());
      }
      builder.build();
    }
    return dir;
  }

  /** Keys that no record has: different lengths and bytes from the records'. */
  private static List<byte[]> absentKeys(Map<ByteBuffer, byte[]> records, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    List<byte[]> absent = new ArrayList<>();
    while (absent.size() < 500) {
      byte[] key = TestRecords.upTo(random, 30);
      if (!records.containsKey(ByteBuffer.wrap(key))) {
        absent.add(key);
      }
    }
    return absent;
  }

  /** Every key found with its value by get, contains and getAll (in a shuffled order); absent keys absent. */
  private static void assertServes(Path root, Map<ByteBuffer, byte[]> records, long seed) throws IOException {
    try (ShardedStore store = ShardedStore.open(root)) {
      assertEquals(records.size(), store.size());
      assertEquals(records.size(), store.stats().records());
      List<byte[]> keys = new ArrayList<>();
      for (Map.Entry<ByteBuffer, byte[]> e : records.entrySet()) {
        byte[] key = e.getKey().array();
        assertArrayEquals(e.getValue(), store.get(key));
        assertTrue(store.contains(key));
        keys.add(key);
      }
      List<byte[]> absent = absentKeys(records, seed);
      for (byte[] key : absent) {
        assertNull(store.get(key));
        assertFalse(store.contains(key));
      }
      keys.addAll(absent);
      java.util.Collections.shuffle(keys, new java.util.Random(seed));
      byte[][] batch = keys.toArray(new byte[0][]);
      byte[][] values = new byte[batch.length][];
      store.getAll(batch, values);
      for (int i = 0; i < batch.length; i++) {
        assertArrayEquals(records.get(ByteBuffer.wrap(batch[i])), values[i], "getAll answer " + i);
      }
      store.verify();
    }
  }

  @Test
  void zeroAndOneRecords() throws IOException {
    Map<ByteBuffer, byte[]> none = Map.of();
    assertServes(build("none-1", 1, none), none, 1);
    assertServes(build("none-7", 7, none), none, 2);
    Map<ByteBuffer, byte[]> one = Map.of(ByteBuffer.wrap(utf8("only")), utf8("one"));
    assertServes(build("one-1", 1, one), one, 3);
    assertServes(build("one-7", 7, one), one, 4);
  }

  @Test
  void sevenShardsAnswerAsOneStoreOfTheSameRecords() throws IOException {
    long seed = 0x5A4D7L;
    System.out.println("ShardedStoreTest seed " + Long.toHexString(seed));
    Map<ByteBuffer, byte[]> records = TestRecords.variable(30_000, seed, 24, 40);
    Path sharded = build("seven", 7, records);
    assertServes(sharded, records, seed);
    try (ShardedStore store = ShardedStore.open(sharded); Store single = Store.open(buildSingle("single", records))) {
      for (ByteBuffer key : records.keySet()) {
        assertArrayEquals(single.get(key.array()), store.get(key.array()));
      }
      for (byte[] key : absentKeys(records, seed + 1)) {
        assertEquals(single.contains(key), store.contains(key));
      }
      StoreStats stats = store.stats();
      assertEquals(single.stats().records(), stats.records());
      assertEquals(single.stats().indexKind(), stats.indexKind());
      assertTrue(store.toString().contains("7 shards"));
    }
  }

  @Test
  void sixtyFourShardsOfFewRecordsLeaveSomeEmpty() throws IOException {
    long seed = 64;
    Map<ByteBuffer, byte[]> records = TestRecords.variable(40, seed, 10, 10);
    Path root = build("sixty-four", 64, records);
    ShardManifest manifest = ShardManifest.read(root.resolve(ShardManifest.FILE_NAME));
    assertTrue(manifest.shards().stream().anyMatch(s -> s.records() == 0), "some shard is empty");
    assertServes(root, records, seed);
  }

  @Test
  void emptyKeysEmptyValuesNonAsciiAndSkewedKeys() throws IOException {
    Map<ByteBuffer, byte[]> records = new LinkedHashMap<>();
    records.put(ByteBuffer.wrap(new byte[0]), utf8("the empty key"));
    records.put(ByteBuffer.wrap(utf8("empty value")), new byte[0]);
    for (String key : new String[] {"ключ", "鍵", "clé", "🔑", "\u0000nul", "tab\tkey"}) {
      records.put(ByteBuffer.wrap(utf8(key)), utf8("value of " + key));
    }
    // Skewed: long shared prefixes, a few lengths, sequential numbers.
    for (int i = 0; i < 20_000; i++) {
      records.put(ByteBuffer.wrap(utf8("tenant-000000000000000001/user/" + i)), utf8(Integer.toString(i)));
    }
    for (long i = 0; i < 5_000; i++) {
      records.put(ByteBuffer.wrap(ByteBuffer.allocate(8).putLong(i).array()), new byte[(int) (i % 3)]);
    }
    assertServes(build("skewed", 7, records), records, 5);
  }

  @Test
  void aBuildLargerThanItsMemoryBudgetSpills() throws IOException {
    long seed = 0xB16L;
    Map<ByteBuffer, byte[]> records = TestRecords.variable(60_000, seed, 40, 400);
    BuildOptions options = BuildOptions.builder().memoryBudget(3 * BuildOptions.MIN_MEMORY_BUDGET).build();
    Path root = temp.resolve("spilled");
    try (ShardedStoreBuilder builder = ShardedStoreBuilder.create(root, 3, options)) {
      for (Map.Entry<ByteBuffer, byte[]> e : records.entrySet()) {
        builder.put(e.getKey().array(), e.getValue());
      }
      ShardedBuildSummary summary = builder.build();
      System.out.println("ShardedStoreTest spills: " + summary.spills());
      assertTrue(summary.spills() > 0, "the shards spilled");
    }
    assertServes(root, records, seed);
  }

  @Test
  void lastWinsKeepsTheLastValueOfARepeatedKey() throws IOException {
    Path root = temp.resolve("last-wins");
    try (ShardedStoreBuilder builder = ShardedStoreBuilder.create(root, 5).duplicates(DuplicatePolicy.LAST_WINS)) {
      for (int round = 0; round < 3; round++) {
        for (int i = 0; i < 2_000; i++) {
          builder.put(utf8("k" + i), utf8("v" + i + "/" + round));
        }
      }
      assertEquals(4_000, builder.build().duplicatesDropped());
    }
    try (ShardedStore store = ShardedStore.open(root)) {
      assertEquals(2_000, store.size());
      for (int i = 0; i < 2_000; i++) {
        assertArrayEquals(utf8("v" + i + "/2"), store.get(utf8("k" + i)));
      }
    }
  }

  @Test
  void shardsBuiltApartByBuildShardOpenAsOneStore() throws IOException {
    long seed = 0xA9A27L;
    Map<ByteBuffer, byte[]> records = TestRecords.variable(5_000, seed, 16, 16);
    ShardRouter router = ShardRouter.of(seed, 4);
    List<List<Map.Entry<byte[], byte[]>>> partitions = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      partitions.add(new ArrayList<>());
    }
    records.forEach((k, v) -> partitions.get(router.shardOf(k.array())).add(Map.entry(k.array(), v)));
    Path root = Files.createDirectory(temp.resolve("apart"));
    List<ShardManifest.Shard> shards = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      shards.add(ShardedStoreBuilder.buildShard(root.resolve("part-" + i), router, i, BuildOptions.DEFAULTS,
          DuplicatePolicy.FAIL, partitions.get(i).iterator()));
    }
    new ShardManifest(seed, io.varve.core.store.KeyMode.FULL, 0, shards).write(root.resolve(ShardManifest.FILE_NAME));
    assertServes(root, records, seed);
  }

  @Test
  void aRootWithoutManifestIsNoShardedStore() throws IOException {
    Path root = Files.createDirectory(temp.resolve("unfinished"));
    NoSuchFileException e = assertThrows(NoSuchFileException.class, () -> ShardedStore.open(root));
    assertTrue(e.getMessage().contains(ShardManifest.FILE_NAME), e.getMessage());
  }

  @Test
  void aMissingShardIsNamed() throws IOException {
    Map<ByteBuffer, byte[]> records = TestRecords.variable(3_000, 11, 16, 16);
    Path root = build("missing", 7, records);
    FileTrees.deleteTree(root.resolve("shard-00003"));
    CorruptStoreException e = assertThrows(CorruptStoreException.class, () -> ShardedStore.open(root));
    assertTrue(e.getMessage().contains("shard 3 of 7 (shard-00003) is missing"), e.getMessage());
    Files.createDirectory(root.resolve("shard-00003"));
    e = assertThrows(CorruptStoreException.class, () -> ShardedStore.open(root));
    assertTrue(e.getMessage().contains("shard 3 of 7 (shard-00003) is not a complete store"), e.getMessage());
  }

  @Test
  void aDamagedShardIsNamed() throws IOException {
    Map<ByteBuffer, byte[]> records = TestRecords.variable(3_000, 12, 16, 16);
    Path root = build("damaged", 7, records);
    flipByte(root.resolve("shard-00005").resolve("meta"), 40);
    CorruptStoreException e = assertThrows(CorruptStoreException.class, () -> ShardedStore.open(root));
    assertTrue(e.getMessage().contains("shard 5 of 7 (shard-00005) is damaged"), e.getMessage());
  }

  @Test
  void aDamagedRecordIsFoundByVerifyAndNamed() throws IOException {
    Map<ByteBuffer, byte[]> records = TestRecords.variable(3_000, 13, 16, 16);
    Path root = build("damaged-data", 7, records);
    flipByte(root.resolve("shard-00002").resolve("data"), 4096 + 100);
    try (ShardedStore store = ShardedStore.open(root)) {
      CorruptStoreException e = assertThrows(CorruptStoreException.class, store::verify);
      assertTrue(e.getMessage().contains("shard 2 (shard-00002) is damaged"), e.getMessage());
    }
  }

  @Test
  void aShardOtherThanTheManifestNamesIsRefused() throws IOException {
    Map<ByteBuffer, byte[]> records = TestRecords.variable(3_000, 14, 16, 16);
    Path root = build("swapped", 7, records);
    // Two intact shards trade places: each is a valid store, but not the one its entry describes.
    Files.move(root.resolve("shard-00001"), root.resolve("tmp"));
    Files.move(root.resolve("shard-00004"), root.resolve("shard-00001"));
    Files.move(root.resolve("tmp"), root.resolve("shard-00004"));
    CorruptStoreException e = assertThrows(CorruptStoreException.class, () -> ShardedStore.open(root));
    assertTrue(e.getMessage().contains("shard 1 of 7 (shard-00001)"), e.getMessage());
  }

  /**
   * A shard whose keys are hashed with another seed than the routing seed (what a rehash after a
   * 128-bit collision leaves): the lookup must hash again for it, not reuse the route's hash.
   */
  @Test
  void aShardBuiltWithAnotherSeedIsLookedUpWithItsOwn() throws IOException {
    long seed = 0x5EED2L;
    System.out.println("ShardedStoreTest rehashed shard, seed " + Long.toHexString(seed));
    Map<ByteBuffer, byte[]> records = TestRecords.variable(4_000, seed, 4, 24);
    Path root = build("rehashed", 4, records);
    ShardRouter router = ShardManifest.read(root.resolve(ShardManifest.FILE_NAME)).router();
    Path two = root.resolve("shard-00002");
    FileTrees.deleteTree(two);
    try (StoreBuilder builder = StoreBuilder.create(two).seed(seed)) {
      for (Map.Entry<ByteBuffer, byte[]> e : records.entrySet()) {
        if (router.shardOf(e.getKey().array()) == 2) {
          builder.put(e.getKey().array(), e.getValue());
        }
      }
      builder.build();
    }
    Path file = root.resolve(ShardManifest.FILE_NAME);
    ShardManifest manifest = ShardManifest.read(file);
    List<ShardManifest.Shard> shards = new ArrayList<>(manifest.shards());
    shards.set(2, ShardManifest.describe(two, "shard-00002"));
    assertEquals(seed, shards.get(2).storeSeed());
    Files.delete(file);
    new ShardManifest(manifest.seed(), manifest.keyMode(), manifest.createdMillis(), shards).write(file);
    try (ShardedStore store = ShardedStore.open(root)) {
      for (Map.Entry<ByteBuffer, byte[]> e : records.entrySet()) {
        assertArrayEquals(e.getValue(), store.get(e.getKey().array()));
        assertTrue(store.contains(e.getKey().array()));
      }
      SplittableRandom random = new SplittableRandom(seed);
      for (int i = 0; i < 2_000; i++) {
        byte[] absent = utf8("absent-" + random.nextLong());
        assertNull(store.get(absent));
        assertFalse(store.contains(absent));
      }
    }
  }

  @Test
  void aManifestWhoseCountsDoNotMatchItsShardsIsRefused() throws IOException {
    Map<ByteBuffer, byte[]> records = TestRecords.variable(3_000, 15, 16, 16);
    Path root = build("miscounted", 7, records);
    Path file = root.resolve(ShardManifest.FILE_NAME);
    ShardManifest manifest = ShardManifest.read(file);
    List<ShardManifest.Shard> shards = new ArrayList<>(manifest.shards());
    ShardManifest.Shard six = shards.get(6);
    shards.set(6, new ShardManifest.Shard(six.name(), six.records() + 1, six.bytes(), six.storeSeed(), six.metaChecksum()));
    Files.delete(file);
    new ShardManifest(manifest.seed(), manifest.keyMode(), manifest.createdMillis(), shards).write(file);
    CorruptStoreException e = assertThrows(CorruptStoreException.class, () -> ShardedStore.open(root));
    assertTrue(e.getMessage().contains("shard 6 of 7 (shard-00006) holds " + six.records() + " records, the manifest says "
        + (six.records() + 1)), e.getMessage());
  }

  @Test
  void useAfterCloseIsAClearError() throws IOException {
    Map<ByteBuffer, byte[]> records = TestRecords.variable(100, 16, 8, 8);
    ShardedStore store = ShardedStore.open(build("closed", 3, records));
    store.close();
    store.close();
    byte[] key = records.keySet().iterator().next().array();
    StoreClosedException e = assertThrows(StoreClosedException.class, () -> store.get(key));
    assertTrue(e.getMessage().contains("closed"), e.getMessage());
    assertThrows(StoreClosedException.class, () -> store.contains(key));
    assertThrows(StoreClosedException.class, () -> store.getAll(new byte[][] {key}, new byte[1][]));
    assertThrows(StoreClosedException.class, store::stats);
    assertThrows(StoreClosedException.class, store::verify);
    assertTrue(store.isClosed());
  }

  private static void flipByte(Path file, long position) throws IOException {
    try (var channel = java.nio.channels.FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      ByteBuffer b = ByteBuffer.allocate(1);
      channel.read(b, position);
      b.put(0, (byte) (b.get(0) ^ 0x5A)).rewind();
      channel.write(b, position);
    }
  }
}
