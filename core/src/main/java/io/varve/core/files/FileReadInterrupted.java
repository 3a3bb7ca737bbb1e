package io.varve.core.files;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.ClosedByInterruptException;

/**
 * A read of one file cut short by its thread's interrupt. The {@link ClosedByInterruptException}
 * that a {@code FileChannel} throws has no message, so that a caller cannot tell which of a store's
 * files was being read; this one names it, and is still a {@code ClosedByInterruptException} for
 * callers that catch that. The store reader's entry points turn it into an {@code
 * InterruptedIOException} naming the store as well. Immutable.
 */
public final class FileReadInterrupted extends ClosedByInterruptException {
  private static final long serialVersionUID = 1L;

  private final String file;

  private FileReadInterrupted(String file, Throwable cause) {
    this.file = file;
    initCause(cause);
  }

  /** A read of one file. */
  @FunctionalInterface
  public interface Read<T> {
    T run() throws IOException;
  }

  /**
   * Runs {@code read} of {@code file} (a path, or an artifact's entry); an exception caused by its
   * thread's interrupt becomes a {@code FileReadInterrupted} naming {@code file}, its cause the
   * original (also when a library wrapped the channel's exception). One named already, by a read
   * of a file inside this one, passes unchanged. Others pass unchanged.
   */
  public static <T> T reading(String file, Read<T> read) throws IOException {
    try {
      return read.run();
    } catch (IOException | RuntimeException e) {
      if (cause(e, FileReadInterrupted.class) != null || cause(e, ClosedByInterruptException.class) == null) {
        throw e;
      }
      throw new FileReadInterrupted(file, e);
    }
  }

  /**
   * {@code in}, a stream of {@code file}'s bytes, with each read cut short by an interrupt naming
   * {@code file} as {@link #reading} does: for a file read bit by bit, through a buffer whose
   * refills are the only reads that reach the file (so the cost is per refill, not per value).
   */
  public static InputStream naming(String file, InputStream in) {
    return new FilterInputStream(in) {
      @Override
      public int read() throws IOException {
        return reading(file, super::read);
      }

      @Override
      public int read(byte[] b, int off, int len) throws IOException {
        return reading(file, () -> super.read(b, off, len));
      }

      @Override
      public long skip(long n) throws IOException {
        return reading(file, () -> super.skip(n));
      }

      @Override
      public int available() throws IOException {
        return reading(file, super::available); // a channel's size, interruptible too; a buffer asks it
      }
    };
  }

  /** {@code e} or its first cause of type {@code type}, or null. */
  public static <T extends Throwable> T cause(Throwable e, Class<T> type) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (type.isInstance(t)) {
        return type.cast(t);
      }
    }
    return null;
  }

  /** The file (or an artifact's entry, {@code artifact!/entry}) whose read was cut short. */
  public String file() {
    return file;
  }

  @Override
  public String getMessage() {
    return file + ": the read was cut short by the thread's interrupt";
  }
}
