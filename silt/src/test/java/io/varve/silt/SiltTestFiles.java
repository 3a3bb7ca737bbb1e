package io.varve.silt;

import io.varve.core.format.Envelope;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The durability tests' own reading of SILT files (written from the layouts in the Javadoc of
 * {@link SiltLog} and {@link SiltManifest}, not with their code), and directory copies.
 */
final class SiltTestFiles {
  private SiltTestFiles() {}

  /** The store id of the stores these tests make ({@link #open}), so that they can reseal records. */
  static final long TEST_ID = 0x7E57_5117_1D00_0001L;

  /** Opens the store in {@code dir}, a new one with the id {@link #TEST_ID}. */
  static SiltStore open(Path dir, SiltOptions options) throws java.io.IOException {
    return SiltStore.open(dir, options, () -> TEST_ID);
  }

  /**
   * Rewrites the sync mark of the store in {@code dir} (closed) to say that its newest log was
   * synced to {@code bytes}: the mark a crash leaves when the store was killed after that sync,
   * whatever its log holds after it.
   */
  static void markSynced(Path dir, long bytes) throws java.io.IOException {
    SiltManifest manifest = SiltManifest.read(dir);
    java.nio.file.Files.delete(dir.resolve(SiltSyncMark.FILE));
    SiltSyncMark.create(dir, manifest.check(), manifest.logNumbers().get(manifest.logNumbers().size() - 1), bytes).close();
  }

  /**
   * The check of {@code bytes[from, from + length)} in {@code file} (a log or hash store): CRC32C,
   * preceded by {@link #TEST_ID} when the file is of version 2.
   */
  static int check(byte[] file, int from, int length) {
    return check(file, from, length, TEST_ID);
  }

  /** {@link #check(byte[], int, int)} in a store of id {@code id}. */
  static int check(byte[] file, int from, int length, long id) {
    java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
    if (file[4] == 2) {
      crc.update(ByteBuffer.allocate(8).putLong(id).array());
    }
    crc.update(file, from, length);
    return (int) crc.getValue();
  }

  /** One record of a log: where it starts, its body's length, kind, key and value (null for a delete). */
  record Rec(int offset, int length, byte kind, byte[] key, byte[] value) {
    /** The offset after the record. */
    int end() {
      return offset + SiltLog.RECORD_HEADER_BYTES + length;
    }

    /** The offset of the record's body (its kind byte). */
    int body() {
      return offset + SiltLog.RECORD_HEADER_BYTES;
    }
  }

  /** The records of a well-formed log, in order; throws if the bytes are not one. */
  static List<Rec> records(byte[] log) {
    return records(log, TEST_ID);
  }

  /** {@link #records(byte[])} of a log of the store of id {@code id}. */
  static List<Rec> records(byte[] log, long id) {
    ByteBuffer b = ByteBuffer.wrap(log);
    if (b.getInt(0) != SiltLog.MAGIC) {
      throw new IllegalArgumentException("not a SILT log");
    }
    List<Rec> records = new ArrayList<>();
    int at = SiltLog.HEADER_BYTES;
    while (at < log.length) {
      int length = b.getInt(at);
      int crc = b.getInt(at + 4);
      int body = at + SiltLog.RECORD_HEADER_BYTES;
      if (length < 2 || body + length > log.length || check(log, body, length, id) != crc) {
        throw new IllegalArgumentException("a bad record at " + at);
      }
      int keyLength = 0;
      int p = body + 1;
      for (int shift = 0; ; shift += 7) {
        int next = log[p++];
        keyLength |= (next & 0x7F) << shift;
        if (next >= 0) {
          break;
        }
      }
      byte kind = log[body];
      byte[] key = Arrays.copyOfRange(log, p, p + keyLength);
      byte[] value = kind == SiltLog.PUT ? Arrays.copyOfRange(log, p + keyLength, body + length) : null;
      records.add(new Rec(at, length, kind, key, value));
      at = body + length;
    }
    return records;
  }

  static int getInt(byte[] bytes, int at) {
    return ByteBuffer.wrap(bytes).getInt(at);
  }

  static void putInt(byte[] bytes, int at, int value) {
    ByteBuffer.wrap(bytes).putInt(at, value);
  }

  static void putLong(byte[] bytes, int at, long value) {
    ByteBuffer.wrap(bytes).putLong(at, value);
  }

  /** Recomputes the checksum of {@code record}'s body (whose length field says how long it is). */
  static void resealRecord(byte[] log, int offset) {
    int length = getInt(log, offset);
    putInt(log, offset + 4, check(log, offset + SiltLog.RECORD_HEADER_BYTES, length));
  }

  /** Recomputes the checksum of a log's header. */
  static void resealHeader(byte[] log) {
    putInt(log, 20, check(log, 0, 20));
  }

  /** Recomputes a manifest's footer checksum. */
  static void resealManifest(byte[] manifest) {
    putInt(manifest, manifest.length - 4, Envelope.crc32c(manifest, 0, manifest.length - 4));
  }

  /** Path of the log {@code number} in {@code dir}. */
  static Path log(Path dir, long number) {
    return dir.resolve(SiltManifest.logName(number));
  }
}
