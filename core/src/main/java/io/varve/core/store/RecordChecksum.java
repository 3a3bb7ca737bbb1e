package io.varve.core.store;

import io.varve.core.format.CorruptStoreException;
import java.util.zip.CRC32C;
import net.openhft.hashing.LongHashFunction;

/**
 * The checksum that may follow each record of a data file ({@link RecordFormat}), and each head of
 * a paged one ({@link PagedLayout}), checked by every lookup that reads them, so that a damaged
 * record is reported instead of served. The meta file names the function ({@code recordCheck}):
 *
 * <pre>
 * Check := checksum:uint32 little-endian = low 32 bits of
 *          Hash(record bytes) XOR ((payloadOffset + salt) * 0x9E3779B97F4A7C15)
 * Hash  := CRC32C(record bytes)          (recordCheck 2, meta versions 6 and 7: what builders write)
 *        | XXH3-64(record bytes, seed 0) (recordCheck 1, meta versions 4 and 5)
 * salt  := the meta's recordCheckSalt    (meta version 7: drawn for each data file; before: 0)
 * </pre>
 *
 * The record bytes are the record's header (none for fixed sizes), key and value; {@code
 * payloadOffset} is where the record starts in the data payload. Mixing in the offset makes a
 * record intact in itself but found at another place (a misdirected write, a page of the file
 * copied over another) fail its check too. Mixing in the salt does the same for a record of
 * another data file at the same place: two builds of the same keys with values of the same
 * lengths lay their records out alike, and without a salt a page of one copied over the other
 * (a copy interrupted and resumed from a newer build) was served, and even left the file's CRC32C
 * unchanged, since a record followed by its own CRC32C adds nothing to a CRC32C over both. CRC32C
 * replaced XXH3 because lookups check a heap copy of the record, which the JDK's CRC32C reads
 * with the processor's CRC instruction: five times faster than XXH3 on a record of 1 KiB. The
 * callers pass {@code payloadOffset + salt} as the offset. Immutable; thread-safe.
 */
public enum RecordChecksum {
  /** Records carry no check. */
  NONE(0),
  /** XXH3-64 with seed 0: stores of meta versions 4 and 5. */
  XXH3(1),
  /** CRC32C (Castagnoli): what builders write since meta version 6. */
  CRC32C(2);

  /** Bytes of the check after each checked record. */
  public static final int BYTES = 4;

  /** The function builders write when asked for record checksums. */
  public static final RecordChecksum CURRENT = CRC32C;

  private static final LongHashFunction XXH3_64 = LongHashFunction.xx3();
  private static final long OFFSET_MIX = 0x9E3779B97F4A7C15L;
  /** Independent across processes and hosts, as Spark's executors building shards of one store are. */
  private static final java.security.SecureRandom SALTS = new java.security.SecureRandom();

  private final int code;

  RecordChecksum(int code) {
    this.code = code;
  }

  /** The meta file's {@code recordCheck} for this function. */
  public int code() {
    return code;
  }

  /** The function of meta {@code recordCheck} {@code code}; throws {@link CorruptStoreException} for an unknown one. */
  public static RecordChecksum ofCode(int code) {
    for (RecordChecksum checksum : values()) {
      if (checksum.code == code) {
        return checksum;
      }
    }
    throw new CorruptStoreException("unknown record check " + code);
  }

  /** A salt for a new data file's checks ({@code recordCheckSalt}): random, never 0. */
  public static long newSalt() {
    long salt;
    do {
      salt = SALTS.nextLong();
    } while (salt == 0);
    return salt;
  }

  /** Bytes of the check after each record: {@link #BYTES}, or 0 for {@link #NONE}. */
  public int bytes() {
    return this == NONE ? 0 : BYTES;
  }

  /** The check of the record in {@code bytes[offset, offset + length)}, starting at {@code payloadOffset}. */
  public int of(byte[] bytes, int offset, int length, long payloadOffset) {
    return mix(hash(bytes, offset, length), payloadOffset);
  }

  /**
   * The check of the record of {@code length} bytes at native {@code address}, starting at {@code
   * payloadOffset}, for {@link #XXH3}, which reads native memory itself; the caller guarantees that
   * the bytes are readable. Other functions read arrays only ({@link #streaming}).
   */
  public int ofMemory(long address, long length, long payloadOffset) {
    if (this != XXH3) {
      throw new UnsupportedOperationException(this + " checks arrays; see streaming()");
    }
    return mix(XXH3_64.hashMemory(address, length), payloadOffset);
  }

  /** Whether a record's check can be computed over its bytes in pieces ({@link Stream}). */
  public boolean streaming() {
    return this == CRC32C;
  }

  /** A check computed over a record's bytes in pieces, for a function that {@link #streaming streams}. */
  public Stream stream() {
    if (!streaming()) {
      throw new UnsupportedOperationException(this + " does not check a record in pieces");
    }
    return new Stream();
  }

  private long hash(byte[] bytes, int offset, int length) {
    return switch (this) {
      case CRC32C -> {
        CRC32C crc = new CRC32C();
        crc.update(bytes, offset, length);
        yield crc.getValue();
      }
      case XXH3 -> XXH3_64.hashBytes(bytes, offset, length);
      case NONE -> throw new IllegalStateException("records without checks have no check to compute");
    };
  }

  private static int mix(long hash, long payloadOffset) {
    return (int) (hash ^ payloadOffset * OFFSET_MIX);
  }

  /** A {@link #CRC32C} check fed a record's bytes in order. Not thread-safe. */
  public static final class Stream {
    private final CRC32C crc = new CRC32C();

    private Stream() {}

    /** Adds {@code bytes[offset, offset + length)}, the record's next bytes. */
    public void update(byte[] bytes, int offset, int length) {
      crc.update(bytes, offset, length);
    }

    /** The check of the bytes added, for a record starting at {@code payloadOffset}. */
    public int check(long payloadOffset) {
      return mix(crc.getValue(), payloadOffset);
    }
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
