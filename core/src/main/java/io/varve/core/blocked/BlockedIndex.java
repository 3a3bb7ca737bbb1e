package io.varve.core.blocked;

import static io.varve.core.blocked.BlockedLayout.BLOCK_BITS;
import static io.varve.core.blocked.BlockedLayout.GROUP_SHIFT;
import static io.varve.core.blocked.BlockedLayout.HEADER_WORD;
import static io.varve.core.blocked.BlockedLayout.OCCUPANCY_BITS;
import static io.varve.core.blocked.BlockedLayout.SPILLED;
import static io.varve.core.blocked.BlockedLayout.SPILLED_HEADER_WORDS;
import static io.varve.core.blocked.BlockedLayout.SPILL_AT_WORD;
import static io.varve.core.blocked.BlockedLayout.SUB_RANGES;
import static io.varve.core.blocked.BlockedLayout.SUB_RANGE_SHIFT;
import static io.varve.core.blocked.BlockedLayout.peek;

import io.varve.core.format.CorruptStoreException;
import io.varve.core.index.RankIndex;
import io.varve.core.index.RecordPrefetcher;
import io.varve.core.succinct.Broadword;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Objects;

/**
 * A rank index that answers from one 128-byte block: it maps each member of a set of 128-bit
 * hashes to its rank (position in hash order) with {@code 1024 / keysPerBlock} bits per key plus a
 * small spill stream, reading one block (two
 * adjacent cache lines, both requested by the lookup's first two reads) and a small cached table
 * per lookup, and decoding with population counts and {@link Broadword#select} instead of walking
 * a trie bit by bit. A hash whose sub-range is empty (about 30% of non-members) is turned away by
 * one bit of the block's occupancy bitmap. Where the {@link io.varve.core.ect.EctIndex ECT index}
 * spends fewer bits (at large bucket sizes) and several dependent reads and decoding steps, this one trades
 * about one bit per key for speed. Built by {@link BlockedIndexBuilder}; the bit layout is in
 * {@link BlockedLayout} and {@code docs/FORMAT.md}.
 *
 * <pre>{@code
 * BlockedIndexBuilder builder = BlockedIndex.builder(n, BlockedIndexParameters.DEFAULT);
 * for (...) builder.add(hi, lo);        // strictly increasing unsigned 128-bit order
 * BlockedIndex index = builder.finish();
 * long rank = index.rank(hi, lo);       // exact for members
 * }</pre>
 *
 * <h2>Serialized form</h2>
 *
 * {@link #writeTo} and {@link #readFrom} write and read the layout {@link BlockedIndexFormat} owns
 * (header with the knob, blocks, spill stream, CRC32C footer).
 *
 * <p>Reading validates every block (counts, sub-range codes, tie codes, bases, spill pointers)
 * besides the checksum, so that lookups never read outside the index whatever the input.
 *
 * <p>Instances are immutable and thread-safe: lookups allocate nothing and may run from any number
 * of threads.
 */
public final class BlockedIndex implements RankIndex {
  /** The {@code flip} of {@link #after} that makes it count ones, resp. zeros. */
  private static final long ONES = 0;
  private static final long ZEROS = -1;

  private final BlockedIndexParameters parameters;
  private final long keyCount;
  private final long blockCount;
  private final long multiplier;
  private final long[][] chunks;
  private final long[] spill;
  private final long spillBits;
  /** The rank of the first key of each group of 64 blocks. */
  private final long[] groupBase;
  /**
   * Each block's first rank relative to its group's (a copy of its header's field, chunked like
   * the blocks), so that a lookup can guess its record's rank before its block arrives.
   */
  private final char[][] blockBases;
  private final long spilledBlocks;

