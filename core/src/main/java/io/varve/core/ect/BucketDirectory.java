package io.varve.core.ect;

import io.varve.core.bits.LongBigArray;
import io.varve.core.format.CorruptStoreException;
import io.varve.core.format.WordsIO;
import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;

/**
 * The bucket directory of an ECT index: for each bucket boundary {@code b} in {@code [0, m]}, the
 * rank of the bucket's first key ({@code rank(m) = n}) and the bit offset of its trie ({@code
 * offset(m)} = all trie bits). It is the paper's two-level scheme (section 2.3) with the lower
 * level coded as deviations from what uniform hashing predicts, so that one lookup reads a few
 * adjacent fields, usually within one cache line.
 *
 * <p>Boundaries form groups of {@value #GROUP_SIZE}. Group {@code G} starting at boundary {@code
 * b0 = 16 G} stores, packed least significant bit first at bit {@code G * groupBits}:
 *
 * <pre>
 * Group   := rank(b0):rankWidth offset(b0):offsetWidth Entry^15
 * Entry   := rankDeviation:rankDeviationWidth offsetDeviation:offsetDeviationWidth   (for j = 1..15)
 * rankDeviation_j   = rank(b0 + j) - rank(b0) - floor(j * n / m) - rankDeviationMin
 * offsetDeviation_j = offset(b0 + j) - offset(b0) - predictedBits(rank(b0 + j) - rank(b0)) - offsetDeviationMin
 * predictedBits(r)  = (r * floor(offset(m) * 2^16 / n)) &gt;&gt;&gt; 16
 * </pre>
 *
 * Entries past boundary {@code m} in the last group are zero. The serialized form is
 *
 * <pre>
 * BucketDirectory := rankDeviationMin:int64 offsetDeviationMin:int64 rankDeviationWidth:int32
 *                    offsetDeviationWidth:int32 words:int64 word:int64^words
 * </pre>
 *
 * with {@code rankWidth} and {@code offsetWidth} the bit lengths of {@code n} and {@code
 * offset(m)}. Opening decodes and checks every boundary (ranks from 0 to {@code n}, offsets from
 * 0 to {@code offset(m)}, both non-decreasing), so lookups need no further checks. Immutable and
 * thread-safe.
 */
final class BucketDirectory {
  static final int GROUP_SIZE = 16;
  private static final int GROUP_SHIFT = 4;

  private final long keyCount;
  private final long bucketCount;
  private final long trieBits;
  private final int rankWidth;
  private final int offsetWidth;
  private final int rankDeviationWidth;
  private final int offsetDeviationWidth;
  private final int entryBits;
  private final long groupBits;
  private final long rankDeviationMin;
  private final long offsetDeviationMin;
  private final long bitsPerKeyQ16;
  /** {@code floor(j * n / m)} for j in [0, GROUP_SIZE): no division on the lookup path. */
  private final long[] expectedRankDeltas = new long[GROUP_SIZE];
  private final LongBigArray words;

  private BucketDirectory(
      long keyCount,
      long bucketCount,
      long trieBits,
      long rankDeviationMin,
      long offsetDeviationMin,
      int rankDeviationWidth,
      int offsetDeviationWidth,
      LongBigArray words) {
    this.keyCount = keyCount;
    this.bucketCount = bucketCount;
    this.trieBits = trieBits;
    this.rankWidth = bitLength(keyCount);
    this.offsetWidth = bitLength(trieBits);
    this.rankDeviationMin = rankDeviationMin;
    this.offsetDeviationMin = offsetDeviationMin;
    this.rankDeviationWidth = rankDeviationWidth;
    this.offsetDeviationWidth = offsetDeviationWidth;
    this.entryBits = rankDeviationWidth + offsetDeviationWidth;
    this.groupBits = rankWidth + offsetWidth + (long) (GROUP_SIZE - 1) * entryBits;
    this.bitsPerKeyQ16 = bitsPerKeyQ16(keyCount, trieBits);
    for (int j = 0; j < GROUP_SIZE; j++) {
      expectedRankDeltas[j] = expectedRankDelta(j, keyCount, bucketCount);
    }
    this.words = words;
  }

  private static int bitLength(long value) {
    return 64 - Long.numberOfLeadingZeros(value);
  }

  private static long bitsPerKeyQ16(long keyCount, long trieBits) {
    if (keyCount == 0) {
      return 0;
    }
    // trieBits < 2^47 (16 TiB of tries) keeps the shift exact.
    return (trieBits << 16) / keyCount;
  }

  private static long groups(long bucketCount) {
    return ((bucketCount + 1) + GROUP_SIZE - 1) >>> GROUP_SHIFT;
  }

