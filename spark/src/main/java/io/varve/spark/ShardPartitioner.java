package io.varve.spark;

import io.varve.core.shard.ShardRouter;
import org.apache.spark.Partitioner;

/**
 * The partitioner whose partition {@code i} holds shard {@code i}: its keys are shard numbers
 * (from {@link ShardRouter#shardOf}), passed through unchanged. Spark's own {@code
 * repartition(n, col)} hashes with Murmur3 and seed 42, which a serving host would then have to
 * reproduce; routing by the store's own hash needs only the manifest. Immutable; thread-safe.
 */
public final class ShardPartitioner extends Partitioner {
  private static final long serialVersionUID = 1L;

  private final int shards;

  /**
   * The partitioner of {@code shards} shards.
   *
   * @throws IllegalArgumentException unless {@code 1 <= shards <= 65536}
   */
  public ShardPartitioner(int shards) {
    ShardRouter.checkShardCount(shards);
    this.shards = shards;
  }

  @Override
  public int numPartitions() {
    return shards;
  }

  /**
   * The partition of shard {@code key}: the shard itself.
   *
   * @throws IllegalArgumentException when {@code key} is not an Integer in {@code [0, shards)}
   */
  @Override
  public int getPartition(Object key) {
    if (key instanceof Integer shard && shard >= 0 && shard < shards) {
      return shard;
    }
    throw new IllegalArgumentException("not a shard of " + shards + ": " + key);
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof ShardPartitioner that && that.shards == shards;
  }

  @Override
  public int hashCode() {
    return shards;
  }

  @Override
  public String toString() {
    return "ShardPartitioner[" + shards + "]";
  }
}
