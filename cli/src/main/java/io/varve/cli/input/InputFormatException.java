package io.varve.cli.input;

/**
 * Malformed input met by a {@link RecordReader}. The message always starts with {@code line N}
 * (and, where a column helps, {@code line N, column C}), so that it can be shown after the file's
 * name as is.
 *
 * <p>Immutable, like every exception; thread-safe.
 */
public final class InputFormatException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final long lineNumber;

  InputFormatException(long lineNumber, String detail) {
    super("line " + lineNumber + ": " + detail);
    this.lineNumber = lineNumber;
  }

  InputFormatException(long lineNumber, long column, String detail) {
    super("line " + lineNumber + ", column " + column + ": " + detail);
    this.lineNumber = lineNumber;
  }

  /** The 1-based line of the input where the problem is. */
  public long lineNumber() {
    return lineNumber;
  }
}
