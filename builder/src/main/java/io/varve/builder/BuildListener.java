package io.varve.builder;

/**
 * Receives progress of a {@link StoreBuilder}: called on the thread that calls {@code put} or
 * {@code build}, about every million records and at the end of each phase, so it should be quick.
 */
@FunctionalInterface
public interface BuildListener {
  /** The phases of a build. */
  enum Phase {
    /** Records taken in by {@code put} (total unknown: -1). */
    INPUT,
    /** Records merged and written in hash order, of the expected total. */
    WRITE
  }

  /**
   * Reports that {@code done} of {@code total} units of {@code phase} are complete ({@code total
   * = -1} when unknown).
   */
  void progress(Phase phase, long done, long total);

  /** A listener that ignores everything. */
  BuildListener NONE = (phase, done, total) -> {};
}
