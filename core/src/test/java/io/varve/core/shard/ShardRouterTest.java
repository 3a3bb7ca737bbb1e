package io.varve.core.shard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.core.hash.KeyHasher;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The routing function: pinned on known keys (a change would send every serving host's lookups to
 * the wrong shard), even over any shard count, and independent of the hash bits the indexes place
 * keys by.
 */
class ShardRouterTest {
  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void routesArePinned() {
    // lo of the empty key under seed 0 is 0x99aa06d3014798d8 (docs/FORMAT.md): its top 32 bits,
    // 0x99aa06d3, times the shard count, over 2^32.
    assertEquals(0, ShardRouter.of(0, 1).shardOf(new byte[0]));
    assertEquals(4, ShardRouter.of(0, 7).shardOf(new byte[0]));
    assertEquals(38, ShardRouter.of(0, 64).shardOf(new byte[0]));
    assertEquals(0x99aa, ShardRouter.of(0, 65_536).shardOf(new byte[0]));
    assertEquals(PINNED_VARVE_7, ShardRouter.of(0x601DL, 7).shardOf(utf8("varve")));
    assertEquals(PINNED_VARVE_1000, ShardRouter.of(0x601DL, 1000).shardOf(utf8("varve")));
  }

  private static final int PINNED_VARVE_7 = 4;
  private static final int PINNED_VARVE_1000 = 684;

  @Test
  void routingIsTheHashsLoHighBitsReduced() {
    long seed = 0x5EEDL;
    System.out.println("ShardRouterTest seed " + seed);
    SplittableRandom random = new SplittableRandom(seed);
    KeyHasher hasher = KeyHasher.withSeed(seed);
    long[] hash = new long[2];
    for (int shards : new int[] {1, 2, 7, 64, 1000, 65_536}) {
      ShardRouter router = ShardRouter.of(seed, shards);
      for (int i = 0; i < 2_000; i++) {
        byte[] key = new byte[random.nextInt(20)];
        random.nextBytes(key);
        hasher.hash(key, hash);
        int shard = router.shardOf(key);
        assertTrue(shard >= 0 && shard < shards);
        assertEquals((int) (((hash[1] >>> 32) * shards) >>> 32), shard);
        byte[] padded = new byte[key.length + 3];
        System.arraycopy(key, 0, padded, 2, key.length);
        assertEquals(shard, router.shardOf(padded, 2, key.length));
      }
    }
    assertEquals(65_535, ShardRouter.shardOfHash(-1L, 65_536));
    assertEquals(6, ShardRouter.shardOfHash(-1L, 7));
    assertEquals(0, ShardRouter.shardOfHash(0xFFFF_FFFFL, 7));
  }

  @Test
  void shardCountsOutsideOneTo65536AreRefused() {
    assertThrows(IllegalArgumentException.class, () -> ShardRouter.of(0, 0));
    assertThrows(IllegalArgumentException.class, () -> ShardRouter.of(0, -1));
    assertThrows(IllegalArgumentException.class, () -> ShardRouter.of(0, 65_537));
  }

  /**
   * 7 shards: each gets a seventh of the keys, and within each shard the keys still spread evenly
   * over the top 8 bits of hi (what the indexes and the sort place by), as if not routed at all.
   */
  @Test
  void everyShardSpreadsOverTheIndexBits() {
    int shards = 7;
    int keys = 700_000;
    ShardRouter router = ShardRouter.of(0, shards);
    KeyHasher hasher = KeyHasher.withSeed(0);
    long[] hash = new long[2];
    int[] perShard = new int[shards];
    int[][] prefixes = new int[shards][256];
    for (int i = 0; i < keys; i++) {
      byte[] key = utf8("user:" + i);
      int shard = router.shardOf(key);
      hasher.hash(key, hash);
      perShard[shard]++;
      prefixes[shard][(int) (hash[0] >>> 56)]++;
    }
    for (int s = 0; s < shards; s++) {
      assertEquals(keys / shards, perShard[s], 4 * Math.sqrt(keys / shards), "keys of shard " + s);
      double expected = perShard[s] / 256.0;
      double chiSquare = 0;
      for (int count : prefixes[s]) {
        chiSquare += (count - expected) * (count - expected) / expected;
      }
      // 255 degrees of freedom: the 99.99th percentile is about 360.
      assertTrue(chiSquare < 360, "shard " + s + ": hi's top byte is not evenly spread (chi-square " + chiSquare + ")");
    }
  }
}