  private BlockedIndex(
      BlockedIndexParameters parameters,
      long keyCount,
      long blockCount,
      long[][] chunks,
      long[] spill,
      long spillBits,
      long[] groupBase,
      long spilledBlocks) {
    this.parameters = parameters;
    this.keyCount = keyCount;
    this.blockCount = blockCount;
    this.multiplier = BlockedLayout.multiplier(blockCount);
    this.chunks = chunks;
    this.spill = spill;
    this.spillBits = spillBits;
    this.groupBase = groupBase;
    this.spilledBlocks = spilledBlocks;
    this.blockBases = new char[chunks.length][];
    for (int c = 0; c < chunks.length; c++) {
      blockBases[c] = new char[BlockedLayout.blocksInChunk(blockCount, c)];
      long firstBlock = (long) c << BlockedLayout.CHUNK_BLOCK_SHIFT;
      for (int b = 0; b < blockBases[c].length; b++) {
        blockBases[c][b] = (char) BlockedLayout.base(chunks[c][BlockedLayout.wordInChunk(firstBlock + b) + HEADER_WORD]);
      }
    }
  }

  /** Starts building an index over exactly {@code keyCount} hashes. */
  public static BlockedIndexBuilder builder(long keyCount, BlockedIndexParameters parameters) {
    return new BlockedIndexBuilder(keyCount, true, parameters);
  }

  /**
   * Starts building an index over at most {@code maxKeyCount} hashes, for when the count is known
   * only at the end (a merge that drops keys): blocks are sized for {@code maxKeyCount}, so each key
   * missing makes the index a little less compact.
   */
  public static BlockedIndexBuilder builderUpTo(long maxKeyCount, BlockedIndexParameters parameters) {
    return new BlockedIndexBuilder(maxKeyCount, false, parameters);
  }

  /** Validates freshly built or freshly read parts and assembles the index. */
  static BlockedIndex validated(
      BlockedIndexParameters parameters,
      long keyCount,
      long blockCount,
      long[][] chunks,
      long[] spill,
      long spillBits) {
    BlockValidator validator = new BlockValidator(chunks, spill, spillBits);
    long[] groupBase = validator.validate(keyCount, blockCount);
    return new BlockedIndex(
        parameters, keyCount, blockCount, chunks, spill, spillBits, groupBase, validator.spilledBlocks());
  }

  /** The number of indexed hashes. */
  @Override
  public long size() {
    return keyCount;
  }

  /** The parameters the index was built with. */
  @Override
  public BlockedIndexParameters parameters() {
    return parameters;
  }

  /** The number of 1024-bit blocks. */
  public long blockCount() {
    return blockCount;
  }

  /** Blocks whose content did not fit and sits in the spill stream (a second read for their keys). */
  public long spilledBlocks() {
    return spilledBlocks;
  }

  /** Bits of the spill stream. */
  public long spillBits() {
    return spillBits;
  }

  /** Bits of the blocks plus the spill stream. */
  @Override
  public long encodedBits() {
    return blockCount * BLOCK_BITS + spillBits;
  }

  /** Index bits per key as stored: blocks plus spill stream. */
  @Override
  public double bitsPerKey() {
    return keyCount == 0 ? 0 : (double) encodedBits() / keyCount;
  }

  /** Bytes of heap held by this index (blocks, spill stream, group table and block bases). */
  @Override
  public long ramBytesUsed() {
    long bytes = 72 + 16 + 8L * groupBase.length + 16 + 8L * spill.length + 2 * (16 + 8L * chunks.length);
    for (long[] chunk : chunks) {
      bytes += 16 + 8L * chunk.length;
    }
    for (char[] bases : blockBases) {
      bytes += 16 + 2L * bases.length;
    }
    return bytes;
  }

  /**
   * Returns the rank (position in hash order) of the hash {@code hi:lo}. Exact for member hashes;
   * for any other hash returns -1 when it is certainly absent (its sub-range is empty), else some
   * value in {@code [0, size())}: the caller confirms the record it finds there.
   */
  @Override
  public long rank(long hi, long lo) {
    return rankInSubRange(hi, lo, BlockedLayout.subRange(hi, lo, multiplier));
  }

