package io.varve.reader;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.builder.StoreBuilder;
import io.varve.builder.StoreMerger;
import io.varve.builder.StoreReindexer;
import io.varve.core.ect.EctParameters;
import io.varve.core.hash.KeyHasher;
import io.varve.core.index.IndexParameters;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One shard of a job that routes keys by the top 8 bits of the store's own hash (what a Spark job
 * naturally does): every hash shares its prefix. Before issue 19's fix the default blocked index
 * could not be built ("more than 65535 keys in one group of blocks"), and an ECT index answered
 * 90 times slower. Built, merged into, re-indexed and read back against a {@link HashMap}.
 */
class RoutedShardTest {
  private static final int SHARD_BITS = 8;
  private static final long SHARD = 0x5A;
  private static final int KEYS = 70_000;

  @TempDir static Path temp;
  private static final Map<ByteBuffer, byte[]> records = new HashMap<>();
  private static final List<byte[]> otherShardKeys = new ArrayList<>();
  private static final List<byte[]> absentShardKeys = new ArrayList<>();
  private static long next;

  /** The next key, in this shard or not, numbered on from the last. */
  private static byte[] nextKey(boolean inShard) {
    KeyHasher hasher = KeyHasher.withSeed(0);
    long[] hash = new long[2];
    while (true) {
      byte[] key = ("user:" + next++).getBytes(StandardCharsets.UTF_8);
      hasher.hash(key, hash);
      if ((hash[0] >>> (64 - SHARD_BITS) == SHARD) == inShard) {
        return key;
      }
    }
  }

  private static byte[] valueOf(byte[] key, int version) {
    return (new String(key, StandardCharsets.UTF_8) + "/v" + version).getBytes(StandardCharsets.UTF_8);
  }

  @BeforeAll
  static void chooseKeys() {
    while (records.size() < KEYS) {
      byte[] key = nextKey(true);
      records.put(ByteBuffer.wrap(key), valueOf(key, 1));
    }
    for (int i = 0; i < 1_000; i++) {
      otherShardKeys.add(nextKey(false));
      absentShardKeys.add(nextKey(true));
    }
    System.out.println("RoutedShardTest: " + KEYS + " keys whose hash starts with 0x" + Long.toHexString(SHARD) + " (" + SHARD_BITS + " bits)");
  }

  private static Path build(String name, IndexParameters parameters) throws IOException {
    Path dir = temp.resolve(name);
    try (StoreBuilder builder = StoreBuilder.create(dir).indexParameters(parameters)) {
      for (Map.Entry<ByteBuffer, byte[]> e : records.entrySet()) {
        builder.put(e.getKey().array(), e.getValue());
      }
      builder.build();
    }
    return dir;
  }

  private static void check(Path dir, Map<ByteBuffer, byte[]> expected) throws IOException {
    try (Store store = Store.open(dir)) {
      assertEquals(expected.size(), store.size());
      byte[][] keys = new byte[expected.size()][];
      int i = 0;
      for (Map.Entry<ByteBuffer, byte[]> e : expected.entrySet()) {
        keys[i++] = e.getKey().array();
        assertArrayEquals(e.getValue(), store.get(e.getKey().array()));
      }
      byte[][] values = new byte[keys.length][];
      store.getAll(keys, values);
      for (i = 0; i < keys.length; i++) {
        assertArrayEquals(expected.get(ByteBuffer.wrap(keys[i])), values[i], "getAll " + i);
      }
      for (byte[] key : otherShardKeys) {
        assertNull(store.get(key), "a key of another shard");
      }
      for (byte[] key : absentShardKeys) {
        if (!expected.containsKey(ByteBuffer.wrap(key))) {
          assertNull(store.get(key), "an absent key of this shard");
        }
      }
      assertTrue(store.stats().indexBitsPerKey() < 5, store.stats().toJson());
      store.verify();
    }
  }

  @Test
  void theDefaultBlockedIndexBuildsAndAnswers() throws IOException {
    Path dir = build("blocked", StoreBuilder.DEFAULT_INDEX);
    check(dir, records);
    try (Store store = Store.open(dir)) {
      assertTrue(store.meta().hashRange().shift() >= SHARD_BITS, store.meta().hashRange().toString());
    }
  }

  @Test
  void anEctIndexBuildsAndAnswers() throws IOException {
    check(build("ect", StoreBuilder.DEFAULT_ECT_INDEX), records);
  }

  @Test
  void mergingMoreOfTheShardKeepsItSpread() throws IOException {
    Path base = build("merge-base", StoreBuilder.DEFAULT_INDEX);
    Map<ByteBuffer, byte[]> expected = new HashMap<>(records);
    Path merged = temp.resolve("merged");
    try (StoreMerger merger = StoreMerger.create(merged).base(base)) {
      int i = 0;
      for (ByteBuffer key : records.keySet()) {
        if (i % 10 == 0) {
          merger.delete(key.array());
          expected.remove(key);
        } else if (i % 10 == 1) {
          merger.put(key.array(), valueOf(key.array(), 2));
          expected.put(key, valueOf(key.array(), 2));
        }
        i++;
      }
      for (int added = 0; added < 10_000; added++) {
        byte[] key = nextKey(true);
        merger.put(key, valueOf(key, 3));
        expected.put(ByteBuffer.wrap(key), valueOf(key, 3));
      }
      merger.merge();
    }
    check(merged, expected);
  }

  @Test
  void reindexingKeepsTheRange() throws IOException {
    Path dense = build("reindex-base", StoreBuilder.DEFAULT_INDEX);
    Path ect = temp.resolve("reindexed-ect");
    StoreReindexer.reindex(dense, ect, StoreReindexer.DENSE, new EctParameters(64, 64, 3));
    check(ect, records);
    Path sparse = temp.resolve("reindexed-sparse");
    StoreReindexer.reindex(dense, sparse, 4096, null);
    check(sparse, records);
  }
}
