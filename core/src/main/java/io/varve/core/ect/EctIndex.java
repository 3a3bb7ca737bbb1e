package io.varve.core.ect;

import io.varve.core.bits.LongBigArray;
import io.varve.core.bits.LongWords;
import io.varve.core.codes.TrieCodes;
import io.varve.core.format.CorruptStoreException;
import io.varve.core.index.RankIndex;
import io.varve.core.index.RecordPrefetcher;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Objects;

/**
 * An entropy-coded-trie (ECT) index over a set of 128-bit hashes kept in hash order: it maps each
 * member hash to its rank (its position in hash order) using a few bits per key (fewer as {@code
 * g} grows; the README's index results give them as measured), or, in sparse mode, to the block
 * holding it using well under one bit per key. Built by
 * {@link EctIndexBuilder}.
 *
 * <h2>Structure</h2>
 *
 * Hashes are grouped into {@code m = ceil(n / g)} virtual buckets (see {@link VirtualBuckets}).
 * Each bucket's keys form a binary trie over the 128-bit key {@code (hi * m mod 2^64) : lo},
 * with subtries that hold at most one key cut off (and, in sparse mode, subtries whose keys lie
 * in one block). A bucket's trie {@code T} with {@code c = |T|} keys is written in pre-order:
 *
 * <pre>
 * Rep(T)  := (empty)                                           if c &lt;= 1 (or pruned)
 *          | Code(c, 0) Rep(T')                                if all keys take one side: T' is that side
 *          | Code(c, |Left(T)|) Skip? Rep(Left(T)) Rep(Right(T)) otherwise
 * Skip    := SkipCode(|Left(T)|, bits of Rep(Left(T)))         iff depth(T) &lt; skipLevels and |Left(T)| &gt;= 2
 * </pre>
 *
 * where {@code Code} is defined by {@link TrieCodes}, {@code SkipCode} by {@link SkipLengthCode},
 * and {@code depth(T)} counts the key bits above {@code T} (one-sided nodes included). The {@link BucketDirectory} gives, for each
 * bucket, the rank of its first key and the bit offset of its trie.
 *
 * <h2>Serialized form</h2>
 *
 * {@link #writeTo} and {@link #readFrom} write and read the layout {@link EctIndexFormat} owns
 * (header with the knobs, {@link BucketDirectory}, trie words, CRC32C footer).
 *
 * <p>Instances are immutable and thread-safe: single lookups allocate nothing and may run from any
 * number of threads.
 */
public final class EctIndex implements RankIndex {
  /** Distinct 128-bit keys differ within 128 bits, so no valid trie path is longer. */
  static final int MAX_DEPTH = 128;
  /** Trie bits per storage chunk; no bucket's trie crosses a chunk or uses a chunk's last word. */
  private static final int CHUNK_BIT_SHIFT = LongBigArray.CHUNK_SHIFT + 6;
  private static final long CHUNK_BIT_MASK = (1L << CHUNK_BIT_SHIFT) - 1;
  /** Lookups whose memory reads {@link #rank(long[], long[], long[], int, int)} overlaps. */
  static final int BATCH = 16;

  private final EctParameters parameters;
  private final long keyCount;
  private final long bucketCount;
  private final BucketDirectory directory;
  private final LongBigArray trie;
  /** The trie's storage chunks, read directly by the decoding loops. */
  private final long[][] trieChunks;
  private final long trieBits;
  private final TrieCodes codes;
  private final int skipLevels;
  private final SkipLengthCode skipCode;
  /** Whether context 2 uses the Huffman code {one side: "0", split: "1"} (hmax &gt;= 2). */
  private final boolean pairCodeIsUnary;
  private final SmallSubtrieSkips smallSkips;
  private final BlockBoundaries blocks;

