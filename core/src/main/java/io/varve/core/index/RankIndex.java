package io.varve.core.index;

import java.io.IOException;
import java.io.OutputStream;
import java.util.Objects;

/**
 * Maps each member of a set of 128-bit hashes to its rank: its position in unsigned hash order.
 * For a hash outside the set the answer is -1 (certainly absent) or some rank in {@code [0,
 * size())}, which the caller confirms against the record it finds there: an index stores no keys.
 * Built by a {@link RankIndexBuilder} from {@link IndexParameters#builder}.
 *
 * <p>Implementations are immutable and thread-safe; lookups allocate nothing.
 */
public interface RankIndex {
  /** The number of indexed hashes. */
  long size();

  /** The parameters the index was built with (and so its kind). */
  IndexParameters parameters();

  /**
   * The rank of the hash {@code hi:lo}: exact for members; -1 or any rank in {@code [0, size())}
   * for other hashes.
   *
   * @throws io.varve.core.format.CorruptStoreException when damage is found while decoding
   */
  long rank(long hi, long lo);

  /**
   * {@link #rank(long, long)}, telling {@code prefetcher} the probable rank of a member hash (within
   * about {@link #guessError()} ranks of the exact one) before the index decodes its own reads, at
   * most once per call. The default calls no prefetcher.
   */
  default long rank(long hi, long lo, RecordPrefetcher prefetcher) {
    return rank(hi, lo);
  }

  /**
   * The typical distance between the rank {@link #rank(long, long, RecordPrefetcher)} tells its
   * prefetcher and the exact one, in ranks; infinite when the index tells none.
   */
  default double guessError() {
    return Double.POSITIVE_INFINITY;
  }

  /**
   * Ranks many hashes: {@code ranks[i] = rank(hi[i], lo[i])} for {@code i} in {@code [from, to)}.
   * Implementations may overlap the lookups' memory reads.
   */
  default void rank(long[] hi, long[] lo, long[] ranks, int from, int to) {
    Objects.checkFromToIndex(from, to, Math.min(hi.length, Math.min(lo.length, ranks.length)));
    for (int i = from; i < to; i++) {
      ranks[i] = rank(hi[i], lo[i]);
    }
  }

  /** Bits of the index as stored (its serialized structures, headers excluded). */
  long encodedBits();

  /** Index bits per key, as stored: {@link #encodedBits()} over {@link #size()}. */
  double bitsPerKey();

  /** Bytes of heap held by this index. */
  long ramBytesUsed();

  /** The number of bytes {@link #writeTo} writes. */
  long serializedBytes();

  /** Writes the serialized form; does not close {@code out}. */
  void writeTo(OutputStream out) throws IOException;
}
