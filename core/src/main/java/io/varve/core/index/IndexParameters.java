package io.varve.core.index;

/**
 * The knobs of a {@link RankIndex}, and so its kind: {@code EctParameters} for an ECT index,
 * {@code BlockedIndexParameters} for a blocked one. A store records them in its meta file, and a
 * merge or re-index builds its new index from them. Implementations are immutable values;
 * thread-safe.
 */
public interface IndexParameters {
  /** The kind of index these parameters build. */
  IndexKind kind();

  /** Starts building an index over exactly {@code keyCount} hashes. */
  RankIndexBuilder builder(long keyCount);

  /**
   * Starts building an index over at most {@code maxKeyCount} hashes, for when the count is known
   * only at the end (a merge that drops keys); the index is sized for {@code maxKeyCount}.
   */
  RankIndexBuilder builderUpTo(long maxKeyCount);
}
