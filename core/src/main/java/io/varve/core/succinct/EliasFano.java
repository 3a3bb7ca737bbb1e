package io.varve.core.succinct;

import io.varve.core.bits.LongBigArray;
import io.varve.core.format.CorruptStoreException;
import io.varve.core.format.WordsIO;
import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.Objects;

/**
 * An Elias-Fano representation of a non-decreasing sequence of {@code count} longs in {@code [0,
 * upperBound]}: about {@code 2 + log2(upperBound / count)} bits per element, with {@link #get}
 * in constant time and {@link #successorIndex}/{@link #predecessorIndex} searches. Up to 2<sup>40</sup>
 * elements and more: nothing here is limited to 2<sup>31</sup>.
 *
 * <p>Each value {@code v} is split into {@code lowerWidth} low bits, stored packed, and the high
 * part {@code v >>> lowerWidth}, stored in unary: element {@code i} sets bit {@code (v >>>
 * lowerWidth) + i} of the upper bit vector. {@code get(i)} selects the {@code i}-th one in the
 * upper bits through a sampled select index (one position per 256 ones, and per 256 zeros for the
 * searches), rebuilt in memory when the sequence is loaded.
 *
 * <h2>Serialized form</h2>
 *
 * <pre>
 * EliasFano   := count:int64 upperBound:int64 lowerWidth:int32 Lower Upper
 * Lower       := words:int64 word:int64^words     (count * lowerWidth bits, LSB first)
 * Upper       := words:int64 word:int64^words     (count + (upperBound &gt;&gt;&gt; lowerWidth) + 1 bits, LSB first)
 * </pre>
 *
 * with {@code lowerWidth = floor(log2(upperBound / max(count, 1)))} (0 when that ratio is 0), all
 * integers big-endian. Instances are immutable and thread-safe.
 */
public final class EliasFano {
  private static final int SAMPLE_SHIFT = 8;
  private static final long SAMPLE_MASK = (1L << SAMPLE_SHIFT) - 1;

  private final long count;
  private final long upperBound;
  private final int lowerWidth;
  private final long lowerMask;
  private final LongBigArray lower;
  private final LongBigArray upper;
  private final long upperBitLength;
  private final LongBigArray onesSamples;
  private final LongBigArray zerosSamples;

  private EliasFano(long count, long upperBound, LongBigArray lower, LongBigArray upper) {
    this.count = count;
    this.upperBound = upperBound;
    this.lowerWidth = lowerWidth(count, upperBound);
    this.lowerMask = lowerWidth == 0 ? 0 : -1L >>> (64 - lowerWidth);
    this.lower = lower;
    this.upper = upper;
    this.upperBitLength = upperBitLength(count, upperBound, lowerWidth);
    long zeros = upperBitLength - count;
    this.onesSamples = new LongBigArray((count + SAMPLE_MASK) >>> SAMPLE_SHIFT);
    this.zerosSamples = new LongBigArray((zeros + SAMPLE_MASK) >>> SAMPLE_SHIFT);
    buildSelectSamples();
  }

  /** Starts a sequence of exactly {@code count} values, each in {@code [0, upperBound]}. */
  public static Builder builder(long count, long upperBound) {
    return new Builder(count, upperBound);
  }

  /** Encodes a sorted array. */
  public static EliasFano of(long... values) {
    long max = values.length == 0 ? 0 : values[values.length - 1];
    return builder(values.length, Math.max(0, max)).addAll(values).build();
  }

  static int lowerWidth(long count, long upperBound) {
    long ratio = upperBound / Math.max(1, count);
    return ratio == 0 ? 0 : 63 - Long.numberOfLeadingZeros(ratio);
  }

  private static long upperBitLength(long count, long upperBound, int lowerWidth) {
    return count + (upperBound >>> lowerWidth) + 1;
  }

  /** The number of elements. */
  public long size() {
    return count;
  }

  /** The bound given at construction: every element is at most this. */
  public long upperBound() {
    return upperBound;
  }

  /** Returns element {@code index}. */
  public long get(long index) {
    Objects.checkIndex(index, count);
    // The lower bits do not depend on the select: load them first so both misses overlap.
    long low = lowerBits(index);
    long position = selectOne(index);
    return ((position - index) << lowerWidth) | low;
  }

  /**
   * Returns the index of the first element {@code >= value}, or {@link #size()} when there is
   * none.
   */
  public long successorIndex(long value) {
    if (value <= 0 || count == 0) {
      return 0;
    }
    if (value > upperBound) {
      return count;
    }
    long high = value >>> lowerWidth;
    long low = value & lowerMask;
    long position;
    long index;
    if (high == 0) {
      position = 0;
      index = 0;
    } else {
      position = selectZero(high - 1) + 1;
      index = position - high;
    }
    while (index < count) {
      position = nextOne(position);
      long elementHigh = position - index;
      if (elementHigh > high || lowerBits(index) >= low) {
        return index;
      }
      index++;
      position++;
    }
    return count;
  }

