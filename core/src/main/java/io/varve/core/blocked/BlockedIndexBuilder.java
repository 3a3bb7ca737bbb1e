package io.varve.core.blocked;

import static io.varve.core.blocked.BlockedLayout.BLOCK_WORDS;
import static io.varve.core.blocked.BlockedLayout.GROUP_BLOCKS;
import static io.varve.core.blocked.BlockedLayout.HEADER_WORD;
import static io.varve.core.blocked.BlockedLayout.INLINE_CONTENT_BITS;
import static io.varve.core.blocked.BlockedLayout.MAX_RELATIVE_BASE;
import static io.varve.core.blocked.BlockedLayout.MIDDLE;
import static io.varve.core.blocked.BlockedLayout.OCCUPANCY_BITS;
import static io.varve.core.blocked.BlockedLayout.SPILLED;
import static io.varve.core.blocked.BlockedLayout.SPILLED_FIELD_BITS;
import static io.varve.core.blocked.BlockedLayout.SPILL_AT_WORD;
import static io.varve.core.blocked.BlockedLayout.SUB_RANGES;
import static io.varve.core.blocked.BlockedLayout.SUB_RANGE_SHIFT;

import io.varve.core.bits.BitWriter;
import io.varve.core.bits.LongBigArray;
import io.varve.core.ect.HashFedIndexBuilder;
import java.util.Arrays;

/**
 * Builds a {@link BlockedIndex} from hashes fed in strictly increasing unsigned 128-bit order,
 * holding one block's keys at a time.
 *
 * <pre>{@code
 * BlockedIndexBuilder builder = BlockedIndex.builder(n, BlockedIndexParameters.DEFAULT);
 * for (int i = 0; i < n; i++) {
 *   builder.add(sortedHi[i], sortedLo[i]);
 * }
 * BlockedIndex index = builder.finish();
 * }</pre>
 *
 * <p>Use in that order: {@link #add} exactly {@code keyCount} times (or at most {@code maxKeyCount}
 * for {@link BlockedIndex#builderUpTo}), then {@link #finish()} once. Not thread-safe.
 */
public final class BlockedIndexBuilder extends HashFedIndexBuilder {
  private final BlockedIndexParameters parameters;
  private final long blockCount;
  private final long multiplier;
  private final long[][] chunks;
  private final BitWriter spill = new BitWriter();
  /** The block's content (Occupancy, Excess, Ties), most significant bit first, and its length in bits. */
  private long[] content = new long[BLOCK_WORDS + 2];
  private long contentBits;

  /** The block being filled, and its keys' sub-ranges and places. */
  private long block;
  private int pending;
  private int[] subRanges = new int[512];
  private long[] placeHi = new long[512];
  private long[] placeLo = new long[512];
  private final int[] perSubRange = new int[SUB_RANGES];
  /** The block's middle fields (see {@link BlockedLayout}). */
  private int midOccupied;
  private int midExcess;
  private int midTie;

  private long groupBase;
  private long nextBlockBase;

  BlockedIndexBuilder(long keyCount, boolean exactCount, BlockedIndexParameters parameters) {
    super(keyCount, exactCount);
    if (parameters == null) {
      throw new IllegalArgumentException("parameters must not be null");
    }
    this.parameters = parameters;
    this.blockCount = parameters.blockCount(keyCount);
    this.multiplier = BlockedLayout.multiplier(blockCount);
    this.chunks = new long[BlockedLayout.chunkCount(blockCount)][];
    for (int c = 0; c < chunks.length; c++) {
      chunks[c] = new long[BlockedLayout.chunkWords(BlockedLayout.blocksInChunk(blockCount, c))];
    }
  }

  /**
   * Adds the next hash.
   *
   * @throws io.varve.core.ect.DuplicateHashException if it equals the previous one
   * @throws IllegalArgumentException if it is smaller than the previous one ("hashes do not come in
   *     order")
   * @throws IllegalStateException after {@link #finish()}, or past the declared key count
   * @throws CrowdedHashesException when too many hashes fall in one group of blocks
   */
  @Override
  public void add(long hi, long lo) {
    feed.accept(hi, lo);
    long subRange = BlockedLayout.subRange(hi, lo, multiplier);
    long keyBlock = subRange >>> SUB_RANGE_SHIFT;
    while (block < keyBlock) {
      writeBlock();
    }
    if (pending == subRanges.length) {
      int grown = pending * 2;
      subRanges = Arrays.copyOf(subRanges, grown);
      placeHi = Arrays.copyOf(placeHi, grown);
      placeLo = Arrays.copyOf(placeLo, grown);
    }
    subRanges[pending] = (int) subRange & (SUB_RANGES - 1);
    placeHi[pending] = BlockedLayout.placeHigh(hi, lo, multiplier);
    placeLo[pending] = BlockedLayout.placeLow(lo, multiplier);
    pending++;
  }

  /**
   * Writes the last blocks and returns the index.
   *
   * @throws IllegalStateException if called twice, or if fewer hashes than declared were added to
   *     an exact-count builder
   */
  @Override
  public BlockedIndex finish() {
    feed.finish();
    while (block < blockCount) {
      writeBlock();
    }
    long spillBits = spill.bitLength();
    long[] spillWords = spillWords(spill.toWords(), spillBits);
    return BlockedIndex.validated(parameters, feed.accepted(), blockCount, chunks, spillWords, spillBits);
  }

