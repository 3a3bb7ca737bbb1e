package io.varve.bcms;

import java.nio.ByteOrder;
import net.openhft.hashing.LongHashFunction;

/**
 * The hashing both sketches share: one seeded 64-bit XXH3 hash per item, from which the row
 * columns (plain sketch) or the page and in-page columns (buffered sketch) are derived by
 * independent mixes. Hashing once per item, not once per row, is what keeps an update cheap.
 *
 * <p>Immutable and thread-safe; nothing here allocates.
 */
final class ItemHash {
  private static final long GOLDEN_64 = 0x9E37_79B9_7F4A_7C15L;
  private static final int GOLDEN_32 = 0x9E37_79B9;

  private static final boolean NATIVE_LITTLE_ENDIAN = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;

  private final LongHashFunction function;

  ItemHash(long seed) {
    this.function = LongHashFunction.xx3(seed);
  }

  long ofBytes(byte[] item) {
    return function.hashBytes(item);
  }

  /**
   * The hash of the item's 8 bytes in little-endian order on every platform (zero-allocation-hashing
   * reads a long in native order), so that sketch files move between machines.
   */
  long ofLong(long item) {
    return function.hashLong(NATIVE_LITTLE_ENDIAN ? item : Long.reverseBytes(item));
  }

  /** The column in {@code [0, width)} of row {@code row} of a plain sketch. */
  static long rowColumn(long hash, int row, long width) {
    return unsignedMultiplyHigh(mix64(hash + (row + 1) * GOLDEN_64), width);
  }

  /** The page in {@code [0, pageCount)} of a buffered sketch (hash function h0 of the paper). */
  static long page(long hash, long pageCount) {
    return unsignedMultiplyHigh(hash, pageCount);
  }

  /** The 32 bits, independent of the page, from which an item's in-page columns are derived. */
  static int inPageHash(long hash) {
    return (int) mix64(hash ^ GOLDEN_64);
  }

  /** The column in {@code [0, columnsPerPage)} of row {@code row} inside the item's page. */
  static int pageColumn(int inPageHash, int row, int columnsPerPage) {
    return (int) (((mix32(inPageHash + (row + 1) * GOLDEN_32) & 0xFFFF_FFFFL) * columnsPerPage) >>> 32);
  }

  /** {@code floor(x * n / 2^64)} for {@code x} read as unsigned and {@code n >= 0}. */
  private static long unsignedMultiplyHigh(long x, long n) {
    return Math.multiplyHigh(x, n) + ((x >> 63) & n);
  }

  private static long mix64(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58_476D_1CE4_E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D0_49BB_1331_11EBL;
    return z ^ (z >>> 31);
  }

  private static int mix32(int h) {
    h ^= h >>> 16;
    h *= 0x85EB_CA6B;
    h ^= h >>> 13;
    h *= 0xC2B2_AE35;
    return h ^ (h >>> 16);
  }
}
