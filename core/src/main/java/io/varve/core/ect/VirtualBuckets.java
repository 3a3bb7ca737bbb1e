package io.varve.core.ect;

/**
 * Maps a 128-bit hash to its virtual bucket and to the trie key inside the bucket.
 *
 * <p>With {@code m} buckets, the bucket of a hash is {@code floor(hi * m / 2^64)} (unsigned), so
 * buckets are contiguous ranges of hash order of equal width for any {@code m}, not only powers
 * of two. The trie inside the bucket reads the 128 bits {@code (hi * m mod 2^64) : lo}: the
 * position of the hash within its bucket, which is uniformly distributed, increasing with the
 * hash and distinct for distinct hashes of the bucket.
 *
 * <p>Stateless and thread-safe.
 */
final class VirtualBuckets {
  private VirtualBuckets() {}

  static long bucketOf(long hi, long bucketCount) {
    // Math.unsignedMultiplyHigh is Java 18+; bucketCount is positive.
    return Math.multiplyHigh(hi, bucketCount) + ((hi >> 63) & bucketCount);
  }

  static long positionInBucket(long hi, long bucketCount) {
    return hi * bucketCount;
  }

  /**
   * Bit {@code depth} (0 = most significant) of the trie key {@code position:lo}, as the sign of
   * the returned long: negative means 1.
   */
  static long bitAsSign(long position, long lo, int depth) {
    return depth < 64 ? position << depth : lo << (depth - 64);
  }
}