  /** {@link #rank(long, long)} of the hash {@code hi:lo}, whose sub-range is {@code subRange}. */
  private long rankInSubRange(long hi, long lo, long subRange) {
    long m = multiplier;
    long placeHi = BlockedLayout.placeHigh(hi, lo, m);
    long placeLo = BlockedLayout.placeLow(lo, m);
    long block = subRange >>> SUB_RANGE_SHIFT;
    long[] words = chunks[BlockedLayout.chunkOf(block)];
    int first = BlockedLayout.wordInChunk(block);
    long header = words[first + HEADER_WORD];
    long base = groupBase[(int) (block >>> GROUP_SHIFT)] + BlockedLayout.base(header);
    int count = BlockedLayout.count(header);
    long inBlock;
    if (count != SPILLED) {
      inBlock =
          rankInContent(
              words,
              first,
              count,
              BlockedLayout.midOccupied(header),
              BlockedLayout.midExcess(header),
              BlockedLayout.midTie(header),
              (int) subRange & (SUB_RANGES - 1),
              placeHi,
              placeLo);
    } else {
      inBlock = rankInSpill((int) words[first + SPILL_AT_WORD], (int) subRange & (SUB_RANGES - 1), placeHi, placeLo);
    }
    return inBlock < 0 ? -1 : base + inBlock;
  }

  /**
   * {@link #rank(long, long)}, telling {@code prefetcher} a member's probable rank before the block
   * is read: interpolated from the hash's sub-range between its block's first rank and the next
   * block's (held in memory apart from the blocks), so that the record's cache and TLB misses
   * overlap the block's.
   */
  @Override
  public long rank(long hi, long lo, RecordPrefetcher prefetcher) {
    if (keyCount == 0) {
      return rank(hi, lo);
    }
    long subRange = BlockedLayout.subRange(hi, lo, multiplier);
    long block = subRange >>> SUB_RANGE_SHIFT;
    long first = firstRank(block);
    long keys = (block + 1 < blockCount ? firstRank(block + 1) : keyCount) - first;
    long expected = first + ((keys * (subRange & (SUB_RANGES - 1))) >>> SUB_RANGE_SHIFT);
    long touched = prefetcher.prefetch(Math.min(expected, keyCount - 1));
    long rank = rankInSubRange(hi, lo, subRange);
    if (touched == TOUCH_SENTINEL && rank < -1) {
      throw new AssertionError("never: ranks are at least -1");
    }
    return rank;
  }

  /** Lookups of {@link #rank(long[], long[], long[], int, int)} whose block reads are issued together. */
  private static final int BATCH = 16;

  /**
   * Ranks many hashes: {@code ranks[i] = rank(hi[i], lo[i])} for {@code i} in {@code [from, to)}.
   * Lookups go in groups of {@value #BATCH} whose blocks (both cache lines of each) are read before
   * any is decoded, so that their cache misses overlap instead of following one another.
   */
  @Override
  public void rank(long[] hi, long[] lo, long[] ranks, int from, int to) {
    Objects.checkFromToIndex(from, to, Math.min(hi.length, Math.min(lo.length, ranks.length)));
    long touched = 0;
    for (int start = from; start < to; start += BATCH) {
      int end = Math.min(to, start + BATCH);
      for (int i = start; i < end; i++) {
        long block = BlockedLayout.subRange(hi[i], lo[i], multiplier) >>> SUB_RANGE_SHIFT;
        long[] words = chunks[BlockedLayout.chunkOf(block)];
        int first = BlockedLayout.wordInChunk(block);
        touched += words[first] ^ words[first + HEADER_WORD];
      }
      for (int i = start; i < end; i++) {
        ranks[i] = rank(hi[i], lo[i]);
      }
    }
    if (touched == TOUCH_SENTINEL && to < from) {
      throw new AssertionError("never: to >= from was checked");
    }
  }

  /** The rank of the first key of {@code block} (of the next key when it is empty). */
  private long firstRank(long block) {
    return groupBase[(int) (block >>> GROUP_SHIFT)]
        + blockBases[BlockedLayout.chunkOf(block)][(int) (block & BlockedLayout.CHUNK_BLOCK_MASK)];
  }

  /** Any value: compared with what a prefetcher read only so that the JIT keeps the reads. */
  private static final long TOUCH_SENTINEL = 0x5EED_0F_7041L;