  private static long[] spillWords(LongBigArray words, long bits) {
    long needed = ((bits + 63) >>> 6) + BlockedLayout.SPARE_WORDS;
    if (needed > Integer.MAX_VALUE - 8) {
      throw new CrowdedHashesException(
          "the blocks' spill stream exceeds 2^31 words: the hashes crowd a few blocks instead of spreading over them");
    }
    long[] out = new long[(int) needed];
    for (int i = 0; i < out.length && i < words.length(); i++) {
      out[i] = words.get(i);
    }
    return out;
  }

  /** Encodes the pending keys as block {@code block} and moves to the next block. */
  private void writeBlock() {
    if ((block & (GROUP_BLOCKS - 1)) == 0) {
      groupBase = nextBlockBase;
    }
    long relativeBase = nextBlockBase - groupBase;
    if (relativeBase > MAX_RELATIVE_BASE) {
      throw new CrowdedHashesException(
          "more than " + MAX_RELATIVE_BASE + " keys fall in one group of " + GROUP_BLOCKS + " blocks (about "
              + GROUP_BLOCKS * (long) parameters.keysPerBlock() + " expected): the hashes crowd one part of their range");
    }
    encodeContent();
    long[] words = chunks[BlockedLayout.chunkOf(block)];
    int first = BlockedLayout.wordInChunk(block);
    int contentWords = (int) ((contentBits + 63) >>> 6);
    if (contentBits <= INLINE_CONTENT_BITS && BlockedLayout.fitsHeader(pending, midOccupied, midExcess, midTie)) {
      System.arraycopy(content, 0, words, first, contentWords);
      words[first + HEADER_WORD] = BlockedLayout.header(relativeBase, pending, midOccupied, midExcess, midTie);
    } else {
      words[first + HEADER_WORD] = BlockedLayout.header(relativeBase, SPILLED, 0, 0, 0);
      spill.writeZeros(-spill.bitLength() & 63); // records start on word boundaries
      words[first + SPILL_AT_WORD] = spill.bitLength() >>> 6;
      spill.write(pending, SPILLED_FIELD_BITS);
      spill.write(midOccupied, SPILLED_FIELD_BITS);
      spill.write(midExcess, SPILLED_FIELD_BITS);
      spill.write(midTie, SPILLED_FIELD_BITS);
      long remaining = contentBits;
      for (int w = 0; remaining > 0; w++) {
        int width = (int) Math.min(64, remaining);
        spill.write(content[w] >>> (64 - width), width);
        remaining -= width;
      }
    }
    nextBlockBase += pending;
    pending = 0;
    block++;
  }

  /**
   * Writes the pending keys' Occupancy, Excess and Ties (see {@link BlockedLayout}) into {@code
   * content} and sets the middle fields.
   */
  private void encodeContent() {
    Arrays.fill(content, 0, (int) Math.min(content.length, (contentBits + 63) >>> 6), 0L);
    contentBits = 0;
    Arrays.fill(perSubRange, 0);
    for (int i = 0; i < pending; i++) {
      perSubRange[subRanges[i]]++;
    }
    midOccupied = 0;
    midExcess = 0;
    for (int j = 0; j < SUB_RANGES; j++) {
      if (perSubRange[j] > 0) {
        content[j >>> 6] |= Long.MIN_VALUE >>> (j & 63);
        if (j < MIDDLE) {
          midOccupied++;
          midExcess += perSubRange[j] - 1;
        }
      }
    }
    contentBits = OCCUPANCY_BITS;
    for (int j = 0; j < SUB_RANGES; j++) {
      if (perSubRange[j] > 0) {
        writeOnes(perSubRange[j] - 1);
        contentBits++;
      }
    }
    long tiesStart = contentBits;
    midTie = -1;
    for (int i = 1; i < pending; i++) {
      if (subRanges[i] >= MIDDLE && midTie < 0) {
        midTie = (int) (contentBits - tiesStart);
      }
      if (subRanges[i] == subRanges[i - 1]) {
        int depth = BlockedLayout.sharedDepth(placeHi[i - 1], placeLo[i - 1], placeHi[i], placeLo[i]);
        contentBits += depth;
        writeOnes(1);
      }
    }
    if (midTie < 0) {
      midTie = (int) (contentBits - tiesStart);
    }
  }

  private void writeOnes(long count) {
    long end = contentBits + count;
    long neededWords = (end + 63) >>> 6;
    if (neededWords + 1 > content.length) {
      content = Arrays.copyOf(content, (int) Math.max(neededWords + 1, content.length * 2L));
    }
    while (contentBits < end) {
      int index = (int) (contentBits >>> 6);
      int used = (int) contentBits & 63;
      int width = (int) Math.min(64 - used, end - contentBits);
      long ones = width == 64 ? -1L : ((1L << width) - 1) << (64 - used - width);
      content[index] |= ones;
      contentBits += width;
    }
  }
}
