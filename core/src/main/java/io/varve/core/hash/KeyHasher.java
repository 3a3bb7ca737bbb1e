package io.varve.core.hash;

import net.openhft.hashing.LongTupleHashFunction;

/**
 * The seeded 128-bit hash of byte-string keys that orders every Varve store: XXH3-128 (through
 * OpenHFT's zero-allocation-hashing).
 *
 * <p>A hash is the pair {@code (hi, lo)} of the function's two result words in the order
 * zero-allocation-hashing returns them: {@code hi} is XXH3-128's low 64-bit half, {@code lo} its
 * high half (both halves are uniformly distributed; Varve only needs a fixed convention). <em>Hash order</em> is the unsigned order of the 128-bit value {@code hi:lo}; see
 * {@link #compare}.
 *
 * <p>Instances are immutable and thread-safe; {@link #hash} allocates nothing.
 */
public final class KeyHasher {
  private final long seed;
  private final LongTupleHashFunction function;

  private KeyHasher(long seed) {
    this.seed = seed;
    this.function = LongTupleHashFunction.xx128(seed);
  }

  /** The hasher for {@code seed}. */
  public static KeyHasher withSeed(long seed) {
    return new KeyHasher(seed);
  }

  /** The seed this hasher was created with. */
  public long seed() {
    return seed;
  }

  /**
   * Hashes {@code key[offset, offset + length)} into {@code result}: {@code result[0] = hi},
   * {@code result[1] = lo}. {@code result} must have length of at least 2.
   */
  public void hash(byte[] key, int offset, int length, long[] result) {
    function.hashBytes(key, offset, length, result);
  }

  /** Hashes a whole key into {@code result} ({@code hi}, {@code lo}). */
  public void hash(byte[] key, long[] result) {
    function.hashBytes(key, result);
  }

  /** Compares two 128-bit hashes in hash order (unsigned, {@code hi} first). */
  public static int compare(long hi1, long lo1, long hi2, long lo2) {
    int byHi = Long.compareUnsigned(hi1, hi2);
    return byHi != 0 ? byHi : Long.compareUnsigned(lo1, lo2);
  }
}
