package io.varve.core.store;

import net.openhft.hashing.LongHashFunction;

/**
 * The checksum that follows each record of a data file of format version 2 ({@link RecordFormat}),
 * checked by every lookup that reads the record, so that a damaged record is reported instead of
 * served.
 *
 * <pre>
 * Check := checksum:uint32 little-endian = low 32 bits of
 *          XXH3-64(record bytes, seed 0) XOR (payloadOffset * 0x9E3779B97F4A7C15)
 * </pre>
 *
 * The record bytes are the record's header (none for fixed sizes), key and value; {@code
 * payloadOffset} is where the record starts in the data payload. Mixing in the offset makes a
 * record intact in itself but found at another place (a misdirected write, a page of the file
 * copied over another) fail its check too. XXH3 rather than CRC32C because a lookup checks the
 * record where it lies, in mapped or loaded memory, and the JDK's CRC32C reads only arrays and
 * buffers; XXH3 of a short record costs a few nanoseconds. Stateless and thread-safe.
 */
public final class RecordChecksum {
  /** Bytes of the check after each record. */
  public static final int BYTES = 4;

  private static final LongHashFunction XXH3 = LongHashFunction.xx3();
  private static final long OFFSET_MIX = 0x9E3779B97F4A7C15L;

  private RecordChecksum() {}

  /** The check of the record in {@code bytes[offset, offset + length)}, starting at {@code payloadOffset}. */
  public static int of(byte[] bytes, int offset, int length, long payloadOffset) {
    return (int) (XXH3.hashBytes(bytes, offset, length) ^ payloadOffset * OFFSET_MIX);
  }

  /**
   * The check of the record of {@code length} bytes at native {@code address}, starting at {@code
   * payloadOffset}; the caller guarantees that the bytes are readable.
   */
  public static int ofMemory(long address, long length, long payloadOffset) {
    return (int) (XXH3.hashMemory(address, length) ^ payloadOffset * OFFSET_MIX);
  }

  /** Writes {@code check} little-endian at {@code bytes[offset]}. */
  public static void write(int check, byte[] bytes, int offset) {
    bytes[offset] = (byte) check;
    bytes[offset + 1] = (byte) (check >>> 8);
    bytes[offset + 2] = (byte) (check >>> 16);
    bytes[offset + 3] = (byte) (check >>> 24);
  }

  /** Reads a check written by {@link #write}. */
  public static int read(byte[] bytes, int offset) {
    return (bytes[offset] & 0xFF)
        | (bytes[offset + 1] & 0xFF) << 8
        | (bytes[offset + 2] & 0xFF) << 16
        | (bytes[offset + 3] & 0xFF) << 24;
  }
}
