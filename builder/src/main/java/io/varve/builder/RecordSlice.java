package io.varve.builder;

import io.varve.core.store.RecordFormat;
import java.util.Arrays;

/**
 * A view of one record encoded as {@link RecordFormat}'s {@code Record} (header, key, value)
 * inside a byte array, decoded once. A mutable flyweight: it is repointed at each record and is
 * valid only until the owner of the array moves on. Not thread-safe.
 */
final class RecordSlice {
  byte[] bytes;
  int offset;
  int headerLength;
  int keyLength;
  int valueLength;

  /** Points this slice at the record starting at {@code bytes[offset]}. */
  RecordSlice decode(byte[] bytes, int offset) {
    this.bytes = bytes;
    this.offset = offset;
    long key = RecordFormat.decodeVarint(bytes, offset, bytes.length);
    int keyBytes = (int) (key >>> 32);
    long value = RecordFormat.decodeVarint(bytes, offset + keyBytes, bytes.length);
    this.headerLength = keyBytes + (int) (value >>> 32);
    this.keyLength = (int) key;
    this.valueLength = (int) value;
    return this;
  }

  int keyOffset() {
    return offset + headerLength;
  }

  int valueOffset() {
    return offset + headerLength + keyLength;
  }

  /** Bytes of the whole record: header, key and value. */
  int length() {
    return headerLength + keyLength + valueLength;
  }

  boolean sameKey(RecordSlice other) {
    return Arrays.equals(bytes, keyOffset(), keyOffset() + keyLength, other.bytes, other.keyOffset(), other.keyOffset() + other.keyLength);
  }

  byte[] key() {
    return Arrays.copyOfRange(bytes, keyOffset(), keyOffset() + keyLength);
  }

  /** Copies the record into {@code target} (grown when needed) and points {@code target} at it. */
  void copyTo(RecordSlice target) {
    int length = length();
    if (target.bytes == null || target.bytes.length < length) {
      target.bytes = new byte[Math.max(length, target.bytes == null ? 256 : 2 * target.bytes.length)];
    }
    System.arraycopy(bytes, offset, target.bytes, 0, length);
    target.offset = 0;
    target.headerLength = headerLength;
    target.keyLength = keyLength;
    target.valueLength = valueLength;
  }
}
