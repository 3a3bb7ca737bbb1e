package io.varve.core.index;

/**
 * Reads memory ahead of need for the record a lookup will read next, given the rank the record
 * probably has. {@link RankIndex#rank(long, long, RecordPrefetcher)} calls it before the index's
 * own reads are decoded, so that the record's cache and TLB misses overlap the index's instead of
 * following them. Implementations read (they cannot write) and return what they read, which the
 * index consumes so that the reads are not optimized away; they must accept any rank in {@code [0,
 * size())} and must not throw. Called from the looking-up thread, so from many threads at once
 * when lookups are: implementations that read shared memory only are thread-safe.
 */
@FunctionalInterface
public interface RecordPrefetcher {
  /** Touches the memory of the record at about {@code expectedRank}; returns any value read. */
  long prefetch(long expectedRank);
}
