package io.varve.spark;

import io.varve.core.artifact.StoreArtifact;
import io.varve.core.shard.ShardManifest;

/**
 * How {@link VarveSpark#write} lays out each shard in the output ({@link
 * VarveWriteOptions.Builder#shardFormat}). Either way the manifest is the same (it names shard
 * {@code i} {@code shard-XXXXX} and gives its store's bytes) and {@code ShardedStore.open} reads
 * both. Immutable; thread-safe.
 */
public enum ShardFormat {
  /** Each shard a store directory, {@code shard-00000/}, holding the store's files (the default). */
  DIRECTORY,

  /**
   * Each shard a one-file artifact, {@code shard-00000.varve}: a ZIP of the store's files, stored
   * uncompressed and aligned to 4 KiB, which a serving host maps in place ({@link StoreArtifact}).
   * One file per shard to copy, download and check; the root is what {@code
   * ShardedStoreBuilder.shardsAsArtifacts()} writes in one process.
   */
  ARTIFACT;

  /** The name of shard {@code shard} in the output: {@code shard-00000} or {@code shard-00000.varve}. */
  String publishedName(int shard) {
    String name = ShardManifest.shardName(shard);
    return this == ARTIFACT ? name + StoreArtifact.SUFFIX : name;
  }
}
