package io.varve.core.testing;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A store's reader interrupted again and again while the test thread goes on using the store: an
 * interrupt must neither fail the interrupted reader's calls nor close a file for the others.
 */
public final class InterruptedReader {
  /** One pass of the reader's lookups; it throws if a lookup is wrong. */
  @FunctionalInterface
  public interface Reads {
    void run() throws Exception;
  }

  /** One step of the test thread, between two interrupts of the reader. */
  @FunctionalInterface
  public interface Step {
    void run(int round) throws Exception;
  }

  private InterruptedReader() {}

  /**
   * Runs {@code reads} over and over on a thread of its own, interrupting it before each of the
   * caller's {@code step}s, for a second.
   *
   * @return the steps taken
   * @throws AssertionError if the reader failed (its failure the cause)
   */
  public static int race(Reads reads, Step step) throws Exception {
    AtomicBoolean stop = new AtomicBoolean();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    Thread victim =
        new Thread(() -> {
          try {
            while (!stop.get()) {
              Thread.interrupted();
              reads.run();
            }
          } catch (Throwable t) {
            failure.compareAndSet(null, t);
          }
        });
    victim.start();
    long end = System.nanoTime() + 1_000_000_000L;
    int rounds = 0;
    try {
      while (System.nanoTime() < end && failure.get() == null) {
        victim.interrupt();
        step.run(rounds++);
      }
    } finally {
      stop.set(true);
      victim.join();
    }
    if (failure.get() != null) {
      throw new AssertionError("the interrupted reader failed", failure.get());
    }
    return rounds;
  }
}
