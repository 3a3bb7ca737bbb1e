package io.varve.examples.input;

import java.io.Closeable;
import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Objects;

/**
 * Reads key/value records from TSV, CSV or JSON-lines text, one at a time, as UTF-8 bytes.
 *
 * <pre>{@code
 * try (RecordReader records = RecordReader.open(
 *     new Utf8Reader(Files.newInputStream(path)), InputFormat.fromFileName(path.toString()), "0", "1", false)) {
 *   while (records.next()) {
 *     add(records.key(), records.value());
 *   }
 * }
 * }</pre>
 *
 * <p>The formats:
 *
 * <ul>
 *   <li>{@link InputFormat#TSV}: fields split on tabs; {@code \t}, {@code \n}, {@code \r} and
 *       {@code \\} are decoded as in PostgreSQL's {@code COPY} text format. A backslash before any
 *       other char stays a backslash (so {@code C:\dir} reads as written).
 *   <li>{@link InputFormat#CSV}: RFC 4180. A field that starts with {@code "} is quoted and may
 *       hold commas, line breaks and doubled quotes; a quote inside an unquoted field is kept as
 *       is; after a closing quote only a comma or the end of the line may follow.
 *   <li>{@link InputFormat#JSON_LINES}: one JSON object per line, validated in full. A string
 *       field gives its decoded text; any other value (number, {@code true}, {@code null}, object,
 *       array) gives its JSON text exactly as written. Each of the two fields must appear once.
 * </ul>
 *
 * <p>In every format a record ends at a line feed, with an optional carriage return before it;
 * lines with nothing on them are skipped (so a record with an empty key and value is {@code "\t"}
 * in TSV); a byte order mark at the start of the input is dropped. Lines may be of any length: the
 * input streams through a fixed buffer and only the two fields wanted are kept.
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
 * number; after one, the reader cannot go on. Text that is not valid in its encoding is such an
 * error too; read bytes through a {@link Utf8Reader} for the exact line, column and byte offset of
 * the first bad byte. I/O errors throw {@link UncheckedIOException}.
 *
 * <p>Not thread-safe: use one reader per thread.
 */
public final class RecordReader implements Closeable {
  static final int DEFAULT_BUFFER_SIZE = 1 << 16;
  private static final int MAX_NAMES_SHOWN = 20;

  private final Parser parser;
  private final boolean keysOnly;
  private boolean hasRecord;
  private InputFormatException failure;
  private boolean closed;
  private byte[] key;
  private byte[] value;

  private RecordReader(Parser parser, boolean keysOnly) {
    this.parser = parser;
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
    return open(in, format, keyColumn, valueColumn, header, DEFAULT_BUFFER_SIZE);
  }

