package io.varve.cli;

import java.io.Closeable;
import java.io.IOException;

/**
 * Closes a builder or merger if the JVM shuts down while it works (Ctrl-C, {@code kill}): its
 * spills and staging directory are then removed before the process ends, instead of waiting for
 * the next run in the same directory (a {@code kill -9} still leaves them to it). The close stops
 * a build or merge that runs, which then publishes nothing. Closing this handle withdraws the
 * hook. Used by the command's one thread; the hook runs on its own.
 */
final class CloseOnExit implements AutoCloseable {
  /** Whether a hook closed its work: the command's failures that follow are the shutdown's. */
  private static volatile boolean closedAtExit;

  private final Thread hook;

  private CloseOnExit(Thread hook) {
    this.hook = hook;
  }

  /** Registers the close of {@code work} at shutdown, until {@link #close()}. */
  static CloseOnExit of(Closeable work) {
    Thread hook = new Thread(() -> {
      closedAtExit = true;
      try {
        work.close();
      } catch (IOException | RuntimeException ignored) {
        // the process ends anyway; the next run in the same place removes what is left
      }
    }, "varve-close-on-exit");
    Runtime.getRuntime().addShutdownHook(hook);
    return new CloseOnExit(hook);
  }

  /** Whether the JVM shuts down and a hook closed a command's work. */
  static boolean closedAtExit() {
    return closedAtExit;
  }

  @Override
  public void close() {
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException shuttingDown) {
      // the hook runs now, or ran
    }
  }
}
