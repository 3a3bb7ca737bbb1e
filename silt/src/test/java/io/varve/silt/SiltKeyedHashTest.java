package io.varve.silt;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.varve.core.hash.KeyHasher;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Keys crafted to share both buckets of a log store's table fill it after nine (two buckets of four
 * and the stash): each few such puts cost a freeze and a conversion. Under the public seed of
 * stores of manifest versions 1 and 2 anyone can craft them; a store of version 3 hashes with its
 * id, and the same keys spread.
 */
class SiltKeyedHashTest {
  @TempDir Path temp;

  /** 64 entries: a table of 16 buckets of four slots. */
  static final SiltOptions OPTIONS = SiltOptions.builder().logStoreEntries(64).maxLogBytes(64 << 10).backgroundMerges(false).build();
  static final int BUCKETS = 16;
  static final int KEYS = 30;

  /**
   * {@code count} keys whose two buckets, under {@code hasher}, are bucket 5 and the same other one,
   * from the layout in docs/FORMAT.md: tag {@code 0x8000 | lo >>> 49}, {@code b1 = hi & (buckets -
   * 1)}, {@code b2 = (b1 ^ ((tag & 0xFFFF) * 0x5BD1E995 >>> 7)) & (buckets - 1)}.
   */
  static List<byte[]> colliding(KeyHasher hasher, int count) {
    List<byte[]> keys = new ArrayList<>();
    long[] hash = new long[2];
    int other = -1;
    for (int i = 0; keys.size() < count; i++) {
      byte[] key = ("flood-" + i).getBytes(StandardCharsets.UTF_8);
      hasher.hash(key, hash);
      int tag = (int) (0x8000 | hash[1] >>> 49);
      int b1 = (int) (hash[0] & (BUCKETS - 1));
      int b2 = (b1 ^ ((tag & 0xFFFF) * 0x5BD1E995 >>> 7)) & (BUCKETS - 1);
      if (b1 == 5 && b2 != b1 && (other < 0 || b2 == other)) {
        other = b2;
        keys.add(key);
      }
    }
    return keys;
  }

  /** Log stores after putting {@code keys} into a new store of id {@code id}, version 3 or not. */
  private int logStoresAfter(Path dir, long id, boolean version3, List<byte[]> keys) throws IOException {
    try (SiltStore store = SiltStore.open(dir, OPTIONS, () -> id, version3)) {
      for (byte[] key : keys) {
        store.put(key, key);
      }
      for (byte[] key : keys) {
        assertArrayEquals(key, store.get(key));
      }
      assertEquals(version3 ? 3 : 2, SiltManifest.read(dir).version());
      return store.stats().logStores();
    }
  }

  /**
   * Thirty keys crafted against the public seed freeze a log store every nine keys in a store of
   * version 2 (four log stores), and go into one in a store of version 3. Before the seed was the
   * store's, the version-3 store froze as often.
   */
  @Test
  void keysCraftedForThePublicSeedNoLongerCollide() throws IOException {
    List<byte[]> keys = colliding(LogStore.FIXED_HASHER, KEYS);
    long id = 0x5117_4A54_0000_0001L;
    int fixed = logStoresAfter(temp.resolve("v2"), id, false, keys);
    int keyed = logStoresAfter(temp.resolve("v3"), id, true, keys);
    System.out.println("SiltKeyedHashTest: " + KEYS + " crafted keys: " + fixed + " log stores under the public seed, " + keyed + " under the store's");
    assertEquals(4, fixed, "the crafted keys do not collide under the public seed");
    assertEquals(1, keyed, "the crafted keys still collide in a store of version 3");
  }

  /** The hash is the store's for good: a store reopened (its logs replayed, its hash stores read) answers every key. */
  @Test
  void aStoreKeepsItsSeedAcrossReopens() throws IOException {
    Path dir = temp.resolve("store");
    long id = 0x5117_4A54_0000_0002L;
    List<byte[]> keys = colliding(LogStore.FIXED_HASHER, KEYS);
    try (SiltStore store = SiltStore.open(dir, OPTIONS, () -> id)) {
      for (int i = 0; i < keys.size(); i++) {
        store.put(keys.get(i), keys.get(i));
        if (i % 10 == 9) {
          store.freezeLog();
          store.convertNow();
        }
      }
      assertEquals(3, store.stats().hashStores());
    }
    assertEquals(KeyHasher.withSeed(id).seed(), SiltManifest.read(dir).hasher().seed());
    try (SiltStore store = SiltStore.open(dir, OPTIONS)) {
      for (byte[] key : keys) {
        assertArrayEquals(key, store.get(key), new String(key, StandardCharsets.UTF_8));
      }
      assertEquals(3, store.stats().hashStores());
    }
  }
}