  /**
   * About half the square root of the keys per block: the deviation of a binomial count over a
   * block, about 9 ranks at the default 300 keys per block.
   */
  @Override
  public double guessError() {
    return Math.sqrt(Math.min(keyCount, parameters.keysPerBlock())) / 2;
  }

  /** {@link #rankInContent} for a spilled block whose record starts at word {@code at} of the spill stream. */
  private long rankInSpill(int at, int subRange, long placeHi, long placeLo) {
    long fields = spill[at];
    long moreFields = spill[at + 1];
    return rankInContent(
        spill,
        at + SPILLED_HEADER_WORDS,
        (int) BlockedLayout.firstSpilledField(fields),
        (int) BlockedLayout.secondSpilledField(fields),
        (int) BlockedLayout.firstSpilledField(moreFields),
        (int) BlockedLayout.secondSpilledField(moreFields),
        subRange,
        placeHi,
        placeLo);
  }

  /**
   * The rank within its block of a hash in sub-range {@code subRange} whose place is {@code
   * placeHi:placeLo}, given the block's content at word {@code content} of {@code words} and its
   * header fields; -1 if the sub-range is empty.
   */
  private static long rankInContent(
      long[] words,
      int content,
      int count,
      int midOccupied,
      int midExcess,
      int midTie,
      int subRange,
      long placeHi,
      long placeLo) {
    long occupancy = words[content + (subRange >>> 6)];
    int inWord = subRange & 63;
    if ((occupancy << inWord) >= 0) {
      return -1;
    }
    // All ones when the sub-range is in the block's second half, whose codes start at the middle.
    int second = -(subRange >>> 7);
    int occupiedBefore =
        (Long.bitCount(words[content + ((subRange >>> 7) << 1)]) & -((subRange >>> 6) & 1))
            + Long.bitCount(occupancy & ~(-1L >>> inWord));
    long excessStart = ((long) content << 6) + OCCUPANCY_BITS;
    long excess = excessStart + (second & (midOccupied + midExcess));
    long code = after(words, excess, occupiedBefore, ZEROS);
    int excessBefore = (int) (code - excess) - occupiedBefore;
    long keysBefore = occupiedBefore + excessBefore + (second & (midOccupied + midExcess));
    int ties = Long.numberOfLeadingZeros(~peek(words, code));
    if (ties == 0) {
      return keysBefore;
    }
    if (ties == 64) {
      ties = countOnes(words, code);
    }
    long tie = after(words, excessStart + count + (second & midTie), excessBefore, ONES);
    return keysBefore + rankAmongTies(words, tie, ties + 1, placeHi, placeLo);
  }

  /**
   * The rank among the {@code keys} keys of its sub-range (at least 2) of the place {@code
   * placeHi:placeLo}, from the sub-range's tie code at bit {@code tie}.
   */
  private static int rankAmongTies(long[] words, long tie, int keys, long placeHi, long placeLo) {
    if (keys > 3) {
      return descend(words, tie, keys, placeHi, placeLo);
    }
    // Two or three keys, told apart without a branch: their mix is unpredictable, and a
    // mispredicted branch here would discard the next lookups' work in flight.
    int depth = BlockedLayout.depthAt(words, tie);
    int bit = BlockedLayout.placeBit(placeHi, placeLo, depth);
    int nextDepth = BlockedLayout.depthAt(words, tie + depth + 1);
    int nextBit = BlockedLayout.placeBit(placeHi, placeLo, nextDepth);
    // Three keys: the smaller of the two (distinct) depths splits them first.
    int firstSplits = (depth - nextDepth) >> 31;
    int three = ((bit + (bit & nextBit)) & firstSplits) | ((nextBit + (nextBit | bit)) & ~firstSplits);
    int twoKeys = (keys - 3) >> 31;
    return (bit & twoKeys) | (three & ~twoKeys);
  }