  /** Returns the index of the last element {@code <= value}, or -1 when there is none. */
  public long predecessorIndex(long value) {
    if (value < 0 || count == 0) {
      return -1;
    }
    if (value >= upperBound) {
      return count - 1;
    }
    return successorIndex(value + 1) - 1;
  }

  /** Bytes of heap used, select samples included. */
  public long ramBytesUsed() {
    return 64
        + lower.ramBytesUsed()
        + upper.ramBytesUsed()
        + onesSamples.ramBytesUsed()
        + zerosSamples.ramBytesUsed();
  }

  /** Bits of the encoded sequence (lower + upper bits, without select samples or padding). */
  public long encodedBits() {
    return count * lowerWidth + upperBitLength;
  }

  /** Writes the serialized form described in the class documentation. */
  public void writeTo(DataOutput out) throws IOException {
    out.writeLong(count);
    out.writeLong(upperBound);
    out.writeInt(lowerWidth);
    WordsIO.write(out, lower);
    WordsIO.write(out, upper);
  }

  /**
   * Reads a sequence written by {@link #writeTo}, validating every size and the number of ones, so
   * that a damaged input yields a {@link CorruptStoreException} and never an out-of-bounds read.
   *
   * @param maxCount the largest element count the caller can expect (bounds the allocation)
   */
  public static EliasFano readFrom(DataInput in, long maxCount) throws IOException {
    long count = WordsIO.readLong(in, "Elias-Fano count");
    long upperBound = WordsIO.readLong(in, "Elias-Fano upper bound");
    int lowerWidth = WordsIO.readInt(in, "Elias-Fano lower width");
    CorruptStoreException.check(
        count >= 0 && count <= maxCount,
        "Elias-Fano count " + count + " outside [0, " + maxCount + "]");
    CorruptStoreException.check(upperBound >= 0, "Elias-Fano upper bound is negative");
    CorruptStoreException.check(
        lowerWidth == lowerWidth(count, upperBound),
        "Elias-Fano lower width " + lowerWidth + " does not match count and bound");
    long upperBits = upperBitLength(count, upperBound, lowerWidth);
    LongBigArray lower = WordsIO.read(in, wordsFor(count * lowerWidth), "Elias-Fano lower bits");
    LongBigArray upper = WordsIO.read(in, wordsFor(upperBits), "Elias-Fano upper bits");
    long ones = 0;
    for (long i = 0; i < upper.length(); i++) {
      ones += Long.bitCount(upper.get(i));
    }
    int tail = (int) (upperBits & 63);
    CorruptStoreException.check(
        ones == count && (tail == 0 || (upper.get(upper.length() - 1) >>> tail) == 0),
        "Elias-Fano upper bits hold " + ones + " elements, expected " + count);
    return new EliasFano(count, upperBound, lower, upper);
  }

  private static long wordsFor(long bits) {
    return (bits + 63) >>> 6;
  }

  /**
   * Reads, without decoding, the words that {@link #get} of an element at or near {@code index}
   * will read (its lower bits, and the upper bits where the select for it starts), so that their
   * cache misses can overlap other work; returns a value derived from them, for the caller to
   * consume. {@code index} must be in {@code [0, size())}.
   */
  public long touch(long index) {
    long lowerWord = lower.length() == 0 ? 0 : lower.get(Math.min((index * lowerWidth) >>> 6, lower.length() - 1));
    long position = onesSamples.get(index >>> SAMPLE_SHIFT);
    // The element lies about (index mod 256) ones, twice as many bits, past its sample.
    long wordIndex = (position + 2 * (index & SAMPLE_MASK)) >>> 6;
    return lowerWord + upper.get(Math.min(wordIndex, upper.length() - 1));
  }

  /**
   * An estimate of element {@code index} from the select samples alone: no select, at most two
   * reads of adjacent words, no branch on the bits. The samples give the exact upper bits of every
   * 256th element; between two of them the estimate interpolates linearly, so it is off by about
   * the spread of the elements' gaps over half a sample (less than {@code 2^lowerWidth} at the
   * samples themselves). For reading memory ahead of a lookup; {@code index} must be in {@code [0,
   * size())}. The result lies in {@code [0, upperBound()]}.
   */
  public long estimate(long index) {
    long sample = index >>> SAMPLE_SHIFT;
    long base = sample << SAMPLE_SHIFT;
    long high = onesSamples.get(sample) - base;
    long next = sample + 1;
    long interpolated;
    if (next < onesSamples.length()) {
      // A whole sample apart: a shift, not a division, on the lookup path.
      long endHigh = onesSamples.get(next) - (next << SAMPLE_SHIFT);
      interpolated = high + ((endHigh - high) * (index - base) >> SAMPLE_SHIFT);
    } else {
      interpolated = high + ((upperBound >>> lowerWidth) - high) * (index - base) / (count - base);
    }
    return Math.min(upperBound, interpolated << lowerWidth);
  }

  private long lowerBits(long index) {
    return lower.getBitsLsbFirst(index * lowerWidth, lowerWidth);
  }

