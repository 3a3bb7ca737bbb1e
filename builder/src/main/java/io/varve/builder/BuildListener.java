package io.varve.builder;

/**
 * Receives the progress of a {@link StoreBuilder}, {@link StoreMerger} or {@link StoreReindexer},
 * often enough for a progress bar: every {@value #INTERVAL} units of a phase and at each phase's
 * start and end. Phases come in the order of {@link Phase}; within one, {@code done} never
 * decreases and its last report has {@code done == total}. (A build that meets a 128-bit hash
 * collision, about once in 2^64 builds, sorts and writes again under the next seed and so repeats
 * those phases.) Called on the thread that calls {@code put}, {@code build}, {@code merge} or
 * {@code reindex}, so it should be quick; an exception it throws fails the build, which then
 * publishes nothing.
 *
 * <p>Implementations are called from one thread at a time; they need no synchronization unless
 * they share state with other threads.
 */
@FunctionalInterface
public interface BuildListener {
  /** Units of a phase between two reports: 65,536 records. */
  int INTERVAL = 1 << 16;

  /** The phases of a build, in their order. */
  enum Phase {
    /** Records (a merge's operations) taken in by {@code put}; total -1 until the input ends. */
    INPUT,
    /** The input's last records handed to the external sort (spilled if the input was spilled). */
    SORT,
    /** Records merged and written in hash order, of the expected total. */
    WRITE,
    /** The index built over the written records (for a sparse index, a pass over the data). */
    INDEX,
    /** The complete store forced to disk and renamed into place: reported once, just before. */
    PUBLISH
  }

  /**
   * Reports that {@code done} of {@code total} units of {@code phase} are complete ({@code total
   * = -1} when unknown).
   */
  void progress(Phase phase, long done, long total);

  /** A listener that ignores everything. */
  BuildListener NONE = (phase, done, total) -> {};
}
