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
 * <h2>A block</h2>
 *
 * 1024 bits (16 words, bits most significant first, as {@link #peek} reads them):
 *
 * <pre>
 * Block    := Header Content Padding                     if count != 1023  (the content fits)
 *           | base:16 1023:10 zero:38 spillAt:64 zero:896                  (it does not)
 * Header   := base:16 count:10 midKeys:10 midNonEmpty:8 midTie:10 zero:10
 * Content  := Unary Ties                                 (256 + count + ties bits, at most 960)
 * Unary    := (1^c(j) 0) for j = 0 .. 255                c(j) = keys in sub-range j
 * Ties     := Tie(j) for each j with c(j) &gt;= 2, in order
 * Tie(j)   := (0^D(i) 1) for i = 0 .. c(j) - 2           D(i) = leading bits shared by the
 *                                                         i-th and (i+1)-th R of the sub-range
 * Padding  := zero bits up to bit 1024
 * Spilled  := count:32 midKeys:32 midNonEmpty:32 midTie:32 Content   (spill stream, at spillAt)
 * </pre>
 *
 * The middle fields let a lookup in the second half of the block start there: {@code midKeys} and
 * {@code midNonEmpty} count the keys and the non-empty sub-ranges among sub-ranges 0 to 127, and
 * {@code midTie} is the length of their tie codes.
 *
 * {@code base} is the rank of the block's first key less that of the first key of its group of
 * {@value #GROUP_BLOCKS} blocks; group ranks are summed from the counts when the index is read.
 *
 * <p>A tie code of {@code c} keys holds {@code c - 1} one bits, so the tie code of sub-range
 * {@code j} starts after the {@code (keys before j) - (non-empty sub-ranges before j)}-th one bit
 * of {@code Ties}: a lookup finds it with population counts, without decoding the codes before
 * it. The {@code D} values form a Cartesian tree (the trie of the sub-range): its minimum splits
 * the keys into those with bit 0 at that depth of {@code R} and those with bit 1.
 *
 * <p>Stateless and thread-safe.
 */
final class BlockedLayout {
  /** Bits per block: two 64-byte cache lines. */
  static final int BLOCK_BITS = 1024;
  static final int BLOCK_WORDS = BLOCK_BITS / 64;
  static final int BLOCK_WORD_SHIFT = 4;
  /** Sub-ranges per block. */
  static final int SUB_RANGES = 256;
  static final int SUB_RANGE_SHIFT = 8;
  /** The sub-range where the second half of a block starts (the header's middle fields). */
  static final int MIDDLE = SUB_RANGES / 2;
  static final int HEADER_BITS = 64;
  static final int BASE_BITS = 16;
  private static final int COUNT_BITS = 10;
  private static final int MID_KEYS_BITS = 10;
  private static final int MID_NON_EMPTY_BITS = 8;
  private static final int MID_TIE_BITS = 10;
  private static final int COUNT_SHIFT = 64 - BASE_BITS - COUNT_BITS;
  private static final int MID_KEYS_SHIFT = COUNT_SHIFT - MID_KEYS_BITS;
  private static final int MID_NON_EMPTY_SHIFT = MID_KEYS_SHIFT - MID_NON_EMPTY_BITS;
  private static final int MID_TIE_SHIFT = MID_NON_EMPTY_SHIFT - MID_TIE_BITS;
  /** Content bits a block holds in place. */
  static final int INLINE_CONTENT_BITS = BLOCK_BITS - HEADER_BITS;
  /** The count field of a block whose content is in the spill stream. */
  static final int SPILLED = (1 << COUNT_BITS) - 1;
  /** Bits of each field of a spill record's header: count, midKeys, midNonEmpty, midTie. */
  static final int SPILLED_FIELD_BITS = 32;
  static final int SPILLED_HEADER_BITS = 4 * SPILLED_FIELD_BITS;
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
   * Zero words after the last block of a chunk and after the spill stream, so that a 64-bit peek
   * at any bit of the data, and at the 64 bits after it, stays inside the array.
   */
  static final int SPARE_WORDS = 2;

  private BlockedLayout() {}

  /** A block header (see the class doc); every field must fit its width. */
  static long header(long relativeBase, int count, int midKeys, int midNonEmpty, int midTie) {
    return relativeBase << (64 - BASE_BITS)
        | (long) count << COUNT_SHIFT
        | (long) midKeys << MID_KEYS_SHIFT
        | (long) midNonEmpty << MID_NON_EMPTY_SHIFT
        | (long) midTie << MID_TIE_SHIFT;
  }

  /** Whether the middle fields of a block can hold these values (the content fits in any case). */
  static boolean fitsHeader(int count, int midKeys, int midNonEmpty, int midTie) {
    return count < SPILLED
        && midKeys < (1 << MID_KEYS_BITS)
        && midNonEmpty < (1 << MID_NON_EMPTY_BITS)
        && midTie < (1 << MID_TIE_BITS);
  }

  static int base(long header) {
    return (int) (header >>> (64 - BASE_BITS));
  }

  static int count(long header) {
    return (int) (header >>> COUNT_SHIFT) & ((1 << COUNT_BITS) - 1);
  }

  static int midKeys(long header) {
    return (int) (header >>> MID_KEYS_SHIFT) & ((1 << MID_KEYS_BITS) - 1);
  }

  static int midNonEmpty(long header) {
    return (int) (header >>> MID_NON_EMPTY_SHIFT) & ((1 << MID_NON_EMPTY_BITS) - 1);
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