  private long selectOne(long rank) {
    long position = onesSamples.get(rank >>> SAMPLE_SHIFT);
    int remaining = (int) (rank & SAMPLE_MASK);
    long wordIndex = position >>> 6;
    long word = upper.get(wordIndex) & (-1L << position);
    while (true) {
      int ones = Long.bitCount(word);
      if (remaining < ones) {
        return (wordIndex << 6) + Broadword.select(word, remaining);
      }
      remaining -= ones;
      word = upper.get(++wordIndex);
    }
  }

  private long selectZero(long rank) {
    long position = zerosSamples.get(rank >>> SAMPLE_SHIFT);
    int remaining = (int) (rank & SAMPLE_MASK);
    long wordIndex = position >>> 6;
    long word = ~upper.get(wordIndex) & (-1L << position);
    while (true) {
      int zeros = Long.bitCount(word);
      if (remaining < zeros) {
        return (wordIndex << 6) + Broadword.select(word, remaining);
      }
      remaining -= zeros;
      word = ~upper.get(++wordIndex);
    }
  }

  /** The position of the first one at or after {@code position}; one must exist. */
  private long nextOne(long position) {
    long wordIndex = position >>> 6;
    long word = upper.get(wordIndex) & (-1L << position);
    while (word == 0) {
      word = upper.get(++wordIndex);
    }
    return (wordIndex << 6) + Long.numberOfTrailingZeros(word);
  }

  private void buildSelectSamples() {
    long ones = 0;
    long zeros = 0;
    long words = upper.length();
    for (long w = 0; w < words; w++) {
      long word = upper.get(w);
      long validBits = Math.min(64, upperBitLength - (w << 6));
      long zeroWord = ~word & (validBits == 64 ? -1L : (1L << validBits) - 1);
      ones = sample(onesSamples, word, w, ones);
      zeros = sample(zerosSamples, zeroWord, w, zeros);
    }
  }

  /** Records the position of every 256th set bit of {@code word}; returns the updated bit count. */
  private static long sample(LongBigArray samples, long word, long wordIndex, long seen) {
    int inWord = Long.bitCount(word);
    long nextSample = (seen + SAMPLE_MASK) & ~SAMPLE_MASK;
    while (nextSample < seen + inWord) {
      int rankInWord = (int) (nextSample - seen);
      samples.set(nextSample >>> SAMPLE_SHIFT, (wordIndex << 6) + Broadword.select(word, rankInWord));
      nextSample += 1L << SAMPLE_SHIFT;
    }
    return seen + inWord;
  }

  /**
   * Collects a non-decreasing sequence and encodes it. Values must be added in order ("values do
   * not come in order" otherwise), exactly {@code count} of them, and {@link #build()} called once.
   * Not thread-safe.
   */
  public static final class Builder {
    private final long count;
    private final long upperBound;
    private final int lowerWidth;
    private final LongBigArray lower;
    private final LongBigArray upper;
    private long added;
    private long last;
    private boolean built;

    private Builder(long count, long upperBound) {
      if (count < 0) {
        throw new IllegalArgumentException("count must be >= 0: " + count);
      }
      if (upperBound < 0 || upperBound == Long.MAX_VALUE) {
        throw new IllegalArgumentException("upperBound must be in [0, 2^63 - 2]: " + upperBound);
      }
      this.count = count;
      this.upperBound = upperBound;
      this.lowerWidth = lowerWidth(count, upperBound);
      this.lower = new LongBigArray(wordsFor(count * lowerWidth));
      this.upper = new LongBigArray(wordsFor(upperBitLength(count, upperBound, lowerWidth)));
    }

    /** Appends the next value. */
    public Builder add(long value) {
      if (built) {
        throw new IllegalStateException("build() was already called");
      }
      if (added == count) {
        throw new IllegalStateException("more than the declared " + count + " values added");
      }
      if (value < last) {
        throw new IllegalArgumentException(
            "values do not come in order: " + value + " after " + last + " at index " + added);
      }
      if (value > upperBound) {
        throw new IllegalArgumentException(
            "value " + value + " exceeds the declared upper bound " + upperBound);
      }
      if (lowerWidth > 0) {
        lower.orBitsLsbFirst(added * lowerWidth, value & (-1L >>> (64 - lowerWidth)), lowerWidth);
      }
      long position = (value >>> lowerWidth) + added;
      upper.or(position >>> 6, 1L << position);
      last = value;
      added++;
      return this;
    }

    /** Appends every value of {@code values}, in order. */
    public Builder addAll(long... values) {
      for (long value : values) {
        add(value);
      }
      return this;
    }

    /** Finishes the sequence; call exactly once, after exactly {@code count} values. */
    public EliasFano build() {
      if (built) {
        throw new IllegalStateException("build() was already called");
      }
      if (added != count) {
        throw new IllegalStateException("declared " + count + " values but added " + added);
      }
      built = true;
      return new EliasFano(count, upperBound, lower, upper);
    }
  }
}
