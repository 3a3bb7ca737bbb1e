package io.varve.core.blocked;

/**
 * The one place that knows the byte and bit layout of a {@link BlockedIndex}: the block geometry,
 * the header fields, where a hash lands, and how bit streams are read. {@link BlockedIndexBuilder}
 * writes and {@link BlockedIndex} reads through it, so no layout constant is repeated.
 *
 * <h2>Where a hash lands</h2>
 *
 * A 128-bit hash {@code H = hi:lo} (unsigned) is multiplied by {@code M = blockCount * 256}. The
 * high part {@code Q = floor(H * M / 2^128)} is the hash's <em>sub-range</em>: block {@code Q >>>
 * 8}, sub-range {@code Q & 255} within it. The low 128 bits {@code R = H * M mod 2^128} are the
 * hash's place inside its sub-range. Both are monotone in {@code H}: hash order is (block,
 * sub-range, R) order, and distinct hashes in one sub-range have distinct {@code R}.
 *
 * <h2>A block (format version 2)</h2>
 *
 * 1024 bits (16 words, two 64-byte cache lines; bits most significant first, as {@link #peek}
 * reads them). The header is the last word, so that a lookup's first two reads, the header and
 * the occupancy word of its sub-range, fetch both cache lines at once:
 *
 * <pre>
 * Block      := Content Padding Header                    if count != 1023  (the content fits)
 *             | spillAt:64 zero:832 SpilledHeader          (it does not)
 * Content    := Occupancy Excess Ties                      (256 + count + ties bits, at most 960)
 * Occupancy  := o(j):1 for j = 0 .. 255                    o(j) = 1 iff c(j) &gt;= 1, c(j) = keys
 *                                                          in sub-range j
 * Excess     := (1^(c(j) - 1) 0) for each j with c(j) &gt;= 1, in order      (count bits)
 * Ties       := Tie(j) for each j with c(j) &gt;= 2, in order
 * Tie(j)     := (0^D(i) 1) for i = 0 .. c(j) - 2           D(i) = leading bits shared by the
 *                                                          i-th and (i+1)-th R of the sub-range
 * Padding    := zero bits up to bit 960
 * Header     := base:16 count:10 midOccupied:8 midExcess:10 midTie:10 zero:10
 * SpilledHeader := base:16 1023:10 zero:38
 * Spilled    := count:32 midOccupied:32 midExcess:32 midTie:32 Content   (in the spill stream,
 *                                                          starting at word spillAt)
 * </pre>
 *
 * The middle fields let a lookup in the second half of the block (sub-ranges 128 to 255) start
 * there: {@code midOccupied} counts the non-empty sub-ranges among sub-ranges 0 to 127, {@code
 * midExcess} the ones of their Excess codes (their keys less {@code midOccupied}), and {@code
 * midTie} is the length of their tie codes. {@code base} is the rank of the block's first key less
 * that of the first key of its group of {@value #GROUP_BLOCKS} blocks; group ranks are summed from
 * the counts when the index is read. Spill records start on word boundaries, with zero bits
 * between them.
 *
 * <p>A lookup in sub-range {@code j} tests {@code o(j)} (an empty sub-range holds no member), counts
 * the ones of Occupancy before {@code j} ({@code r}), and finds the Excess code of {@code j} after
 * the {@code r}-th zero of Excess: the ones before it are the keys of the sub-ranges before {@code
 * j} beyond their first, and its ones are {@code c(j) - 1}. A tie code of {@code c} keys holds
 * {@code c - 1} one bits, so the tie code of {@code j} starts after as many one bits of Ties as
 * there are Excess ones before {@code j}. The {@code D} values form a Cartesian tree (the trie of
 * the sub-range): its minimum splits the keys into those with bit 0 at that depth of {@code R} and
 * those with bit 1.
 *
 * <p>Stateless and thread-safe.
 */
