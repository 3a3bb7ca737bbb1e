package io.varve.core.store;

import io.varve.core.format.CorruptStoreException;

/**
 * The byte layout of records in the {@link StoreFile#DATA data} file's payload, shared by the
 * builder that writes them and the readers that decode them.
 *
 * <pre>
 * Payload         := (Padding Record)^recordCount        (in hash order of the keys)
 * Record          := keyLength:varint valueLength:varint key:byte[keyLength] value:byte[valueLength] Check?
 * varint          := LEB128: 7 bits per byte, least significant group first, high bit = "more";
 *                    1 to 5 bytes, value at most {@link #MAX_LENGTH}
 * Check           := the record's {@link RecordChecksum} (data format version 2; none in version 1)
 * Padding         := zero bytes: none, or (with page size P &gt; 0) as many as keep a record of at
 *                    most P bytes (its Check included) from crossing a multiple of P
 *
 * Fixed-size mode (meta keyLength = K &gt;= 0 and valueLength = V &gt;= 0, R = K + V, + 4 with Check):
 * Payload         := (key:byte[K] value:byte[V] Check? Padding)^recordCount   (no lengths)
 *                    record i at i * R, or with page size P and 0 &lt; R &lt;= P at
 *                    (i / (P / R)) * P + (i % (P / R)) * R: P / R records per page
 * </pre>
 *
 * The payload starts at a page boundary of its file, so a record of at most P bytes lies in one
 * page and costs one read when the page is not cached. Record {@code i} starts at offset {@code
 * offsets.get(i)} of the payload (the {@link StoreFile#OFFSETS offsets} file), or where {@link
 * #fixedRecordOffset} says in fixed-size mode, which needs no offsets file. The payload ends with
 * the last record. Stateless and thread-safe.
 */
public final class RecordFormat {
  /** The largest key or value length: the largest Java array. */
  public static final int MAX_LENGTH = Integer.MAX_VALUE - 8;

  /** The most bytes a record header (two varints) takes. */
  public static final int MAX_HEADER_LENGTH = 10;

  private static final int FAST_LENGTH_BITS = 21;
  private static final long FAST_MASK = (1L << FAST_LENGTH_BITS) - 1;

  private RecordFormat() {}

  /**
   * Where a record of {@code length} bytes goes if the previous one ended at payload offset {@code
   * end}: {@code end}, or the next multiple of {@code pageBytes} when the record fits in a page
   * but would cross one ({@code pageBytes = 0}: no alignment).
   */
  public static long alignedStart(long end, long length, int pageBytes) {
    if (pageBytes == 0 || length > pageBytes || length == 0) {
      return end;
    }
    // Page sizes are powers of two.
    long pageEnd = (end | (pageBytes - 1)) + 1;
    return end + length <= pageEnd ? end : pageEnd;
  }

  /**
   * The payload offset of fixed-size record {@code i} of {@code recordLength} bytes: also what
   * {@link #alignedStart} gives record after record, since {@code P / R} records fill a page
   * until the next one would cross it.
   */
  public static long fixedRecordOffset(long i, int recordLength, int pageBytes) {
    if (pageBytes == 0 || recordLength == 0 || recordLength > pageBytes) {
      return i * recordLength;
    }
    int perPage = pageBytes / recordLength;
    return (i / perPage) * pageBytes + (i % perPage) * recordLength;
  }

  /** The payload length of {@code count} fixed-size records: the end of the last one. */
  public static long fixedPayloadBytes(long count, int recordLength, int pageBytes) {
    return count == 0 ? 0 : fixedRecordOffset(count - 1, recordLength, pageBytes) + recordLength;
  }

  /**
   * Whether {@code pageBytes} is a valid page size: 0 (none) or a power of two from 512 to {@link
   * StoreFile#DATA_PAYLOAD_OFFSET} (so that payload pages are file pages).
   */
  public static boolean isValidPageSize(int pageBytes) {
    return pageBytes == 0
        || (Integer.bitCount(pageBytes) == 1 && pageBytes >= 512 && pageBytes <= StoreFile.DATA_PAYLOAD_OFFSET);
  }

  /** Bytes of the varint of {@code value >= 0}. */
  public static int varintLength(int value) {
    return (31 - Integer.numberOfLeadingZeros(value | 1)) / 7 + 1;
  }

  /** Bytes of the header of a record with these lengths. */
  public static int headerLength(int keyLength, int valueLength) {
    return varintLength(keyLength) + varintLength(valueLength);
  }

  /** Writes the varint of {@code value >= 0} at {@code position}; returns the position after it. */
  public static int writeVarint(byte[] bytes, int position, int value) {
    while ((value & ~0x7F) != 0) {
      bytes[position++] = (byte) (value | 0x80);
      value >>>= 7;
    }
    bytes[position++] = (byte) value;
    return position;
  }

  /**
   * Decodes a record header from its first eight bytes given as a little-endian long (byte 0 in
   * the low bits) when both lengths are under 2^21 (the header is then at most six bytes).
   *
   * @return {@code headerLength << 42 | keyLength << 21 | valueLength}, or -1 when a length needs
   *     more than three bytes (decode with {@link #decodeVarint} instead)
   */
  public static long decodeShortHeader(long firstBytes) {
    long key = 0;
    int position = 0;
    for (int shift = 0; ; shift += 7) {
      long b = (firstBytes >>> (8 * position++)) & 0xFF;
      key |= (b & 0x7F) << shift;
      if (b < 0x80) {
        break;
      }
      if (position == 3) {
        return -1;
      }
    }
    int valueStart = position;
    long value = 0;
    for (int shift = 0; ; shift += 7) {
      long b = (firstBytes >>> (8 * position++)) & 0xFF;
      value |= (b & 0x7F) << shift;
      if (b < 0x80) {
        break;
      }
      if (position - valueStart == 3) {
        return -1;
      }
    }
    return (long) position << 42 | key << FAST_LENGTH_BITS | value;
  }

  /** The header length of a {@link #decodeShortHeader} result. */
  public static int shortHeaderLength(long decoded) {
    return (int) (decoded >>> 42);
  }

  /** The key length of a {@link #decodeShortHeader} result. */
  public static int shortKeyLength(long decoded) {
    return (int) ((decoded >>> FAST_LENGTH_BITS) & FAST_MASK);
  }

  /** The value length of a {@link #decodeShortHeader} result. */
  public static int shortValueLength(long decoded) {
    return (int) (decoded & FAST_MASK);
  }

  /**
   * Decodes the varint at {@code bytes[position...]}.
   *
   * @return {@code length << 32 | value}: the varint's byte count and its value
   * @throws CorruptStoreException when it is longer than five bytes, runs past {@code limit} or
   *     exceeds {@link #MAX_LENGTH}
   */
  public static long decodeVarint(byte[] bytes, int position, int limit) {
    long value = 0;
    for (int i = 0; i < 5; i++) {
      if (position + i >= limit) {
        throw new CorruptStoreException("record header runs past the data");
      }
      int b = bytes[position + i] & 0xFF;
      value |= (long) (b & 0x7F) << (7 * i);
      if (b < 0x80) {
        if (value > MAX_LENGTH) {
          throw new CorruptStoreException("record length " + value + " out of range");
        }
        return (long) (i + 1) << 32 | value;
      }
    }
    throw new CorruptStoreException("record length varint longer than five bytes");
  }
}
