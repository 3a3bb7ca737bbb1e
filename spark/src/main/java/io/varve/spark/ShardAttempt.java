package io.varve.spark;

import io.varve.core.shard.ShardManifest;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;

/**
 * What a task reports to the driver: the shard it built, the attempt directory it copied it to, and
 * the shard's manifest entry. The driver publishes only the attempts Spark accepted (one per
 * partition, as {@code collect} returns them). An immutable value; thread-safe.
 *
 * <p>It travels to the driver as the bytes of {@link #toBytes}: Spark serializes task results with
 * the session's serializer, and the Kryo of Spark 4.0 cannot serialize a record ("can't get field
 * offset on a record class"), nor any unregistered class when {@code spark.kryo.registrationRequired}
 * is set; byte arrays pass every serializer.
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

  /** This attempt as bytes, for the trip to the driver ({@link #fromBytes}). */
  byte[] toBytes() {
    try {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      DataOutputStream out = new DataOutputStream(bytes);
      out.writeInt(shard);
      out.writeUTF(attemptPath);
      out.writeLong(copiedBytes);
      out.writeLong(records);
      out.writeLong(storeBytes);
      out.writeLong(storeSeed);
      out.writeInt(metaChecksum);
      out.flush();
      return bytes.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a ByteArrayOutputStream does not fail
    }
  }

  /** The attempt {@link #toBytes} wrote. */
  static ShardAttempt fromBytes(byte[] bytes) {
    try {
      DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes));
      return new ShardAttempt(in.readInt(), in.readUTF(), in.readLong(), in.readLong(), in.readLong(), in.readLong(), in.readInt());
    } catch (IOException e) {
      throw new UncheckedIOException("a task's report is not one ShardAttempt wrote", e);
    }
  }

  /** The manifest's entry for this shard, under its name in the manifest ({@code shard-XXXXX}, whatever its format). */
  ShardManifest.Shard entry() {
    return new ShardManifest.Shard(ShardManifest.shardName(shard), records, storeBytes, storeSeed, metaChecksum);
  }
}