  EctIndex(
      EctParameters parameters,
      long keyCount,
      long bucketCount,
      long trieBits,
      BucketDirectory directory,
      LongBigArray trie,
      BlockBoundaries blocks) {
    this.parameters = parameters;
    this.keyCount = keyCount;
    this.bucketCount = bucketCount;
    this.directory = directory;
    this.trie = trie;
    this.trieChunks = new long[trie.chunkCount()][];
    for (int c = 0; c < trieChunks.length; c++) {
      trieChunks[c] = trie.chunk(c);
    }
    this.trieBits = trieBits;
    this.codes = TrieCodes.forHuffmanMax(parameters.huffmanMax());
    this.skipLevels = parameters.skipLevels();
    this.skipCode = skipLevels > 0 ? SkipLengthCode.forHuffmanMax(parameters.huffmanMax()) : null;
    this.pairCodeIsUnary = codes.isPairCodeUnary();
    this.smallSkips = SmallSubtrieSkips.forHuffmanMax(parameters.huffmanMax());
    this.blocks = blocks;
  }

  /** Starts building a dense index over exactly {@code keyCount} hashes. */
  public static EctIndexBuilder builder(long keyCount, EctParameters parameters) {
    return new EctIndexBuilder(keyCount, true, parameters, null);
  }

  /**
   * Starts building a dense index over at most {@code maxKeyCount} hashes, for when the count is
   * known only at the end (a merge whose deletes and replacements are found as it goes). Its buckets
   * are sized for {@code maxKeyCount}: each key missing makes the index a little less compact.
   */
  public static EctIndexBuilder builderUpTo(long maxKeyCount, EctParameters parameters) {
    return new EctIndexBuilder(maxKeyCount, false, parameters, null);
  }

  /**
   * Starts building a sparse index over exactly {@code keyCount} hashes whose records are grouped
   * by {@code blocks}.
   */
  public static EctIndexBuilder sparseBuilder(
      long keyCount, EctParameters parameters, BlockBoundaries blocks) {
    if (blocks == null) {
      throw new IllegalArgumentException("a sparse index needs block boundaries");
    }
    return new EctIndexBuilder(keyCount, true, parameters, blocks);
  }

  /** The number of indexed hashes. */
  @Override
  public long size() {
    return keyCount;
  }

  /** The parameters the index was built with. */
  @Override
  public EctParameters parameters() {
    return parameters;
  }

  /** Whether this is a sparse (block-level) index. */
  public boolean isSparse() {
    return blocks != null;
  }

  /**
   * Returns the rank (position in hash order) of the hash {@code hi:lo}. Exact for member hashes;
   * for any other hash returns -1 when it is certainly absent, else some value in {@code [0,
   * size())}: the caller confirms the record it finds there.
   *
   * @throws IllegalStateException on a sparse index (use {@link #block})
   * @throws CorruptStoreException when the trie bits are found damaged
   */
  @Override
  public long rank(long hi, long lo) {
    if (blocks != null) {
      throw new IllegalStateException("rank() on a sparse index; use block()");
    }
    return locate(hi, lo);
  }

  /**
   * {@link #rank(long, long)}, telling {@code prefetcher} the member's probable rank (from its
   * place in its bucket's hash range) before the trie is decoded. For a member hash the probable
   * rank is within a few keys of the exact one (the deviation of a binomial count, about
   * {@code sqrt(g) / 2}).
   *
   * @throws IllegalStateException on a sparse index
   * @throws CorruptStoreException when the trie bits are found damaged
   */
  @Override
  public long rank(long hi, long lo, RecordPrefetcher prefetcher) {
    if (blocks != null) {
      throw new IllegalStateException("rank() on a sparse index; use block()");
    }
    long bucket = VirtualBuckets.bucketOf(hi, bucketCount);
    long first = directory.rank(bucket);
    long sizeAndOffset = directory.sizeAndOffset(bucket);
    long size = bucketSize(bucket, sizeAndOffset);
    long touched = 0;
    if (size > 1) {
      long position = VirtualBuckets.positionInBucket(hi, bucketCount);
      // The unsigned high word of position * size: the rank the hash's place in the range predicts.
      long expected = Math.multiplyHigh(position, size) + ((position >> 63) & size);
      touched = prefetcher.prefetch(first + expected);
    }
    long rank = descend(hi, lo, first, size, sizeAndOffset & BucketDirectory.OFFSET_MASK);
    if (touched == TOUCH_SENTINEL && rank < -1) {
      throw new AssertionError("never: ranks are at least -1");
    }
    return rank;
  }

