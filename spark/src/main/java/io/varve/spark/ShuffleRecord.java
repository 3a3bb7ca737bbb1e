package io.varve.spark;

import io.varve.core.store.RecordFormat;

/**
 * The one array a record travels in through the writer's shuffle, from {@link RowRouting} to
 * {@link ShardTask}: one array per record is cheaper to shuffle than a pair.
 *
 * <pre>
 * record = keyLength:varint key[keyLength] value     (the value: the rest of the array)
 * varint = unsigned LEB128: 7 bits a byte, low bits first, high bit set on all bytes but the last
 * </pre>
 *
 * The varints are a store record's ({@link RecordFormat}), written by its methods.
 *
 * Stateless.
 */
final class ShuffleRecord {
  /** The most bytes a varint of an int takes. */
  static final int MAX_VARINT_BYTES = 5;

  private ShuffleRecord() {}

  /** The record of {@code key} and {@code value}. */
  static byte[] of(byte[] key, byte[] value) {
    int header = RecordFormat.varintLength(key.length);
    byte[] record = new byte[header + key.length + value.length];
    RecordFormat.writeVarint(record, 0, key.length);
    System.arraycopy(key, 0, record, header, key.length);
    System.arraycopy(value, 0, record, header + key.length, value.length);
    return record;
  }

  /** Where the key of {@code record} starts. */
  static int keyOffset(byte[] record) {
    int offset = 0;
    while ((record[offset] & 0x80) != 0) {
      offset++;
    }
    return offset + 1;
  }

  /** The key's length in {@code record}, whose key starts at {@code keyOffset}. */
  static int keyLength(byte[] record, int keyOffset) {
    int length = 0;
    for (int i = 0, shift = 0; i < keyOffset; i++, shift += 7) {
      length |= (record[i] & 0x7F) << shift;
    }
    if (length < 0 || length > record.length - keyOffset) {
      throw new IllegalStateException("a shuffled record of " + record.length + " bytes names a key of " + length + " bytes");
    }
    return length;
  }
}
