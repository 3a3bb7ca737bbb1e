package io.varve.cli.input;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.CharacterCodingException;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * Reads key/value records from TSV, CSV or JSON-lines text, one at a time, as UTF-8 bytes.
 *
 * <pre>{@code
 * try (RecordReader records = RecordReader.open(
 *     Files.newInputStream(path), InputFormat.fromFileName(path.toString()), "0", "1", false, false)) {
 *   while (records.next()) {
 *     add(records.key(), records.value());
 *   }
 * }
 * }</pre>
 *
 * <p>The formats:
 *
 * <ul>
 *   <li>{@link InputFormat#TSV}: fields split on tabs, read by Commons CSV with a backslash escape:
 *       {@code \t}, {@code \n}, {@code \r}, {@code \\} (and {@code \b}, {@code \f}) are decoded as
 *       in PostgreSQL's {@code COPY} text format, and so is a backslash before a line break (the
 *       line break is data). A backslash before any other char stays a backslash ({@code C:\dir}
 *       reads as written). No quoting: a {@code "} is data.
 *   <li>{@link InputFormat#CSV}: RFC 4180, read by Commons CSV. A field that starts with {@code "}
 *       is quoted and may hold commas, line breaks and doubled quotes; after a closing quote only a
 *       comma or the end of the line may follow.
 *   <li>{@link InputFormat#JSON_LINES}: one JSON object per line, read by Jackson's streaming
 *       parser and validated in full. The key and the value are top-level fields whose values are
 *       JSON strings; any other value ({@code null}, a number, {@code true}, an object, an array)
 *       is an error, unless the reader is opened with {@code jsonText}, which takes such a value's
 *       JSON text (objects and arrays written compactly). Each of the two fields must appear once.
 * </ul>
 *
 * <p>In every format a record ends at a line feed, a carriage return, or the two together; lines
 * with nothing on them are skipped (so a record with an empty key and value is {@code "\t"} in
 * TSV); a byte order mark at the start of the input is dropped.
 *
 * <p>Columns ({@link InputFormat#TSV TSV} and {@link InputFormat#CSV CSV}) are given as a 0-based
 * index in decimal ({@code "0"}) or as a name in the header line. A column text made only of
 * digits is always an index. For JSON lines the columns are top-level field names, even when they
 * look like numbers, and the header flag is ignored.
 *
 * <p>A reader opened with {@link #openKeys} reads keys alone (for lists of keys to delete, say):
 * a record needs only its key column, and {@link #value()} is not available.
 *
 * <p>Errors in the input throw {@link InputFormatException}, whose message starts with the line
 * number; after one, the reader cannot go on. Text that is not UTF-8 is such an error too when the
 * reader is opened over bytes, or over a {@link Utf8Reader}, with the exact line, column and byte
 * offset of the first bad byte. Over bytes, JSON lines are parsed by Jackson's UTF-8 parser, whose
 * columns count bytes; elsewhere columns count UTF-16 chars. I/O errors throw {@link
 * UncheckedIOException}.
 *
 * <p>Not thread-safe: use one reader per thread.
 */
public abstract class RecordReader implements Closeable {
  /** What to do about input that is not UTF-8, for error messages. */
  static final String CONVERT =
      "the input must be UTF-8 text: convert it first (for example with iconv -f ISO-8859-1 -t UTF-8 if it is Latin-1)";

  private final Closeable in;
  /** The current record, set by {@link #advance}: its key, value (as UTF-8) and first line. */
  byte[] key;
  byte[] value;
  long recordLine;
  private final boolean keysOnly;
  private boolean hasRecord;
  private RuntimeException failure;
  private boolean closed;

  RecordReader(Closeable in, boolean keysOnly) {
    this.in = in;
    this.keysOnly = keysOnly;
  }

  /**
   * Opens a reader over {@code in}, which it closes on {@link #close} (or at once if opening
   * fails). With a header, the header line is read here, so a column name it lacks fails now.
   *
   * @param in the text; buffering it is not needed
   * @param format how the text is laid out
   * @param keyColumn the key's column: a 0-based index such as {@code "0"} or a header name; for
   *     JSON lines, a top-level field name
   * @param valueColumn the value's column, given the same way (it may equal {@code keyColumn})
   * @param header whether the first non-blank line of a TSV or CSV input names the columns rather
   *     than holding a record
   * @throws IllegalArgumentException if a column is a name but there is no header line to find it
   *     in, or an index is too large
   * @throws InputFormatException if the header line is malformed or lacks a named column
   * @throws UncheckedIOException if reading the start of the input fails
   */
  public static RecordReader open(Reader in, InputFormat format, String keyColumn, String valueColumn, boolean header) {
    return open(in, format, keyColumn, valueColumn, header, false, false);
  }

  /**
   * As {@link #open(Reader, InputFormat, String, String, boolean)}; {@code jsonText} takes a JSON
   * field that is not a string as its JSON text instead of failing.
   */
  public static RecordReader open(
      Reader in, InputFormat format, String keyColumn, String valueColumn, boolean header, boolean jsonText) {
    return open(in, format, keyColumn, valueColumn, header, jsonText, false);
  }

  /**
   * Opens a reader of keys alone over {@code in}, which it closes on {@link #close}: the same
   * formats and column rules as {@code open}, but a record needs only its key column (a TSV or CSV
   * line may hold just the key; a JSON object needs no value field), and {@link #value()} throws.
   *
   * @throws IllegalArgumentException if the column is a name but there is no header line to find
   *     it in, or an index is too large
   * @throws InputFormatException if the header line is malformed or lacks the named column
   * @throws UncheckedIOException if reading the start of the input fails
   */
  public static RecordReader openKeys(Reader in, InputFormat format, String keyColumn, boolean header, boolean jsonText) {
    return open(in, format, keyColumn, keyColumn, header, jsonText, true);
  }

  /**
   * Opens a reader over the UTF-8 bytes {@code in}, which it closes on {@link #close}: the same
   * formats, columns and errors as {@link #open(Reader, InputFormat, String, String, boolean,
   * boolean)} over a {@link Utf8Reader}, but JSON lines are parsed from the bytes themselves
   * (checked as strict UTF-8 first), which is faster; columns in Jackson's messages then count
   * bytes rather than chars.
   *
   * @throws InputFormatException if the header line is malformed or lacks a named column
   */
  public static RecordReader open(
      InputStream in, InputFormat format, String keyColumn, String valueColumn, boolean header, boolean jsonText) {
    return open(in, format, keyColumn, valueColumn, header, jsonText, false);
  }

  /** As {@link #openKeys(Reader, InputFormat, String, boolean, boolean)}, over UTF-8 bytes as {@link #open(InputStream, InputFormat, String, String, boolean, boolean)} reads them. */
  public static RecordReader openKeys(InputStream in, InputFormat format, String keyColumn, boolean header, boolean jsonText) {
    return open(in, format, keyColumn, keyColumn, header, jsonText, true);
  }

  private static RecordReader open(
      InputStream in, InputFormat format, String keyColumn, String valueColumn, boolean header, boolean jsonText, boolean keysOnly) {
    Objects.requireNonNull(in, "in");
    Objects.requireNonNull(format, "format");
    requireColumns(keyColumn, valueColumn);
    return closingOnFailure(in, () -> {
      Utf8InputStream checked = new Utf8InputStream(in);
      if (format == InputFormat.JSON_LINES) {
        return JsonLinesRecordReader.overBytes(checked, keyColumn, valueColumn, jsonText, keysOnly);
      }
      return new DelimitedRecordReader(checked, format == InputFormat.CSV, keyColumn, valueColumn, header, keysOnly);
    });
  }

  private static RecordReader open(
      Reader in, InputFormat format, String keyColumn, String valueColumn, boolean header, boolean jsonText, boolean keysOnly) {
    Objects.requireNonNull(in, "in");
    Objects.requireNonNull(format, "format");
    requireColumns(keyColumn, valueColumn);
    return closingOnFailure(in, () -> {
      InputText text = new InputText(in);
      if (format == InputFormat.JSON_LINES) {
        return JsonLinesRecordReader.overChars(text, keyColumn, valueColumn, jsonText, keysOnly);
      }
      // Chars from the strict decoder are valid UTF-16: their fields need no check for lone surrogates.
      boolean validText = in instanceof Utf8Reader;
      return new DelimitedRecordReader(text, format == InputFormat.CSV, keyColumn, valueColumn, header, keysOnly, validText);
    });
  }

  private static void requireColumns(String keyColumn, String valueColumn) {
    Objects.requireNonNull(keyColumn, "keyColumn");
    Objects.requireNonNull(valueColumn, "valueColumn");
  }

  /** Opens a reader, closing {@code in} if that fails. */
  private static RecordReader closingOnFailure(Closeable in, Supplier<RecordReader> opening) {
    try {
      return opening.get();
    } catch (RuntimeException e) {
      try {
        in.close();
      } catch (IOException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
  }

  /**
   * Moves to the next record.
   *
   * @return false at the end of the input (and on every call after)
   * @throws InputFormatException if the input is malformed; the reader is then unusable
   * @throws UncheckedIOException if reading fails
   * @throws IllegalStateException if the reader is closed or failed before
   */
  public final boolean next() {
    if (closed) {
      throw new IllegalStateException("the record reader is closed");
    }
    if (failure != null) {
      throw new IllegalStateException("the record reader stopped at an error: " + failure.getMessage(), failure);
    }
    hasRecord = false;
    try {
      hasRecord = advance();
    } catch (InputFormatException | UncheckedIOException e) {
      failure = e;
      throw e;
    }
    return hasRecord;
  }

  /** Reads the next record; false at the end of the input. */
  abstract boolean advance();

  /**
   * The current record's key as UTF-8. The array is new for each record and belongs to the caller;
   * calling again for the same record returns the same array.
   *
   * @throws IllegalStateException if there is no current record
   */
  public final byte[] key() {
    checkRecord();
    return key;
  }

  /**
   * The current record's value as UTF-8, under the same terms as {@link #key()}.
   *
   * @throws IllegalStateException if there is no current record, or the reader reads keys only
   */
  public final byte[] value() {
    if (keysOnly) {
      throw new IllegalStateException("this reader reads keys only (openKeys): records have no value");
    }
    checkRecord();
    return value;
  }

  /**
   * The 1-based line the current record starts on (a CSV record can span lines), or 0 if there is
   * no current record.
   */
  public final long lineNumber() {
    return hasRecord ? recordLine : 0;
  }

  private void checkRecord() {
    if (!hasRecord) {
      throw new IllegalStateException("no current record: call next() first, and only use the record while it returns true");
    }
  }

  /**
   * The input error that an I/O exception out of the text stands for, or null if it is a true I/O
   * error: text that is not UTF-8 is the input's fault, at the exact place the decoder saw.
   */
  static InputFormatException notText(IOException e, long line) {
    if (e instanceof InvalidUtf8Exception invalid) {
      return new InputFormatException(invalid.line(), invalid.column(), invalid.getMessage() + "; " + CONVERT);
    }
    if (e instanceof CharacterCodingException) {
      // Another decoder may have dropped chars before the error: the place is not exact.
      return new InputFormatException(line, "the input is not valid text at or after this line (" + e + "); " + CONVERT);
    }
    return null;
  }

  /**
   * Closes the underlying reader. Calling it again does nothing.
   *
   * @throws UncheckedIOException if closing fails
   */
  @Override
  public final void close() {
    if (!closed) {
      closed = true;
      hasRecord = false;
      try {
        in.close();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }
}