  /** About {@code sqrt(g) / 2}: the deviation of a binomial count over a bucket. */
  @Override
  public double guessError() {
    return Math.sqrt(parameters.bucketSize()) / 2;
  }

  /** Any value: compared with what a prefetcher read only so that the JIT keeps the reads. */
  private static final long TOUCH_SENTINEL = 0x5EED_0F_7041L;

  /**
   * Returns the block holding the record of the hash {@code hi:lo} in a sparse index: exact for
   * member hashes; for other hashes -1 when certainly absent, else some block.
   *
   * @throws IllegalStateException on a dense index (use {@link #rank})
   * @throws CorruptStoreException when the trie bits are found damaged
   */
  public long block(long hi, long lo) {
    if (blocks == null) {
      throw new IllegalStateException("block() on a dense index; use rank()");
    }
    long first = locate(hi, lo);
    return first < 0 ? -1 : blocks.blockOf(first);
  }

  /**
   * Ranks many hashes at once: {@code ranks[i] = rank(hi[i], lo[i])} for {@code i} in {@code [from,
   * to)}. Lookups are processed in groups of {@value #BATCH} whose memory reads (the directory,
   * then the first trie word) are issued together before any trie is decoded, so that their cache
   * misses overlap instead of following one another: for bulk work (joins, multi-gets) this is
   * markedly faster per key than calling {@link #rank} in a loop.
   *
   * @throws IllegalStateException on a sparse index
   * @throws CorruptStoreException when the trie bits are found damaged
   */
  @Override
  public void rank(long[] hi, long[] lo, long[] ranks, int from, int to) {
    if (blocks != null) {
      throw new IllegalStateException("rank() on a sparse index; use block()");
    }
    Objects.checkFromToIndex(from, to, Math.min(hi.length, Math.min(lo.length, ranks.length)));
    long[] firsts = new long[BATCH];
    long[] sizes = new long[BATCH];
    long[] offsets = new long[BATCH];
    for (int start = from; start < to; start += BATCH) {
      int end = Math.min(to, start + BATCH);
      for (int i = start; i < end; i++) {
        long bucket = VirtualBuckets.bucketOf(hi[i], bucketCount);
        long sizeAndOffset = directory.sizeAndOffset(bucket);
        firsts[i - start] = directory.rank(bucket);
        sizes[i - start] = bucketSize(bucket, sizeAndOffset);
        offsets[i - start] = sizeAndOffset & BucketDirectory.OFFSET_MASK;
      }
      for (int i = start; i < end; i++) {
        long offset = offsets[i - start];
        // Touch the trie's first word now; the value is overwritten below.
        ranks[i] = trieChunks[(int) (offset >>> CHUNK_BIT_SHIFT)][(int) ((offset & CHUNK_BIT_MASK) >>> 6)];
      }
      for (int i = start; i < end; i++) {
        ranks[i] = descend(hi[i], lo[i], firsts[i - start], sizes[i - start], offsets[i - start]);
      }
    }
  }

  /**
   * Descends the trie of the hash's bucket to the subtrie that holds it: a single key (its rank)
   * or, in a sparse index, keys of one block (the rank of the first). Returns -1 for an empty
   * bucket.
   */
  private long locate(long hi, long lo) {
    long bucket = VirtualBuckets.bucketOf(hi, bucketCount);
    long sizeAndOffset = directory.sizeAndOffset(bucket);
    return descend(
        hi, lo, directory.rank(bucket), bucketSize(bucket, sizeAndOffset), sizeAndOffset & BucketDirectory.OFFSET_MASK);
  }

  /** The key count of {@code bucket} from its {@link BucketDirectory#sizeAndOffset}. */
  private long bucketSize(long bucket, long sizeAndOffset) {
    long size = sizeAndOffset >>> (64 - BucketDirectory.SIZE_BITS);
    return size == BucketDirectory.SIZE_UNKNOWN ? directory.size(bucket) : size;
  }

