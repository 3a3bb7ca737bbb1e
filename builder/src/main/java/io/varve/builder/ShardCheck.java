package io.varve.builder;

import io.varve.core.shard.ShardRouter;

/**
 * The check that every key of a shard's build routes to that shard, made on the hash the build
 * computes anyway (the router's hash is the store's, under the same seed), so that a task of a
 * distributed job hashes each key once. Immutable.
 */
record ShardCheck(int shard, int shardCount) {
  ShardCheck {
    ShardRouter.checkShardCount(shardCount);
    java.util.Objects.checkIndex(shard, shardCount);
  }

  /**
   * Checks the key {@code key[offset, offset + length)}, whose hash has low word {@code lo}.
   *
   * @throws IllegalArgumentException naming the key and its shard when it routes elsewhere
   */
  void check(long lo, byte[] key, int offset, int length) {
    int routed = ShardRouter.shardOfHash(lo, shardCount);
    if (routed != shard) {
      byte[] shown = java.util.Arrays.copyOfRange(key, offset, offset + length);
      throw new IllegalArgumentException("key " + DuplicateKeyException.describe(shown) + " routes to shard " + routed
          + " of " + shardCount + ", not " + shard + ": partition the records with ShardRouter.shardOf");
    }
  }
}
