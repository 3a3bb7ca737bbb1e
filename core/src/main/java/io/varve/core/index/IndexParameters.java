package io.varve.core.index;

import java.io.DataOutput;
import java.io.IOException;

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

  /**
   * Writes the knobs (not the kind) in the one layout both the index's own header and a store's meta
   * file hold; the parameters class reads it back ({@code readKnobs}).
   */
  void writeKnobs(DataOutput out) throws IOException;
}
