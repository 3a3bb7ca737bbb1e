package io.varve.builder;

/**
 * The order of use of a builder or a merger, checked at each call: configure, then add records,
 * then finish once ({@code build()}, {@code merge()}); close at any time. Its refusals speak the
 * caller's words. Not thread-safe: it belongs to its builder's one thread.
 */
final class UseOrder {
  private final String subject;
  private final String finishCall;
  private final String firstAddition;
  private boolean finished;
  private boolean closed;
  /** Why the records added cannot make a store any more, or null. */
  private IllegalStateException failed;

  /**
   * @param subject what the user holds, such as {@code "builder"}
   * @param finishCall the call that finishes, such as {@code "build()"}
   * @param firstAddition what ends the configuration, such as {@code "put()"}
   */
  UseOrder(String subject, String finishCall, String firstAddition) {
    this.subject = subject;
    this.finishCall = finishCall;
    this.firstAddition = firstAddition;
  }

  /** Refuses a setting once records were added ({@code started}), or once finished or closed. */
  void checkConfigurable(boolean started) {
    checkOpen();
    if (started) {
      throw new IllegalStateException("configure the " + subject + " before the first " + firstAddition);
    }
  }

  /** Refuses any use once finished or closed, or once the input failed midway ({@link #fail}). */
  void checkOpen() {
    if (closed) {
      throw new IllegalStateException("the " + subject + " is closed");
    }
    if (finished) {
      throw new IllegalStateException(finishCall + " was already called");
    }
    if (failed != null) {
      throw new IllegalStateException(failed.getMessage(), failed.getCause());
    }
  }

  /**
   * Marks the input broken off by {@code cause} after part of it was added ({@code what} says
   * how): every later use but close is refused, naming it.
   */
  void fail(String what, Throwable cause) {
    failed = new IllegalStateException(
        what + " (" + cause + "): the " + subject + " holds part of its input, so " + finishCall
            + " cannot make a complete store; close it and start again",
        cause);
  }

  /** Marks the finishing call made: every later use is refused. */
  void finish() {
    finished = true;
  }

  /** Marks the close; false if it was closed before (a second close does nothing). */
  boolean close() {
    if (closed) {
      return false;
    }
    closed = true;
    return true;
  }
}