  /** {@link #locate} given the bucket's first rank, size and trie offset. */
  private long descend(long hi, long lo, long first, long size, long offset) {
    if (size <= 1) {
      return size == 1 ? first : -1;
    }
    BlockCuts cuts = blocks == null ? null : BlockCuts.within(blocks, first, first + size);
    long position = VirtualBuckets.positionInBucket(hi, bucketCount);
    long[] words = trieChunks[(int) (offset >>> CHUNK_BIT_SHIFT)];
    long bitPos = offset & CHUNK_BIT_MASK;
    long limit = bitLimit(offset, words);
    int count = (int) size;
    int depth = 0;
    while (count > 1 && !(cuts != null && cuts.sameBlock(first, first + count - 1))) {
      checkPosition(depth, bitPos, limit);
      long peek = peek(words, bitPos);
      if (count == 2 && pairCodeIsUnary && cuts == null) {
        // A two-key subtrie is a run of one-sided nodes closed by its split: the key's bit at the
        // split is its rank in the pair.
        int oneSided = Long.numberOfLeadingZeros(peek);
        if (oneSided < 64) {
          checkPosition(depth + oneSided, bitPos + oneSided, limit);
          return first + (VirtualBuckets.bitAsSign(position, lo, depth + oneSided) >>> 63);
        }
      }
      long decoded = codes.decode(count, peek);
      bitPos += decoded & 0xFF;
      int left = (int) (decoded >>> 8);
      int nodeDepth = depth;
      long bit = VirtualBuckets.bitAsSign(position, lo, depth++);
      if (left == 0) {
        continue;
      }
      long skipBits;
      if (nodeDepth < skipLevels && left >= 2) {
        checkPosition(nodeDepth, bitPos, limit);
        long skip = skipCode.decode(left, peek(words, bitPos));
        bitPos += skip & 0xFF;
        skipBits = skip >> 8;
      } else if (left == 1) {
        skipBits = 0;
      } else if (cuts == null && left <= SmallSubtrieSkips.MAX_KEYS && depth >= skipLevels) {
        checkPosition(depth, bitPos, limit);
        skipBits = smallSkips.length(left, peek(words, bitPos));
      } else {
        skipBits = -1;
      }
      long right = bit >> 63;
      if (skipBits >= 0) {
        // The skip is known before the direction: take either side without a branch.
        bitPos += skipBits & right;
        first += left & right;
        count = (int) (left + ((count - 2L * left) & right));
      } else if (right == 0) {
        count = left;
      } else {
        bitPos = skip(words, limit, bitPos, left, first, depth, cuts);
        first += left;
        count -= left;
      }
    }
    return first;
  }

  /**
   * Skips Rep of the subtrie of {@code count} keys from rank {@code first} at {@code depth};
   * returns the bit after it.
   */
  private long skip(long[] words, long limit, long bitPos, int count, long first, int depth, BlockCuts cuts) {
    while (count > 1) {
      if (cuts != null) {
        if (cuts.sameBlock(first, first + count - 1)) {
          break;
        }
      } else if (count == 2 && pairCodeIsUnary) {
        return skipPair(words, limit, bitPos, depth);
      } else if (count <= SmallSubtrieSkips.MAX_KEYS && depth >= skipLevels) {
        checkPosition(depth, bitPos, limit);
        int length = smallSkips.length(count, peek(words, bitPos));
        if (length >= 0) {
          return bitPos + length;
        }
      }
      checkPosition(depth, bitPos, limit);
      long decoded = codes.decode(count, peek(words, bitPos));
      bitPos += decoded & 0xFF;
      int left = (int) (decoded >>> 8);
      int nodeDepth = depth++;
      if (left == 0) {
        continue;
      }
      if (nodeDepth < skipLevels && left >= 2) {
        checkPosition(nodeDepth, bitPos, limit);
        long skip = skipCode.decode(left, peek(words, bitPos));
        bitPos += (skip & 0xFF) + (skip >> 8);
      } else {
        bitPos = skip(words, limit, bitPos, left, first, depth, cuts);
      }
      first += left;
      count -= left;
    }
    return bitPos;
  }

