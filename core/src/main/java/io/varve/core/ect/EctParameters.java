package io.varve.core.ect;

import io.varve.core.codes.TrieCodes;
import io.varve.core.index.IndexKind;
import io.varve.core.index.IndexParameters;

/**
 * The knobs of an entropy-coded-trie index.
 *
 * @param bucketSize {@code g}, the average number of keys per virtual bucket: larger buckets
 *     compress better (fewer bits per key) and take longer to search
 * @param huffmanMax {@code hmax}, the largest subtrie size coded with binomial Huffman codes;
 *     larger subtries use Exp-Golomb codes, keeping the decoding tables small
 * @param skipLevels the number of top trie levels whose nodes store the bit length of their left
 *     subtrie ({@link SkipLengthCode}), so that a lookup going right jumps over it instead of
 *     decoding it: each level roughly halves the work of a lookup and costs a few bits per bucket
 *     at that level; 0 is the paper's plain representation
 *     <p>An immutable value; thread-safe.
 */
public record EctParameters(int bucketSize, int huffmanMax, int skipLevels) implements IndexParameters {
  /** The paper's setting: {@code g = 256, hmax = 64}, no skip lengths. */
  public static final EctParameters DEFAULT = new EctParameters(256, 64, 0);

  /** The largest supported bucket size. */
  public static final int MAX_BUCKET_SIZE = 1 << 16;

  /** The largest supported number of skip levels. */
  public static final int MAX_SKIP_LEVELS = 16;

  /** Validates the knobs; throws {@link IllegalArgumentException} naming the one out of range. */
  public EctParameters {
    if (bucketSize < 1 || bucketSize > MAX_BUCKET_SIZE) {
      throw new IllegalArgumentException(
          "bucketSize must be in [1, " + MAX_BUCKET_SIZE + "]: " + bucketSize);
    }
    if (huffmanMax < 1 || huffmanMax > TrieCodes.MAX_HUFFMAN_CONTEXT) {
      throw new IllegalArgumentException(
          "huffmanMax must be in [1, " + TrieCodes.MAX_HUFFMAN_CONTEXT + "]: " + huffmanMax);
    }
    if (skipLevels < 0 || skipLevels > MAX_SKIP_LEVELS) {
      throw new IllegalArgumentException(
          "skipLevels must be in [0, " + MAX_SKIP_LEVELS + "]: " + skipLevels);
    }
  }

  /** Parameters without skip lengths. */
  public EctParameters(int bucketSize, int huffmanMax) {
    this(bucketSize, huffmanMax, 0);
  }

  @Override
  public IndexKind kind() {
    return IndexKind.ECT;
  }

  /** A dense-index builder: {@link EctIndex#builder}. */
  @Override
  public EctIndexBuilder builder(long keyCount) {
    return EctIndex.builder(keyCount, this);
  }

  /** A dense-index builder for at most {@code maxKeyCount} hashes: {@link EctIndex#builderUpTo}. */
  @Override
  public EctIndexBuilder builderUpTo(long maxKeyCount) {
    return EctIndex.builderUpTo(maxKeyCount, this);
  }

  /** The number of virtual buckets for {@code keyCount} keys: {@code max(1, ceil(n / g))}. */
  public long bucketCount(long keyCount) {
    return Math.max(1, (keyCount + bucketSize - 1) / bucketSize);
  }
}