  /**
   * Builds the directory from {@code bucketCount + 1} boundary ranks and offsets (the last being
   * {@code keyCount} and {@code trieBits}).
   */
  static BucketDirectory build(LongBigArray ranks, LongBigArray offsets, long keyCount, long bucketCount, long trieBits) {
    if (trieBits >= 1L << 47) {
      throw new IllegalArgumentException("tries of 2^47 bits or more are not supported");
    }
    long q16 = bitsPerKeyQ16(keyCount, trieBits);
    long rankMin = Long.MAX_VALUE;
    long rankMax = Long.MIN_VALUE;
    long offsetMin = Long.MAX_VALUE;
    long offsetMax = Long.MIN_VALUE;
    for (long b = 0; b <= bucketCount; b++) {
      if ((b & (GROUP_SIZE - 1)) == 0) {
        continue;
      }
      long rankDeviation = rankDeviation(ranks, b, keyCount, bucketCount);
      long offsetDeviation = offsetDeviation(ranks, offsets, b, q16);
      rankMin = Math.min(rankMin, rankDeviation);
      rankMax = Math.max(rankMax, rankDeviation);
      offsetMin = Math.min(offsetMin, offsetDeviation);
      offsetMax = Math.max(offsetMax, offsetDeviation);
    }
    if (rankMin == Long.MAX_VALUE) {
      rankMin = rankMax = offsetMin = offsetMax = 0;
    }
    int rankDeviationWidth = bitLength(rankMax - rankMin);
    int offsetDeviationWidth = bitLength(offsetMax - offsetMin);
    BucketDirectory layout =
        new BucketDirectory(keyCount, bucketCount, trieBits, rankMin, offsetMin, rankDeviationWidth, offsetDeviationWidth, null);
    LongBigArray words = new LongBigArray((groups(bucketCount) * layout.groupBits + 63) >>> 6);
    for (long b = 0; b <= bucketCount; b++) {
      int j = (int) (b & (GROUP_SIZE - 1));
      long groupStart = (b >>> GROUP_SHIFT) * layout.groupBits;
      if (j == 0) {
        words.orBitsLsbFirst(groupStart, ranks.get(b), layout.rankWidth);
        words.orBitsLsbFirst(groupStart + layout.rankWidth, offsets.get(b), layout.offsetWidth);
        continue;
      }
      long entryStart = layout.entryStart(groupStart, j);
      words.orBitsLsbFirst(entryStart, rankDeviation(ranks, b, keyCount, bucketCount) - rankMin, rankDeviationWidth);
      words.orBitsLsbFirst(
          entryStart + rankDeviationWidth, offsetDeviation(ranks, offsets, b, q16) - offsetMin, offsetDeviationWidth);
    }
    return new BucketDirectory(keyCount, bucketCount, trieBits, rankMin, offsetMin, rankDeviationWidth, offsetDeviationWidth, words);
  }

  /** How far boundary {@code b}'s rank lies from its group start plus the expected delta. */
  private static long rankDeviation(LongBigArray ranks, long b, long keyCount, long bucketCount) {
    int j = (int) (b & (GROUP_SIZE - 1));
    return ranks.get(b) - ranks.get(b - j) - expectedRankDelta(j, keyCount, bucketCount);
  }

  /** How far boundary {@code b}'s offset lies from its group start plus the predicted trie bits. */
  private static long offsetDeviation(LongBigArray ranks, LongBigArray offsets, long b, long q16) {
    long b0 = b - (b & (GROUP_SIZE - 1));
    return offsets.get(b) - offsets.get(b0) - predictedBits(ranks.get(b) - ranks.get(b0), q16);
  }

  private static long expectedRankDelta(int j, long keyCount, long bucketCount) {
    // j * keyCount < 2^4 * 2^59: no overflow for any supported key count.
    return j * keyCount / bucketCount;
  }

  private static long predictedBits(long rankDelta, long q16) {
    return (rankDelta * q16) >>> 16;
  }

  /** Bits of the size field of {@link #sizeAndOffset}. */
  static final int SIZE_BITS = 17;
  /** The size field of {@link #sizeAndOffset} when the size does not fit it: ask {@link #size}. */
  static final long SIZE_UNKNOWN = (1L << SIZE_BITS) - 1;
  static final long OFFSET_MASK = (1L << (64 - SIZE_BITS)) - 1;

  /**
   * The key count and trie offset of bucket {@code b < m} in one pass over its group, as {@code
   * min(size(b), SIZE_UNKNOWN) << 47 | offset(b)} (offsets are below 2^47): a lookup needs both,
   * and two longs cannot be returned without an allocation that the JIT removes only when it
   * inlines the call.
   */
  long sizeAndOffset(long b) {
    long groupStart = (b >>> GROUP_SHIFT) * groupBits;
    int j = (int) b & (GROUP_SIZE - 1);
    long offset = words.getBitsLsbFirst(groupStart + rankWidth, offsetWidth);
    long delta = 0;
    long entryStart = entryStart(groupStart, j);
    if (j != 0) {
      delta = words.getBitsLsbFirst(entryStart, rankDeviationWidth) + rankDeviationMin + expectedRankDeltas[j];
      offset += words.getBitsLsbFirst(entryStart + rankDeviationWidth, offsetDeviationWidth)
          + offsetDeviationMin
          + predictedBits(delta, bitsPerKeyQ16);
    }
    long size =
        j == GROUP_SIZE - 1
            ? rank(b + 1) - rank(b)
            : words.getBitsLsbFirst(entryStart + entryBits, rankDeviationWidth)
                + rankDeviationMin
                + expectedRankDeltas[j + 1]
                - delta;
    return Math.min(size, SIZE_UNKNOWN) << (64 - SIZE_BITS) | offset;
  }

