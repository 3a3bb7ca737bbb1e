package io.varve.spark;

import io.varve.core.shard.ShardManifest;
import java.io.Serializable;

/**
 * What a task reports to the driver: the shard it built, the attempt directory it copied it to, and
 * the shard's manifest entry. The driver publishes only the attempts Spark accepted (one per
 * partition, as {@code collect} returns them). An immutable value; thread-safe.
 *
 * @param shard the shard (and partition) number
 * @param attemptPath the attempt directory, {@code <output>/_temporary/<job>/shard-XXXXX.attempt-<taskAttemptId>}
 * @param copiedBytes the length of the files copied to it: the store's files, or its one artifact
 * @param records the shard's record count
 * @param storeBytes the length of the store's files (the manifest's size of the shard, whatever its format)
 * @param storeSeed the seed its meta file records
 * @param metaChecksum the CRC32C in its meta file's footer
 */
record ShardAttempt(int shard, String attemptPath, long copiedBytes, long records, long storeBytes, long storeSeed,
    int metaChecksum) implements Serializable {

  /** The attempt of {@code entry}, {@code copiedBytes} of files copied to {@code attemptPath}. */
  static ShardAttempt of(int shard, String attemptPath, long copiedBytes, ShardManifest.Shard entry) {
    return new ShardAttempt(shard, attemptPath, copiedBytes, entry.records(), entry.bytes(), entry.storeSeed(),
        entry.metaChecksum());
  }

  /** The manifest's entry for this shard, under its name in the manifest ({@code shard-XXXXX}, whatever its format). */
  ShardManifest.Shard entry() {
    return new ShardManifest.Shard(ShardManifest.shardName(shard), records, storeBytes, storeSeed, metaChecksum);
  }
}
