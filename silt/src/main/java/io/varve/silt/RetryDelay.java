package io.varve.silt;

import java.util.concurrent.TimeUnit;

/**
 * When background work that failed is tried again: after {@link #FIRST_NANOS}, then after a delay
 * that doubles up to {@link #MAX_NANOS} while it keeps failing. A merge that fails for good (a full
 * disk, a damaged hash store) would otherwise run again as soon as it failed, rewriting gigabytes
 * in a loop that takes a core and the disk from the store's readers.
 *
 * <p>Thread-safe.
 */
final class RetryDelay {
  static final long FIRST_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
  static final long MAX_NANOS = TimeUnit.MINUTES.toNanos(1);

  private int failures;
  private long notBeforeNanos;

  /** Counts a failure at {@code nowNanos} ({@link System#nanoTime}). */
  synchronized void failed(long nowNanos) {
    long delay = failures >= 20 ? MAX_NANOS : Math.min(MAX_NANOS, FIRST_NANOS << failures);
    failures++;
    notBeforeNanos = nowNanos + delay;
  }

  /** Forgets the failures: the next one is retried after {@link #FIRST_NANOS}. */
  synchronized void succeeded() {
    failures = 0;
  }

  /** How long, from {@code nowNanos}, the next attempt waits: 0 unless the last attempt failed. */
  synchronized long delayNanos(long nowNanos) {
    return failures == 0 ? 0 : Math.max(0, notBeforeNanos - nowNanos);
  }

  synchronized int failures() {
    return failures;
  }
}
