package io.varve.core.ect;

import io.varve.core.codes.TrieCodes;

/**
 * The knobs of an entropy-coded-trie index.
 *
 * @param bucketSize {@code g}, the average number of keys per virtual bucket: larger buckets
 *     compress better (fewer bits per key) and take longer to search
 * @param huffmanMax {@code hmax}, the largest subtrie size coded with binomial Huffman codes;
 *     larger subtries use Exp-Golomb codes, keeping the decoding tables small
 */
public record EctParameters(int bucketSize, int huffmanMax) {
  /** The paper's setting: {@code g = 256, hmax = 64}. */
  public static final EctParameters DEFAULT = new EctParameters(256, 64);

  /** The largest supported bucket size. */
  public static final int MAX_BUCKET_SIZE = 1 << 16;

  public EctParameters {
    if (bucketSize < 1 || bucketSize > MAX_BUCKET_SIZE) {
      throw new IllegalArgumentException(
          "bucketSize must be in [1, " + MAX_BUCKET_SIZE + "]: " + bucketSize);
    }
    if (huffmanMax < 1 || huffmanMax > TrieCodes.MAX_HUFFMAN_CONTEXT) {
      throw new IllegalArgumentException(
          "huffmanMax must be in [1, " + TrieCodes.MAX_HUFFMAN_CONTEXT + "]: " + huffmanMax);
    }
  }

  /** The number of virtual buckets for {@code keyCount} keys: {@code max(1, ceil(n / g))}. */
  public long bucketCount(long keyCount) {
    return Math.max(1, (keyCount + bucketSize - 1) / bucketSize);
  }
}
