package io.varve.reader;

import io.varve.core.files.FileReadInterrupted;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.channels.ClosedByInterruptException;
import java.nio.file.Path;

/**
 * What a read cut short by its thread's interrupt becomes. A {@code FileChannel} read on a thread
 * whose interrupt flag is set closes the channel and throws a {@link ClosedByInterruptException}
 * with no message, which says neither which store nor that an interrupt was the cause; a caller's
 * catch of {@code IOException} then logs a bare class name. The message names the store and, when
 * the read named it ({@link FileReadInterrupted}), the file being read. Stateless; thread-safe.
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
      if (FileReadInterrupted.cause(e, ClosedByInterruptException.class) == null) {
        throw e;
      }
      FileReadInterrupted named = FileReadInterrupted.cause(e, FileReadInterrupted.class);
      InterruptedIOException interrupted = new InterruptedIOException(path + ": the thread was interrupted while " + doing
          + (named == null ? "" : ", reading " + named.file()) + " (its interrupt flag stays set)");
      interrupted.initCause(e);
      throw interrupted;
    }
  }
}
