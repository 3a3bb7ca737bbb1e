package io.varve.core.bits;

/**
 * A read-only sequence of 64-bit words addressed by a {@code long} index: the storage that every
 * succinct structure in Varve reads from.
 *
 * <p>It is an abstract class rather than an interface so that, while only one implementation is
 * loaded, the JIT compiles calls on the lookup path as direct calls. {@link LongBigArray} keeps the
 * words on the heap; a memory-mapped implementation can extend this class without touching the
 * structures that read through it.
 *
 * <p>Thread-safe for reads once published (every implementation is); writes are not.
 */
public abstract class LongWords {

  /** Returns the word at {@code index}, {@code 0 <= index < length()}. */
  public abstract long get(long index);

  /** The number of words. */
  public abstract long length();

  /** Bytes of Java heap held by this object, including its storage. */
  public abstract long ramBytesUsed();

  /**
   * Reads the 64 bits that start at bit {@code bitPos}, most significant bit first: bit {@code p}
   * of the stream is bit {@code 63 - (p & 63)} of word {@code p >>> 6}. Bits past the last word
   * read as zero.
   */
  public final long peekMsbFirst(long bitPos) {
    long wordIndex = bitPos >>> 6;
    int shift = (int) bitPos & 63;
    long high = get(wordIndex) << shift;
    if (shift == 0 || wordIndex + 1 >= length()) {
      return high;
    }
    return high | (get(wordIndex + 1) >>> (64 - shift));
  }

  /**
   * Reads {@code width} bits ({@code 0..64}) starting at bit {@code bitPos} in least significant
   * bit first order: bit {@code p} of the stream is bit {@code p & 63} of word {@code p >>> 6}.
   */
  public final long getBitsLsbFirst(long bitPos, int width) {
    if (width == 0) {
      return 0;
    }
    long wordIndex = bitPos >>> 6;
    int shift = (int) bitPos & 63;
    long value = get(wordIndex) >>> shift;
    if (shift + width > 64) {
      value |= get(wordIndex + 1) << (64 - shift);
    }
    return width == 64 ? value : value & ((1L << width) - 1);
  }
}