  /**
   * The position just after the {@code count}-th one bit of {@code words ^ flip} at or after bit
   * {@code from} ({@code from} if {@code count} is 0); {@code flip} is 0 to count ones, -1 to count
   * zeros. The three words from {@code from} are searched without a branch, since a loop's trip
   * count would be mispredicted on most lookups; farther positions, rare in a half block, are
   * scanned.
   */
  private static long after(long[] words, long from, int count, long flip) {
    // A one put at from - 1 (content never starts at bit 0) makes count = 0 no special case.
    long virtual = from - 1;
    int index = (int) (virtual >>> 6);
    int shift = (int) virtual & 63;
    long w0 = ((words[index] ^ flip) & (-1L >>> shift)) | (Long.MIN_VALUE >>> shift);
    long w1 = words[index + 1] ^ flip;
    long w2 = words[index + 2] ^ flip;
    int left = count + 1;
    int in0 = Long.bitCount(w0);
    int in01 = in0 + Long.bitCount(w1);
    if (in01 + Long.bitCount(w2) < left) {
      return afterScanning(words, index, w0, left, flip);
    }
    // All ones when the wanted bit lies past word 0, resp. past word 1.
    int past0 = (in0 - left) >> 31;
    int past1 = (in01 - left) >> 31;
    long word = (w0 & ~past0) | (w1 & past0 & ~past1) | (w2 & past1);
    left -= (in0 & past0 & ~past1) | (in01 & past1);
    index -= past0 + past1;
    return ((long) index << 6) + Broadword.selectFromMsb(word, left) + 1;
  }

  /** {@link #after} past its three-word window: word after word from {@code first} at {@code index}. */
  private static long afterScanning(long[] words, int index, long first, int left, long flip) {
    long word = first;
    int found = Long.bitCount(word);
    while (found < left) {
      left -= found;
      word = words[++index] ^ flip;
      found = Long.bitCount(word);
    }
    return ((long) index << 6) + Broadword.selectFromMsb(word, left) + 1;
  }

  /**
   * Walks the Cartesian tree of the tie code at {@code tie} (the trie of a sub-range of {@code
   * keys} keys): the smallest shared depth splits the keys by the bit of the place at that depth.
   */
  private static int descend(long[] words, long tie, int keys, long placeHi, long placeLo) {
    int low = 0;
    int high = keys - 1;
    long lowCode = tie;
    while (low < high) {
      long pos = lowCode;
      int splitDepth = Integer.MAX_VALUE;
      int split = low;
      long afterSplit = lowCode;
      for (int i = low; i < high; i++) {
        int depth = BlockedLayout.depthAt(words, pos);
        pos += depth + 1;
        if (depth < splitDepth) {
          splitDepth = depth;
          split = i;
          afterSplit = pos;
        }
      }
      if (BlockedLayout.placeBit(placeHi, placeLo, splitDepth) == 0) {
        high = split;
      } else {
        low = split + 1;
        lowCode = afterSplit;
      }
    }
    return low;
  }

  /** The length of the run of ones at bit {@code pos} (at least 64). */
  private static int countOnes(long[] words, long pos) {
    int ones = 0;
    long word;
    while ((word = peek(words, pos)) == -1L) {
      ones += 64;
      pos += 64;
    }
    return ones + Long.numberOfLeadingZeros(~word);
  }

  /** The number of bytes {@link #writeTo} writes. */
  @Override
  public long serializedBytes() {
    return BlockedIndexFormat.serializedBytes(this);
  }

  /** Writes the serialized form ({@link BlockedIndexFormat}); does not close {@code out}. */
  @Override
  public void writeTo(OutputStream out) throws IOException {
    BlockedIndexFormat.write(this, out);
  }

  /**
   * Reads an index written by {@link #writeTo}, validating its header, every block and its checksum.
   *
   * @throws CorruptStoreException on damaged, truncated or foreign input
   */
  public static BlockedIndex readFrom(InputStream in) throws IOException {
    return BlockedIndexFormat.read(in);
  }

  /** The blocks, in chunks (shared, not copied: for the format's writer). */
  long[][] chunks() {
    return chunks;
  }

  /** The spill stream's words (shared, not copied: for the format's writer). */
  long[] spill() {
    return spill;
  }
}
