package io.varve.builder;

/**
 * The hand-over between a builder's or merger's finishing call ({@code build()}, {@code merge()})
 * and a {@code close()} from another thread while it runs: the close stops the work, the finishing
 * call then fails instead of publishing and removes its files itself, and the close returns once it
 * has (so that nothing is deleted under the writing thread, nor left behind). A close from the
 * finishing call's own thread (a listener's) does not wait. Thread-safe.
 */
final class FinishGuard {
  private final String subject;
  private final String finishCall;
  /** The thread inside the finishing call, or null. */
  private Thread running;
  private IllegalStateException closedWhileRunning;
  private boolean closed;

  /**
   * @param subject what the user holds, such as {@code "builder"}
   * @param finishCall the call that finishes, such as {@code "build()"}
   */
  FinishGuard(String subject, String finishCall) {
    this.subject = subject;
    this.finishCall = finishCall;
  }

  /** Marks the finishing call running on this thread, unless a close came first (from any thread). */
  synchronized void start() {
    if (closed) {
      throw new IllegalStateException("the " + subject + " is closed");
    }
    running = Thread.currentThread();
  }

  /** Marks it ended, its files removed or published, and wakes a waiting close. */
  synchronized void end() {
    running = null;
    notifyAll();
  }

  /**
   * For {@code close()}: marks the close (a later {@link #start} is refused); if the finishing call
   * runs, marks it closed, runs {@code stop} (which must only stop its background work, never free
   * what it uses) and, from another thread, waits until it ended.
   *
   * @return whether the finishing call was running
   */
  synchronized boolean closeWhileRunning(Runnable stop) {
    closed = true;
    if (running == null) {
      return false;
    }
    if (closedWhileRunning == null) {
      closedWhileRunning = new IllegalStateException(
          "the " + subject + " was closed while " + finishCall + " ran: nothing was published");
    }
    stop.run();
    boolean interrupted = false;
    while (running != null && running != Thread.currentThread()) {
      try {
        wait();
      } catch (InterruptedException e) {
        interrupted = true; // the finishing call ends soon; its files must be gone when close returns
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    return true;
  }

  /** Throws the refusal once closed while running: called before publishing. */
  synchronized void checkNotClosed() {
    if (closedWhileRunning != null) {
      throw closedWhileRunning;
    }
  }

  /**
   * The refusal to throw instead of {@code failure} (which it then holds as suppressed) once closed
   * while running, since the close caused the failure; null when not closed.
   */
  synchronized IllegalStateException closedFailure(Throwable failure) {
    if (closedWhileRunning != null && failure != closedWhileRunning) {
      closedWhileRunning.addSuppressed(failure);
    }
    return closedWhileRunning;
  }
}
