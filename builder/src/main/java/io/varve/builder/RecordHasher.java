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

  /**
   * The hashes of a store that keeps no full keys: read in record order from its hash file
   * ({@code in} at the first), one pair per call, whatever key bytes are given.
   */
  static RecordHasher keptHashes(io.varve.core.store.HashesReader in) {
    return (key, offset, length, result) -> {
      try {
        in.next(result);
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    };
  }
}
