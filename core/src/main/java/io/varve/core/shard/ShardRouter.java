package io.varve.core.shard;

import io.varve.core.hash.KeyHasher;

/**
 * Which shard of a sharded store holds a key: a function of the key's own 128-bit hash (the seeded
 * XXH3-128 of {@link KeyHasher}), so that a serving host routes a key with no table, and a batch
 * job, a reader and any other language agree on it from the seed and the shard count alone.
 *
 * <pre>
 * shard(key) = floor((lo &gt;&gt;&gt; 32) * shardCount / 2^32)        (routing scheme 1; lo: the hash's low word)
 * </pre>
 *
 * <p>Why these bits: both indexes place a key by the leading bits of {@code hi} (the blocked
 * index's sub-range, the ECT index's bucket and trie), the builder's external sort partitions by
 * them, and a store's {@code HashRange} is taken over them; key signatures are the low bits of
 * {@code lo}. The top 32 bits of {@code lo} are what none of them looks at: within one shard the
 * keys still spread over all of {@code hi}, so every shard is an ordinary store whose index sees
 * evenly spread hashes (routing by the top bits of {@code hi} crowded a shard's keys into a few
 * blocks: "more than 65535 keys in one group of blocks"). An index reaches {@code lo} only when
 * two keys share all 64 bits of {@code hi}'s place, about once per 2^64 / n^2 keys. A signature
 * of more than {@code 64 - log2(shardCount)} bits overlaps the routing bits, which every key of a
 * shard shares: its false-positive rate is then {@code 2^-(64 - ceil(log2 shardCount))}, not
 * {@code 2^-k}.
 *
 * <p>The multiply-shift range reduction (Lemire) takes any shard count from 1 to {@value
 * #MAX_SHARDS}, not only powers of two, with shards differing in share by at most {@code
 * shardCount / 2^32}.
 *
 * <p>Immutable and thread-safe; routing allocates nothing.
 */
public final class ShardRouter {
  /** The largest shard count. */
  public static final int MAX_SHARDS = 1 << 16;

  /** The id of the routing above in a manifest: the top 32 bits of {@code lo}, multiply-shift. */
  public static final int SCHEME_LO_HIGH_32 = 1;

  private static final ThreadLocal<long[]> HASH = ThreadLocal.withInitial(() -> new long[2]);

  private final KeyHasher hasher;
  private final int shardCount;

  private ShardRouter(long seed, int shardCount) {
    checkShardCount(shardCount);
    this.hasher = KeyHasher.withSeed(seed);
    this.shardCount = shardCount;
  }

  /**
   * The router of {@code shardCount} shards whose keys are hashed with {@code seed}.
   *
   * @throws IllegalArgumentException unless {@code 1 <= shardCount <= 65536}
   */
  public static ShardRouter of(long seed, int shardCount) {
    return new ShardRouter(seed, shardCount);
  }

  /**
   * Checks a shard count.
   *
   * @throws IllegalArgumentException unless {@code 1 <= shardCount <= 65536}
   */
  public static void checkShardCount(int shardCount) {
    if (shardCount < 1 || shardCount > MAX_SHARDS) {
      throw new IllegalArgumentException("a sharded store has 1 to " + MAX_SHARDS + " shards: " + shardCount);
    }
  }

  /** The shard, in {@code [0, shardCount)}, of a key whose hash has low word {@code lo}. */
  public static int shardOfHash(long lo, int shardCount) {
    return (int) (((lo >>> 32) * shardCount) >>> 32);
  }

  /** The seed keys are hashed with. */
  public long seed() {
    return hasher.seed();
  }

  /** The number of shards. */
  public int shardCount() {
    return shardCount;
  }

  /** The shard of {@code key}. */
  public int shardOf(byte[] key) {
    return shardOf(key, 0, key.length);
  }

  /** The shard of the key {@code key[offset, offset + length)}. */
  public int shardOf(byte[] key, int offset, int length) {
    if (shardCount == 1) {
      return 0;
    }
    long[] hash = HASH.get();
    hasher.hash(key, offset, length, hash);
    return shardOfHash(hash[1], shardCount);
  }

  @Override
  public String toString() {
    return "ShardRouter[" + shardCount + " shards, seed " + seed() + "]";
  }
}
