package io.varve.builder;

import io.varve.core.hash.KeyHasher;

/**
 * The 128-bit key hash the builder sorts by: {@link KeyHasher} in production; tests substitute
 * weak hashes to force collisions.
 */
@FunctionalInterface
interface RecordHasher {
  /** Writes the hash of {@code key[offset, offset + length)} to {@code result[0]} (high) and {@code result[1]} (low). */
  void hash(byte[] key, int offset, int length, long[] result);

  static RecordHasher xxh3(long seed) {
    return KeyHasher.withSeed(seed)::hash;
  }
}