  /** The rank of the first key of bucket {@code b} ({@code b = m} gives {@code n}). */
  long rank(long b) {
    long groupStart = (b >>> GROUP_SHIFT) * groupBits;
    return words.getBitsLsbFirst(groupStart, rankWidth) + rankDelta(groupStart, (int) b & (GROUP_SIZE - 1));
  }

  /** The number of keys in bucket {@code b < m}. */
  long size(long b) {
    int j = (int) b & (GROUP_SIZE - 1);
    if (j == GROUP_SIZE - 1) {
      return rank(b + 1) - rank(b);
    }
    long groupStart = (b >>> GROUP_SHIFT) * groupBits;
    return rankDelta(groupStart, j + 1) - rankDelta(groupStart, j);
  }

  /** The bit offset of the trie of bucket {@code b} ({@code b = m} gives the total trie bits). */
  long offset(long b) {
    long groupStart = (b >>> GROUP_SHIFT) * groupBits;
    long base = words.getBitsLsbFirst(groupStart + rankWidth, offsetWidth);
    int j = (int) b & (GROUP_SIZE - 1);
    if (j == 0) {
      return base;
    }
    long entryStart = entryStart(groupStart, j);
    return base
        + words.getBitsLsbFirst(entryStart + rankDeviationWidth, offsetDeviationWidth)
        + offsetDeviationMin
        + predictedBits(rankDelta(groupStart, j), bitsPerKeyQ16);
  }

  /** {@code rank(b0 + j) - rank(b0)} within the group starting at bit {@code groupStart}. */
  private long rankDelta(long groupStart, int j) {
    if (j == 0) {
      return 0;
    }
    return words.getBitsLsbFirst(entryStart(groupStart, j), rankDeviationWidth)
        + rankDeviationMin
        + expectedRankDeltas[j];
  }

  private long entryStart(long groupStart, int j) {
    return groupStart + rankWidth + offsetWidth + (long) (j - 1) * entryBits;
  }

  /** Bits of the encoded directory. */
  long encodedBits() {
    return groups(bucketCount) * groupBits;
  }

  long ramBytesUsed() {
    return 96 + words.ramBytesUsed();
  }

  /** The number of bytes {@link #writeTo} writes. */
  long serializedBytes() {
    return 2 * Long.BYTES + 2 * Integer.BYTES + Long.BYTES + Long.BYTES * words.length();
  }

  void writeTo(DataOutput out) throws IOException {
    out.writeLong(rankDeviationMin);
    out.writeLong(offsetDeviationMin);
    out.writeInt(rankDeviationWidth);
    out.writeInt(offsetDeviationWidth);
    WordsIO.write(out, words);
  }

  /** Reads and fully validates a directory for an index of the given shape. */
  static BucketDirectory readFrom(DataInput in, long keyCount, long bucketCount, long trieBits) throws IOException {
    long rankMin = WordsIO.readLong(in, "ECT directory rank deviation minimum");
    long offsetMin = WordsIO.readLong(in, "ECT directory offset deviation minimum");
    int rankWidth = WordsIO.readInt(in, "ECT directory rank deviation width");
    int offsetWidth = WordsIO.readInt(in, "ECT directory offset deviation width");
    CorruptStoreException.check(
        rankWidth >= 0 && rankWidth <= 63 && offsetWidth >= 0 && offsetWidth <= 63,
        "ECT directory field widths out of range: " + rankWidth + ", " + offsetWidth);
    CorruptStoreException.check(trieBits >= 0 && trieBits < 1L << 47, "ECT trie bit count out of range: " + trieBits);
    BucketDirectory shape = new BucketDirectory(keyCount, bucketCount, trieBits, rankMin, offsetMin, rankWidth, offsetWidth, null);
    LongBigArray words = WordsIO.read(in, (groups(bucketCount) * shape.groupBits + 63) >>> 6, "ECT directory");
    BucketDirectory directory =
        new BucketDirectory(keyCount, bucketCount, trieBits, rankMin, offsetMin, rankWidth, offsetWidth, words);
    directory.validate();
    return directory;
  }

  private void validate() {
    long previousRank = 0;
    long previousOffset = 0;
    for (long b = 0; b <= bucketCount; b++) {
      long rank = rank(b);
      long offset = offset(b);
      if (rank < previousRank || offset < previousOffset || (b == 0 && (rank != 0 || offset != 0))) {
        throw new CorruptStoreException("ECT bucket directory damaged at bucket " + b);
      }
      previousRank = rank;
      previousOffset = offset;
    }
    CorruptStoreException.check(
        previousRank == keyCount && previousOffset == trieBits,
        "ECT bucket directory damaged: ends at rank " + previousRank + ", offset " + previousOffset);
  }
}