final class BlockedLayout {
  /** Bits per block: two 64-byte cache lines. */
  static final int BLOCK_BITS = 1024;
  static final int BLOCK_WORDS = BLOCK_BITS / 64;
  static final int BLOCK_WORD_SHIFT = 4;
  /** The word of a block that holds its header. */
  static final int HEADER_WORD = BLOCK_WORDS - 1;
  /** The word of a spilled block that holds its spill record's position. */
  static final int SPILL_AT_WORD = 0;
  /** Sub-ranges per block. */
  static final int SUB_RANGES = 256;
  static final int SUB_RANGE_SHIFT = 8;
  /** The Occupancy bitmap: one bit per sub-range, at the start of the content. */
  static final int OCCUPANCY_BITS = SUB_RANGES;
  /** The sub-range where the second half of a block starts (the header's middle fields). */
  static final int MIDDLE = SUB_RANGES / 2;
  static final int BASE_BITS = 16;
  private static final int COUNT_BITS = 10;
  private static final int MID_OCCUPIED_BITS = 8;
  private static final int MID_EXCESS_BITS = 10;
  private static final int MID_TIE_BITS = 10;
  private static final int COUNT_SHIFT = 64 - BASE_BITS - COUNT_BITS;
  private static final int MID_OCCUPIED_SHIFT = COUNT_SHIFT - MID_OCCUPIED_BITS;
  private static final int MID_EXCESS_SHIFT = MID_OCCUPIED_SHIFT - MID_EXCESS_BITS;
  private static final int MID_TIE_SHIFT = MID_EXCESS_SHIFT - MID_TIE_BITS;
  /** Content bits a block holds in place: all but the header word. */
  static final int INLINE_CONTENT_BITS = BLOCK_BITS - 64;
  /** The count field of a block whose content is in the spill stream. */
  static final int SPILLED = (1 << COUNT_BITS) - 1;
  /** Bits of each field of a spill record's header: count, midOccupied, midExcess, midTie. */
  static final int SPILLED_FIELD_BITS = 32;
  /** Words of a spill record before its content. */
  static final int SPILLED_HEADER_WORDS = 2;
  /** Blocks per group: a block's base is relative to its group's first rank. */
  static final int GROUP_SHIFT = 6;
  static final int GROUP_BLOCKS = 1 << GROUP_SHIFT;
  static final int MAX_RELATIVE_BASE = (1 << BASE_BITS) - 1;
  /** Distinct 128-bit places differ within 128 bits: no D is larger than this. */
  static final int MAX_DEPTH = 127;

  /**
   * Words before the first block of every storage chunk: with a 16-byte array header they put
   * blocks on 128-byte boundaries when the array starts on one (as large arrays do in G1).
   */
  static final int CHUNK_PAD_WORDS = 14;
  /** Blocks per storage chunk (2^23 blocks = 2^27 words). */
  static final int CHUNK_BLOCK_SHIFT = 23;
  static final long CHUNK_BLOCK_MASK = (1L << CHUNK_BLOCK_SHIFT) - 1;
  /**
   * Zero words after the last block of a chunk and after the spill stream, so that a lookup's
   * three-word search windows and the 64-bit peeks of a tie code (up to three words past its
   * start) stay inside the array.
   */
  static final int SPARE_WORDS = 4;

  private BlockedLayout() {}

  /** A block header (see the class doc); every field must fit its width. */
  static long header(long relativeBase, int count, int midOccupied, int midExcess, int midTie) {
    return relativeBase << (64 - BASE_BITS)
        | (long) count << COUNT_SHIFT
        | (long) midOccupied << MID_OCCUPIED_SHIFT
        | (long) midExcess << MID_EXCESS_SHIFT
        | (long) midTie << MID_TIE_SHIFT;
  }

  /** Whether a header can hold these values (the content fits in any case). */
  static boolean fitsHeader(int count, int midOccupied, int midExcess, int midTie) {
    return count < SPILLED
        && midOccupied < (1 << MID_OCCUPIED_BITS)
        && midExcess < (1 << MID_EXCESS_BITS)
        && midTie < (1 << MID_TIE_BITS);
  }

  static int base(long header) {
    return (int) (header >>> (64 - BASE_BITS));
  }

  static int count(long header) {
    return (int) (header >>> COUNT_SHIFT) & ((1 << COUNT_BITS) - 1);
  }

  static int midOccupied(long header) {
    return (int) (header >>> MID_OCCUPIED_SHIFT) & ((1 << MID_OCCUPIED_BITS) - 1);
  }

  static int midExcess(long header) {
    return (int) (header >>> MID_EXCESS_SHIFT) & ((1 << MID_EXCESS_BITS) - 1);
  }

  static int midTie(long header) {
    return (int) (header >>> MID_TIE_SHIFT) & ((1 << MID_TIE_BITS) - 1);
  }

  /** The bits of a header that no field uses, and of a spilled block's header beyond base and count. */
  static long strayBits(long header) {
    return count(header) == SPILLED
        ? header & ((1L << COUNT_SHIFT) - 1)
        : header & ((1L << MID_TIE_SHIFT) - 1);
  }

