package io.varve.core.bits;

/**
 * Appends bit strings most significant bit first (the order {@link LongWords#peekMsbFirst} reads)
 * into growable storage of more than 2<sup>31</sup> words if needed.
 *
 * <p>Not thread-safe.
 */
public final class BitWriter {
  private LongBigArray words;
  /**
   * The words themselves while they fit in one chunk (nearly always): written directly, without the
   * big array's index arithmetic.
   */
  private long[] single;
  private long bitLength;

  /** Creates a writer with room for 1024 bits before it grows. */
  public BitWriter() {
    this(1024);
  }

  /** Creates a writer with room for {@code initialBits} bits before it grows. */
  public BitWriter(long initialBits) {
    words = new LongBigArray(Math.max(1, (initialBits + 63) >>> 6));
    single = words.chunkCount() == 1 ? words.chunk(0) : null;
  }

  /** Appends the low {@code width} bits of {@code value} ({@code 0 <= width <= 64}), high bit first. */
  public void write(long value, int width) {
    if (width == 0) {
      return;
    }
    if (width < 64) {
      value &= (1L << width) - 1;
    }
    ensureCapacity(bitLength + width);
    long wordIndex = bitLength >>> 6;
    int used = (int) bitLength & 63;
    int free = 64 - used;
    long[] direct = single;
    if (direct != null) {
      int index = (int) wordIndex;
      if (width <= free) {
        direct[index] |= value << (free - width);
      } else {
        int spill = width - free;
        direct[index] |= value >>> spill;
        direct[index + 1] |= value << (64 - spill);
      }
    } else if (width <= free) {
      words.or(wordIndex, value << (free - width));
    } else {
      int spill = width - free;
      words.or(wordIndex, value >>> spill);
      words.or(wordIndex + 1, value << (64 - spill));
    }
    bitLength += width;
  }

  /** Appends {@code count} zero bits. */
  public void writeZeros(long count) {
    ensureCapacity(bitLength + count);
    bitLength += count;
  }

  /** Appends every bit written to {@code other}. */
  public void append(BitWriter other) {
    long remaining = other.bitLength;
    long[] source = other.single;
    if (source != null) {
      for (int word = 0; remaining > 0; word++) {
        int width = (int) Math.min(64, remaining);
        write(source[word] >>> (64 - width), width);
        remaining -= width;
      }
      return;
    }
    for (long word = 0; remaining > 0; word++) {
      int width = (int) Math.min(64, remaining);
      long bits = other.words.get(word) >>> (64 - width);
      write(bits, width);
      remaining -= width;
    }
  }

  /** Appends zero bits up to bit position {@code bitLength}, which must not be behind. */
  public void padTo(long bitLength) {
    if (bitLength < this.bitLength) {
      throw new IllegalArgumentException("cannot pad backwards to " + bitLength);
    }
    writeZeros(bitLength - this.bitLength);
  }

  /** Forgets every bit written, keeping the storage for reuse. */
  public void clear() {
    long used = (bitLength + 63) >>> 6;
    if (single != null) {
      java.util.Arrays.fill(single, 0, (int) used, 0L);
    } else {
      for (long i = 0; i < used; i++) {
        words.set(i, 0);
      }
    }
    bitLength = 0;
  }

  /** The number of bits written so far. */
  public long bitLength() {
    return bitLength;
  }

  /** Returns the bits written so far as exactly {@code ceil(bitLength / 64)} words (a copy). */
  public LongBigArray toWords() {
    return toWords((bitLength + 63) >>> 6);
  }

  /** Returns the bits written so far in {@code wordCount >= ceil(bitLength / 64)} words (a copy). */
  public LongBigArray toWords(long wordCount) {
    if (wordCount < (bitLength + 63) >>> 6) {
      throw new IllegalArgumentException(wordCount + " words cannot hold " + bitLength + " bits");
    }
    return words.copyOf(wordCount);
  }

  private void ensureCapacity(long bits) {
    long neededWords = (bits + 63) >>> 6;
    if (neededWords > words.length()) {
      words = words.copyOf(Math.max(neededWords, words.length() + (words.length() >>> 1) + 1));
      single = words.chunkCount() == 1 ? words.chunk(0) : null;
    }
  }
}