  /** As {@link #open(Reader, InputFormat, String, String, boolean)}, with a chosen buffer size (tests use tiny ones). */
  static RecordReader open(
      Reader in, InputFormat format, String keyColumn, String valueColumn, boolean header, int bufferSize) {
    return open(in, format, keyColumn, valueColumn, header, bufferSize, false);
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
  public static RecordReader openKeys(Reader in, InputFormat format, String keyColumn, boolean header) {
    return openKeys(in, format, keyColumn, header, DEFAULT_BUFFER_SIZE);
  }

  /** As {@link #openKeys(Reader, InputFormat, String, boolean)}, with a chosen buffer size. */
  static RecordReader openKeys(Reader in, InputFormat format, String keyColumn, boolean header, int bufferSize) {
    // The parsers already read one column into both fields when the two columns coincide, which
    // requires exactly the key column and nothing else; value() hides the copy.
    return open(in, format, keyColumn, keyColumn, header, bufferSize, true);
  }

  private static RecordReader open(
      Reader in, InputFormat format, String keyColumn, String valueColumn, boolean header, int bufferSize, boolean keysOnly) {
    Objects.requireNonNull(in, "in");
    Objects.requireNonNull(format, "format");
    Objects.requireNonNull(keyColumn, "keyColumn");
    Objects.requireNonNull(valueColumn, "valueColumn");
    if (bufferSize < 1) {
      throw new IllegalArgumentException("bufferSize must be positive, got " + bufferSize);
    }
    try {
      if (format == InputFormat.JSON_LINES) {
        Parser parser = new JsonLinesParser(in, bufferSize, keyColumn, valueColumn);
        skipByteOrderMark(parser);
        return new RecordReader(parser, keysOnly);
      }
      return new RecordReader(
          openDelimited(in, bufferSize, format == InputFormat.CSV, keyColumn, valueColumn, header), keysOnly);
    } catch (RuntimeException e) {
      try {
        in.close();
      } catch (IOException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
  }

  private static Parser openDelimited(
      Reader in, int bufferSize, boolean csv, String keyColumn, String valueColumn, boolean header) {
    int keyIndex = index("key", keyColumn);
    int valueIndex = index("value", valueColumn);
    if (!header) {
      // Fail before reading anything: without a header there is nothing to look a name up in.
      if (keyIndex < 0) {
        throw needsHeader("key", keyColumn);
      }
      if (valueIndex < 0) {
        throw needsHeader("value", valueColumn);
      }
    }
    DelimitedParser parser = new DelimitedParser(in, bufferSize, csv);
    skipByteOrderMark(parser);
    if (header) {
      List<String> names;
      try {
        names = parser.readHeader();
      } catch (Utf8Sink.FieldTooLongException e) {
        throw new InputFormatException(parser.recordLine, "a header field is longer than the largest Java array");
      }
      if (names != null) {
        if (keyIndex < 0) {
          keyIndex = lookUp(names, "key", keyColumn, parser.recordLine);
        }
        if (valueIndex < 0) {
          valueIndex = lookUp(names, "value", valueColumn, parser.recordLine);
        }
      } else {
        // An empty input has no records, whichever columns they would have been.
        keyIndex = Math.max(keyIndex, 0);
        valueIndex = Math.max(valueIndex, 0);
      }
    }
    parser.columns(keyIndex, valueIndex, label("key", keyColumn, keyIndex), label("value", valueColumn, valueIndex));
    return parser;
  }

  /** The 0-based index that {@code column} gives, or -1 if it is a name. */
  private static int index(String role, String column) {
    if (column.isEmpty()) {
      return -1;
    }
    for (int i = 0; i < column.length(); i++) {
      char c = column.charAt(i);
      if (c < '0' || c > '9') {
        return -1;
      }
    }
    try {
      int index = Integer.parseInt(column);
      if (index < Integer.MAX_VALUE) {
        return index;
      }
    } catch (NumberFormatException e) {
      // Too large; reported below.
    }
    throw new IllegalArgumentException(role + " column index " + column + " is too large");
  }

  private static IllegalArgumentException needsHeader(String role, String column) {
    return new IllegalArgumentException(
        role + " column '" + column + "' is a name, which needs a header line: give a 0-based index"
            + " (such as 0) or declare that the input has a header");
  }

  private static int lookUp(List<String> names, String role, String column, long headerLine) {
    int found = names.indexOf(column);
    if (found < 0) {
      throw new InputFormatException(
          headerLine, "the header has no column named '" + column + "' for the " + role + " (it has " + show(names) + ")");
    }
    int again = names.subList(found + 1, names.size()).indexOf(column);
    if (again >= 0) {
      throw new InputFormatException(
          headerLine,
          "the header names two columns '" + column + "' (indexes " + found + " and " + (found + 1 + again)
              + "), so the " + role + " column is ambiguous; give its index instead");
    }
    return found;
  }

  private static String show(List<String> names) {
    StringBuilder s = new StringBuilder();
    int shown = Math.min(names.size(), MAX_NAMES_SHOWN);
    for (int i = 0; i < shown; i++) {
      s.append(i == 0 ? "'" : ", '").append(names.get(i)).append('\'');
    }
    if (shown < names.size()) {
      s.append(", and ").append(names.size() - shown).append(" more");
    }
    return s.toString();
  }

  private static String label(String role, String column, int index) {
    return column.equals(Integer.toString(index))
        ? role + " column " + index
        : role + " column '" + column + "' (index " + index + ")";
  }

  private static void skipByteOrderMark(Parser parser) {
    if (parser.peek() == '\uFEFF') {
      parser.pos++;
      parser.lineStart = parser.offset();
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
  public boolean next() {
    if (closed) {
      throw new IllegalStateException("the record reader is closed");
    }
    if (failure != null) {
      throw new IllegalStateException("the record reader stopped at an error: " + failure.getMessage(), failure);
    }
    key = null;
    value = null;
    hasRecord = false;
    try {
      hasRecord = parser.next();
    } catch (InputFormatException e) {
      failure = e;
      throw e;
    } catch (Utf8Sink.FieldTooLongException e) {
      failure = new InputFormatException(parser.recordLine, "a field is longer than the largest Java array (2 GiB of UTF-8)");
      throw failure;
    }
    return hasRecord;
  }

  /**
   * The current record's key as UTF-8. The array is new for each record and belongs to the caller;
   * calling again for the same record returns the same array.
   *
   * @throws IllegalStateException if there is no current record
   */
  public byte[] key() {
    checkRecord();
    if (key == null) {
      key = parser.key.toArray();
    }
    return key;
  }

  /**
   * The current record's value as UTF-8, under the same terms as {@link #key()}.
   *
   * @throws IllegalStateException if there is no current record, or the reader reads keys only
   */
  public byte[] value() {
    if (keysOnly) {
      throw new IllegalStateException("this reader reads keys only (openKeys): records have no value");
    }
    checkRecord();
    if (value == null) {
      value = parser.value.toArray();
    }
    return value;
  }

  /**
   * The 1-based line the current record starts on (a CSV record can span lines), or 0 if there is
   * no current record.
   */
  public long lineNumber() {
    return hasRecord ? parser.recordLine : 0;
  }

  private void checkRecord() {
    if (!hasRecord) {
      throw new IllegalStateException("no current record: call next() first, and only use the record while it returns true");
    }
  }

  /**
   * Closes the underlying reader. Calling it again does nothing.
   *
   * @throws UncheckedIOException if closing fails
   */
  @Override
  public void close() {
    if (!closed) {
      closed = true;
      hasRecord = false;
      parser.close();
    }
  }
}