  /** The sub-range {@code Q} of hash {@code hi:lo} for multiplier {@code m} (see the class doc). */
  static long subRange(long hi, long lo, long m) {
    long low = hi * m;
    long high = unsignedMultiplyHigh(hi, m);
    long middle = low + unsignedMultiplyHigh(lo, m);
    return Long.compareUnsigned(middle, low) < 0 ? high + 1 : high;
  }

  /** The high word of {@code R}, the hash's place in its sub-range. */
  static long placeHigh(long hi, long lo, long m) {
    return hi * m + unsignedMultiplyHigh(lo, m);
  }

  /** The low word of {@code R}. */
  static long placeLow(long lo, long m) {
    return lo * m;
  }

  /** {@code floor(x * m / 2^64)} for unsigned {@code x} and {@code 0 < m < 2^63}. */
  static long unsignedMultiplyHigh(long x, long m) {
    return Math.multiplyHigh(x, m) + ((x >> 63) & m);
  }

  /** The multiplier {@code M} for {@code blockCount} blocks. */
  static long multiplier(long blockCount) {
    return blockCount << SUB_RANGE_SHIFT;
  }

  /** Bit {@code depth} (0 = most significant) of the 128-bit place {@code placeHi:placeLo}. */
  static int placeBit(long placeHi, long placeLo, int depth) {
    long word = depth < 64 ? placeHi : placeLo;
    return (int) (word >>> (63 - (depth & 63))) & 1;
  }

  /** Leading bits shared by two distinct places. */
  static int sharedDepth(long aHi, long aLo, long bHi, long bLo) {
    long x = aHi ^ bHi;
    return x != 0 ? Long.numberOfLeadingZeros(x) : 64 + Long.numberOfLeadingZeros(aLo ^ bLo);
  }

  /** The storage chunk of {@code block}. */
  static int chunkOf(long block) {
    return (int) (block >>> CHUNK_BLOCK_SHIFT);
  }

  /** The first word of {@code block} in its chunk. */
  static int wordInChunk(long block) {
    return CHUNK_PAD_WORDS + ((int) (block & CHUNK_BLOCK_MASK) << BLOCK_WORD_SHIFT);
  }

  /** The number of storage chunks of {@code blockCount} blocks. */
  static int chunkCount(long blockCount) {
    return (int) ((blockCount + CHUNK_BLOCK_MASK) >>> CHUNK_BLOCK_SHIFT);
  }

  /** The number of blocks in storage chunk {@code chunk} of {@code blockCount} blocks. */
  static int blocksInChunk(long blockCount, int chunk) {
    return (int) Math.min(1L << CHUNK_BLOCK_SHIFT, blockCount - ((long) chunk << CHUNK_BLOCK_SHIFT));
  }

  /** The first of the two spill-record header fields a 64-bit peek holds. */
  static long firstSpilledField(long twoFields) {
    return twoFields >>> SPILLED_FIELD_BITS;
  }

  /** The second of the two spill-record header fields a 64-bit peek holds. */
  static long secondSpilledField(long twoFields) {
    return twoFields & ((1L << SPILLED_FIELD_BITS) - 1);
  }

  /** The D of the tie code {@code 0^D 1} at bit {@code pos} (up to 127: two peeks at most). */
  static int depthAt(long[] words, long pos) {
    long word = peek(words, pos);
    return word != 0 ? Long.numberOfLeadingZeros(word) : 64 + Long.numberOfLeadingZeros(peek(words, pos + 64));
  }

  /** Words of a chunk holding {@code blocks} blocks: padding, blocks and spares for peeks. */
  static int chunkWords(int blocks) {
    return CHUNK_PAD_WORDS + (blocks << BLOCK_WORD_SHIFT) + SPARE_WORDS;
  }

  /**
   * The 64 bits of {@code words} starting at bit {@code bitPos}, most significant first; needs the
   * word after the one holding {@code bitPos} to exist (storage keeps a spare word at the end).
   */
  static long peek(long[] words, long bitPos) {
    int index = (int) (bitPos >>> 6);
    int shift = (int) bitPos & 63;
    // (next >>> 1) >>> (63 - shift) is next >>> (64 - shift) without a special case for shift 0.
    return (words[index] << shift) | ((words[index + 1] >>> 1) >>> (63 - shift));
  }

  /** Mask of the {@code k} most significant bits, {@code 0 <= k <= 64}. */
  static long topBits(int k) {
    return k == 0 ? 0 : -1L << (64 - k);
  }
}
