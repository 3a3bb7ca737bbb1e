package io.varve.reader;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.channels.ClosedByInterruptException;
import java.nio.file.Path;

/**
 * What a read cut short by its thread's interrupt becomes. A {@code FileChannel} read on a thread
 * whose interrupt flag is set closes the channel and throws a {@link ClosedByInterruptException}
 * with no message, which says neither which store nor that an interrupt was the cause; a caller's
 * catch of {@code IOException} then logs a bare class name. Stateless; thread-safe.
 */
final class Interrupted {
  private Interrupted() {}

  /** A read of the store at {@code path} that may be cut short by an interrupt. */
  @FunctionalInterface
  interface Read<T> {
    T run() throws IOException;
  }

  /**
   * Runs {@code read}; an exception caused by its thread's interrupt becomes an {@link
   * InterruptedIOException} naming {@code path} and saying what was {@code doing} (the interrupt
   * flag is left as it is: set). Others pass unchanged.
   */
  static <T> T of(Path path, String doing, Read<T> read) throws IOException {
    try {
      return read.run();
    } catch (InterruptedIOException e) {
      throw e;
    } catch (IOException | RuntimeException e) {
      if (!byInterrupt(e)) {
        throw e;
      }
      InterruptedIOException interrupted =
          new InterruptedIOException(path + ": the thread was interrupted while " + doing + " (its interrupt flag stays set)");
      interrupted.initCause(e);
      throw interrupted;
    }
  }

  /** Whether {@code e} or one of its causes is a channel's report of its thread's interrupt. */
  private static boolean byInterrupt(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof ClosedByInterruptException) {
        return true;
      }
    }
    return false;
  }
}
