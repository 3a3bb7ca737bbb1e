package io.varve.core.ect;

import io.varve.core.bits.BitWriter;
import io.varve.core.bits.LongBigArray;
import io.varve.core.codes.TrieCodes;
import java.util.Arrays;

/**
 * Builds an {@link EctIndex} from hashes fed in hash order, one pass, holding in memory the
 * output, the keys of the current bucket, and each bucket's first rank and trie offset (16 bytes
 * per bucket) for the directory written at {@link #finish()}.
 *
 * <pre>{@code
 * EctIndexBuilder builder = EctIndex.builder(n, EctParameters.DEFAULT);
 * for (each hash in hash order) builder.add(hi, lo);
 * EctIndex index = builder.finish();
 * }</pre>
 *
 * Hashes must come in strictly increasing hash order ("hashes do not come in order" otherwise);
 * two equal hashes raise {@link DuplicateHashException} so that the caller can rebuild with a new
 * seed. Exactly the declared number of hashes ({@link EctIndex#builder}), or at most it ({@link
 * EctIndex#builderUpTo}), must be added before {@link #finish()}, which may be called once. Not
 * thread-safe.
 */
public final class EctIndexBuilder extends HashFedIndexBuilder {
  private final EctParameters parameters;
  private final long bucketCount;
  private final TrieCodes codes;
  private final SkipLengthCode skipCode;
  private final int skipLevels;
  private final BlockBoundaries blocks;
  private final BitWriter trie = new BitWriter();
  private final BitWriter bucketTrie = new BitWriter();
  /** Per skip level, where a left subtrie is written before its skip length is known. */
  private final BitWriter[] skipScratch;
  private final LongBigArray ranks;
  private final LongBigArray offsets;

  private long currentBucket;
  private long currentBucketFirstRank;
  private long[] positions = new long[64];
  private long[] los = new long[64];
  private int bucketFill;

  EctIndexBuilder(long keyCount, boolean exactCount, EctParameters parameters, BlockBoundaries blocks) {
    super(keyCount, exactCount);
    if (parameters.bucketCount(keyCount) > EctIndexFormat.MAX_BUCKET_COUNT) {
      throw new IllegalArgumentException("too many keys for one index: " + keyCount);
    }
    this.parameters = parameters;
    this.bucketCount = parameters.bucketCount(keyCount);
    this.codes = TrieCodes.forHuffmanMax(parameters.huffmanMax());
    this.skipLevels = parameters.skipLevels();
    this.skipCode = skipLevels > 0 ? SkipLengthCode.forHuffmanMax(parameters.huffmanMax()) : null;
    this.skipScratch = new BitWriter[skipLevels];
    for (int level = 0; level < skipLevels; level++) {
      skipScratch[level] = new BitWriter();
    }
    this.blocks = blocks;
    this.ranks = new LongBigArray(bucketCount + 1);
    this.offsets = new LongBigArray(bucketCount + 1);
  }

  /** Adds the next hash; hashes must come in strictly increasing hash order. */
  @Override
  public void add(long hi, long lo) {
    feed.accept(hi, lo);
    long bucket = VirtualBuckets.bucketOf(hi, bucketCount);
    while (currentBucket < bucket) {
      closeBucket();
    }
    if (bucketFill == positions.length) {
      if (bucketFill == Integer.MAX_VALUE - 8) {
        throw new IllegalStateException("a bucket exceeds 2^31 keys: are the keys hashed?");
      }
      int capacity = (int) Math.min(Integer.MAX_VALUE - 8, 2L * bucketFill);
      positions = Arrays.copyOf(positions, capacity);
      los = Arrays.copyOf(los, capacity);
    }
    positions[bucketFill] = VirtualBuckets.positionInBucket(hi, bucketCount);
    los[bucketFill] = lo;
    bucketFill++;
  }

  /**
   * Finishes the index; call once, after exactly the declared number of hashes (or, for a builder
   * from {@link EctIndex#builderUpTo}, at most that many).
   */
  @Override
  public EctIndex finish() {
    feed.finish();
    long added = feed.accepted();
    while (currentBucket < bucketCount) {
      closeBucket();
    }
    long trieBits = trie.bitLength();
    ranks.set(bucketCount, added);
    offsets.set(bucketCount, trieBits);
    BucketDirectory directory = BucketDirectory.build(ranks, offsets, added, bucketCount, trieBits);
    return new EctIndex(
        parameters, added, bucketCount, trieBits, directory, trie.toWords(EctIndex.trieWords(trieBits)), blocks);
  }

  private void closeBucket() {
    bucketTrie.clear();
    encode(0, bucketFill, 0, bucketTrie);
    long offset = trie.bitLength();
    if (offset + bucketTrie.bitLength() > EctIndex.usableBitsEnd(offset)) {
      offset = EctIndex.nextChunkStart(offset);
      trie.padTo(offset);
    }
    ranks.set(currentBucket, currentBucketFirstRank);
    offsets.set(currentBucket, offset);
    trie.append(bucketTrie);
    currentBucketFirstRank += bucketFill;
    bucketFill = 0;
    currentBucket++;
  }

  /**
   * Writes Rep of the subtrie of keys {@code [from, to)} of the bucket, which agree on their first
   * {@code depth} bits, to {@code out}.
   */
  private void encode(int from, int to, int depth, BitWriter out) {
    int count = to - from;
    while (count > 1 && !isOneBlock(from, to)) {
      int split = firstWithBitSet(from, to, depth);
      int left = split - from;
      int nodeDepth = depth++;
      if (left == 0 || left == count) {
        codes.write(out, count, 0);
        continue;
      }
      codes.write(out, count, left);
      if (nodeDepth < skipLevels && left >= 2) {
        // The skip length precedes the left subtrie: write the subtrie aside first (one pass,
        // instead of measuring it and then writing it).
        BitWriter aside = skipScratch[nodeDepth];
        aside.clear();
        encode(from, split, depth, aside);
        skipCode.write(out, left, aside.bitLength());
        out.append(aside);
      } else {
        encode(from, split, depth, out);
      }
      from = split;
      count = to - from;
    }
  }

  private boolean isOneBlock(int from, int to) {
    return blocks != null
        && blocks.sameBlock(currentBucketFirstRank + from, currentBucketFirstRank + to - 1);
  }

  /** The first index in {@code [from, to)} whose key has bit {@code depth} set, or {@code to}. */
  private int firstWithBitSet(int from, int to, int depth) {
    int low = from;
    int high = to;
    while (low < high) {
      int mid = (low + high) >>> 1;
      if (VirtualBuckets.bitAsSign(positions[mid], los[mid], depth) < 0) {
        high = mid;
      } else {
        low = mid + 1;
      }
    }
    return low;
  }
}