  /**
   * Skips Rep of a two-key subtrie in one step: with the binomial Huffman code of context 2 (one
   * side "0", split "1") it is a run of zeros closed by a one.
   */
  private static long skipPair(long[] words, long limit, long bitPos, int depth) {
    while (true) {
      checkPosition(depth, bitPos, limit);
      int zeros = Long.numberOfLeadingZeros(peek(words, bitPos));
      if (zeros < 64) {
        return bitPos + zeros + 1;
      }
      bitPos += 64;
      depth += 64;
    }
  }

  /** The 64 bits of {@code words} from {@code bitPos} on, most significant bit first. */
  private static long peek(long[] words, long bitPos) {
    int i = (int) (bitPos >>> 6);
    int shift = (int) bitPos & 63;
    // ">>> 1 >>> (63 - shift)" is ">>> (64 - shift)" without Java's shift-by-64 identity.
    return (words[i] << shift) | (words[i + 1] >>> 1 >>> (63 - shift));
  }

  /**
   * The first bit position (relative to its chunk) that the bucket at {@code offset} may not read:
   * the end of the trie or the chunk's spare last word, whichever comes first.
   */
  private long bitLimit(long offset, long[] words) {
    long chunkStart = offset & ~CHUNK_BIT_MASK;
    return Math.min(trieBits - chunkStart, ((long) words.length - 1) << 6);
  }

  private static void checkPosition(int depth, long bitPos, long limit) {
    if (depth >= MAX_DEPTH || Long.compareUnsigned(bitPos, limit) >= 0) {
      throw new CorruptStoreException(
          "ECT trie damaged: path at depth " + depth + ", bit " + bitPos + " of " + limit);
    }
  }

  /** The bit position where the chunk after the one holding {@code bitPos} starts. */
  static long nextChunkStart(long bitPos) {
    return (bitPos | CHUNK_BIT_MASK) + 1;
  }

  /** The end of the bits a bucket starting at {@code bitPos} may use: its chunk less one word. */
  static long usableBitsEnd(long bitPos) {
    return nextChunkStart(bitPos) - 64;
  }

  /** The number of words that hold a trie of {@code trieBits} bits: one spare for 64-bit peeks. */
  static long trieWords(long trieBits) {
    return ((trieBits + 63) >>> 6) + 1;
  }

  /** The trie words (package-private, for tests that damage them). */
  LongWords trieWords() {
    return trie;
  }

  /** Bits of the tries (all buckets). */
  public long trieBits() {
    return trieBits;
  }

  /** Bits of the bucket directory. */
  public long directoryBits() {
    return directory.encodedBits();
  }

  /** Bits of the tries plus the bucket directory. */
  @Override
  public long encodedBits() {
    return trieBits + directoryBits();
  }

  /** Index bits per key: tries plus directory, as stored. */
  @Override
  public double bitsPerKey() {
    return keyCount == 0 ? 0 : (double) encodedBits() / keyCount;
  }

  /** Bytes of heap held by this index (tries, directory and select samples; shared code tables excluded). */
  @Override
  public long ramBytesUsed() {
    return 96 + trie.ramBytesUsed() + directory.ramBytesUsed();
  }

  /** The number of bytes {@link #writeTo} writes. */
  @Override
  public long serializedBytes() {
    return EctIndexFormat.serializedBytes(this);
  }

  /** Writes the serialized form ({@link EctIndexFormat}); does not close {@code out}. */
  @Override
  public void writeTo(OutputStream out) throws IOException {
    EctIndexFormat.write(this, out);
  }

  /**
   * Reads a dense index written by {@link #writeTo}, validating its header, every size and its
   * checksum.
   *
   * @throws CorruptStoreException on damaged, truncated or foreign input, or a sparse index
   */
  public static EctIndex readFrom(InputStream in) throws IOException {
    return readFrom(in, null);
  }

  /**
   * Reads an index written by {@link #writeTo}; a sparse index needs the same {@code blocks} it was
   * built with ({@code null} for a dense index).
   *
   * @throws CorruptStoreException on damaged, truncated or foreign input, or a dense/sparse mismatch
   */
  public static EctIndex readFrom(InputStream in, BlockBoundaries blocks) throws IOException {
    return EctIndexFormat.read(in, blocks);
  }

  long bucketCount() {
    return bucketCount;
  }

  BucketDirectory directory() {
    return directory;
  }
}
