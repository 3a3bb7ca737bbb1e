package io.varve.core.index;

/**
 * Builds a {@link RankIndex} from hashes fed in strictly increasing unsigned 128-bit order ({@code
 * hi} first, then {@code lo}). Use in that order: {@link #add} once per hash, then {@link #finish()}
 * once. Not thread-safe.
 */
public interface RankIndexBuilder {
  /**
   * Adds the next hash.
   *
   * @throws io.varve.core.ect.DuplicateHashException if it equals the previous one
   * @throws IllegalArgumentException if it is smaller than the previous one
   * @throws IllegalStateException after {@link #finish()}, or past the declared count
   */
  void add(long hi, long lo);

  /** The number of hashes added so far. */
  long added();

  /** The number of hashes declared when the builder was created (exact, or an upper bound). */
  long declared();

  /** Whether {@link #finish()} needs exactly {@link #declared()} hashes (or accepts fewer). */
  boolean exactCount();

  /**
   * Finishes the index.
   *
   * @throws IllegalStateException if called twice, or after fewer hashes than an exact count
   */
  RankIndex finish();
}
