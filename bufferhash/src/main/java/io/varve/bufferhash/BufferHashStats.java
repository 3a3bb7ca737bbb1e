package io.varve.bufferhash;

import java.util.Arrays;

/**
 * Counters of a {@link BufferHash} since it was opened: a snapshot, immutable and thread-safe.
 * A <em>read</em> is one unit read from the SSD (usually one 4 KiB page).
 */
public final class BufferHashStats {
  private final long lookups;
  private final long reads;
  private final long[] readsPerLookup;
  private final long inserts;
  private final long flushes;
  private final long evictedIncarnations;
  private final long keptEntries;
  private final long droppedCurrentEntries;

  BufferHashStats(
      long lookups, long reads, long[] readsPerLookup, long inserts, long flushes, long evictedIncarnations, long keptEntries, long droppedCurrentEntries) {
    this.lookups = lookups;
    this.reads = reads;
    this.readsPerLookup = readsPerLookup.clone();
    this.inserts = inserts;
    this.flushes = flushes;
    this.evictedIncarnations = evictedIncarnations;
    this.keptEntries = keptEntries;
    this.droppedCurrentEntries = droppedCurrentEntries;
  }

  /** Calls of {@code get}. */
  public long lookups() {
    return lookups;
  }

  /** SSD reads made by lookups. */
  public long flashReads() {
    return reads;
  }

  /**
   * How many lookups made 0, 1, 2, ... reads (the paper's Table 2); the last element counts that
   * many reads or more.
   */
  public long[] readsPerLookup() {
    return readsPerLookup.clone();
  }

  /** Calls of {@code put} and {@code delete}. */
  public long inserts() {
    return inserts;
  }

  /** Buffers written to the log as incarnations. */
  public long flushes() {
    return flushes;
  }

  /** Incarnations evicted from the log. */
  public long evictedIncarnations() {
    return evictedIncarnations;
  }

  /** Entries of evicted incarnations that a partial-discard policy kept (re-inserted). */
  public long keptEntries() {
    return keptEntries;
  }

  /** Current entries that eviction dropped (reported when an {@link EvictionListener} is set). */
  public long droppedCurrentEntries() {
    return droppedCurrentEntries;
  }

  @Override
  public String toString() {
    return "lookups=" + lookups + " reads=" + reads + " readsPerLookup=" + Arrays.toString(readsPerLookup) + " inserts=" + inserts
        + " flushes=" + flushes + " evictedIncarnations=" + evictedIncarnations + " keptEntries=" + keptEntries
        + " droppedCurrentEntries=" + droppedCurrentEntries;
  }
}
