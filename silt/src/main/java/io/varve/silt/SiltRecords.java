package io.varve.silt;

import io.varve.core.format.CorruptStoreException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * Reading the records that logs and hash stores share ({@code Record} in {@link SiltLog}'s
 * grammar): every record is checked against its Check ({@link SiltCheck}: the store's) before a byte of it is served. Stateless;
 * thread-safe.
 */
final class SiltRecords {
  static final int HEADER_BYTES = 8;
  static final byte PUT = 1;
  static final byte DELETE = 2;
  /** What a record holds for a key that it deletes. */
  static final byte[] DELETED = new byte[0];
  /** Bytes read at once for a lookup: most records fit. */
  static final int READ_GUESS = 4096;
  private static final ThreadLocal<ByteBuffer> READS = ThreadLocal.withInitial(() -> ByteBuffer.allocate(READ_GUESS));

  private SiltRecords() {}

  record Parsed(byte[] key, byte[] value) {}

  /** The key and value (null for a delete) of the body {@code bytes[from, from + length)}, or null if malformed. */
  static Parsed parse(byte[] bytes, int from, int length) {
    int end = from + length;
    byte kind = bytes[from];
    long keyLength = getVarint(bytes, from + 1, end);
    if (keyLength < 0) {
      return null;
    }
    int keyStart = (int) (keyLength >>> 32);
    int keyBytes = (int) keyLength;
    if (keyStart + (long) keyBytes > end) {
      return null;
    }
    byte[] key = Arrays.copyOfRange(bytes, keyStart, keyStart + keyBytes);
    if (kind == DELETE) {
      return keyStart + keyBytes == end ? new Parsed(key, null) : null;
    }
    return kind == PUT ? new Parsed(key, Arrays.copyOfRange(bytes, keyStart + keyBytes, end)) : null;
  }

  /**
   * What the record at {@code offset} of {@code channel} (ending by {@code limit}) holds for {@code
   * key}: its value, {@link #DELETED}, or null when it holds another key.
   *
   * @throws CorruptStoreException when the record is damaged
   */
  static byte[] valueIfKey(FileAccess channel, long offset, long limit, byte[] key, Path file, SiltCheck check) throws IOException {
    ByteBuffer read = READS.get();
    read.clear();
    if (limit - offset < read.capacity()) {
      read.limit((int) Math.max(0, limit - offset));
    }
    channel.readFully(read, offset);
    byte[] bytes = read.array();
    int available = read.position();
    int length = checkedLength(bytes, 0, available, offset, file);
    if (HEADER_BYTES + length <= available) {
      return valueIfKey(bytes, 0, length, key, offset, file, check);
    }
    byte[] record = read(channel, offset, limit, file, check);
    return valueIfKey(record, 0, length, key, offset, file, check);
  }

  /**
   * {@link #valueIfKey(FileAccess, long, long, byte[], Path, SiltCheck)} of a record whose bytes are {@code
   * bytes[at, at + 8 + length)}, its length already read.
   */
  static byte[] valueIfKey(byte[] bytes, int at, int length, byte[] key, long offset, Path file, SiltCheck check) {
    int bodyStart = at + HEADER_BYTES;
    int bodyEnd = bodyStart + length;
    if (check.of(bytes, bodyStart, length) != getInt(bytes, at + 4)) {
      throw recordError(file, offset, "is damaged");
    }
    long keyLength = getVarint(bytes, bodyStart + 1, bodyEnd);
    int keyStart = (int) (keyLength >>> 32);
    if (keyLength < 0 || keyStart + (long) (int) keyLength > bodyEnd) {
      throw recordError(file, offset, "is malformed");
    }
    if ((int) keyLength != key.length || !Arrays.equals(bytes, keyStart, keyStart + key.length, key, 0, key.length)) {
      return null;
    }
    byte kind = bytes[bodyStart];
    if (kind == DELETE) {
      if (keyStart + key.length != bodyEnd) {
        throw new CorruptStoreException(file + ": the delete at " + offset + " is malformed");
      }
      return DELETED;
    }
    if (kind != PUT) {
      throw recordError(file, offset, "has kind " + kind);
    }
    return Arrays.copyOfRange(bytes, keyStart + key.length, bodyEnd);
  }

  /** The body length of the record whose header is at {@code bytes[at]}, checked to be plausible. */
  static int checkedLength(byte[] bytes, int at, int available, long offset, Path file) {
    if (available - at < HEADER_BYTES) {
      throw recordError(file, offset, "is cut short");
    }
    int length = getInt(bytes, at);
    if (length < 2) {
      throw recordError(file, offset, "has a bad length " + length);
    }
    return length;
  }

  /** The whole checked record at {@code offset}, header included. */
  static byte[] read(FileAccess channel, long offset, long limit, Path file, SiltCheck check) throws IOException {
    ByteBuffer head = ByteBuffer.allocate(HEADER_BYTES);
    channel.readFully(head, offset);
    int length = checkedLength(head.array(), 0, head.position(), offset, file);
    long end = Math.min(limit, channel.size());
    if (length > end - offset - HEADER_BYTES) {
      throw recordError(file, offset, "runs past its end");
    }
    byte[] record = new byte[HEADER_BYTES + length];
    ByteBuffer b = ByteBuffer.wrap(record);
    channel.readFully(b, offset);
    if (b.hasRemaining()) {
      throw recordError(file, offset, "is cut short");
    }
    parseChecked(record, 0, length, offset, file, check);
    return record;
  }

  /** The key and value of the record {@code bytes[at, at + 8 + length)}, its Check and grammar checked. */
  static Parsed parseChecked(byte[] bytes, int at, int length, long offset, Path file, SiltCheck check) {
    if (check.of(bytes, at + HEADER_BYTES, length) != getInt(bytes, at + 4)) {
      throw recordError(file, offset, "is damaged");
    }
    Parsed parsed = parse(bytes, at + HEADER_BYTES, length);
    if (parsed == null) {
      throw recordError(file, offset, "is malformed");
    }
    return parsed;
  }

  /**
   * The error for the record at {@code offset}: built only on failure, since the checks run on
   * every record a get or a replay reads.
   */
  private static CorruptStoreException recordError(Path file, long offset, String what) {
    return new CorruptStoreException(file + ": the record at " + offset + " " + what);
  }

  static int getInt(byte[] b, int at) {
    return (b[at] & 0xFF) << 24 | (b[at + 1] & 0xFF) << 16 | (b[at + 2] & 0xFF) << 8 | b[at + 3] & 0xFF;
  }

  static int varintBytes(int value) {
    return value < 1 << 7 ? 1 : value < 1 << 14 ? 2 : value < 1 << 21 ? 3 : value < 1 << 28 ? 4 : 5;
  }

  static int putVarint(byte[] b, int at, int value) {
    while ((value & ~0x7F) != 0) {
      b[at++] = (byte) (value & 0x7F | 0x80);
      value >>>= 7;
    }
    b[at++] = (byte) value;
    return at;
  }

  /** The varint at {@code at}: its value in the low 32 bits, the offset after it in the high; -1 if malformed. */
  static long getVarint(byte[] b, int at, int end) {
    long value = 0;
    for (int shift = 0; shift < 35; shift += 7) {
      if (at >= end) {
        return -1;
      }
      int next = b[at++];
      value |= (long) (next & 0x7F) << shift;
      if (next >= 0) {
        return value > Integer.MAX_VALUE ? -1 : (long) at << 32 | value;
      }
    }
    return -1;
  }

}
