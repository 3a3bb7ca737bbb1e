package io.varve.cli.input;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVParser;
import org.apache.commons.csv.CSVRecord;

/**
 * TSV and CSV records, parsed by Commons CSV ({@link RecordReader} gives the two formats). Blank
 * lines are skipped here rather than by Commons CSV, so that the line a record starts on is the
 * parser's count of line breaks before it, plus one. Not thread-safe.
 */
final class DelimitedRecordReader extends RecordReader {
  private static final int MAX_NAMES_SHOWN = 20;

  /** RFC 4180, blank lines kept (see the class comment). */
  static final CSVFormat CSV = CSVFormat.RFC4180.builder().setIgnoreEmptyLines(false).get();

  /** Tabs, no quotes, PostgreSQL's backslash escapes. */
  static final CSVFormat TSV =
      CSVFormat.Builder.create()
          .setDelimiter('\t')
          .setQuote(null)
          .setEscape('\\')
          .setIgnoreEmptyLines(false)
          .setRecordSeparator('\n')
          .get();

  /**
   * Over bytes, the plain lines, split without Commons CSV until one holds a backslash (TSV) or a
   * quote (CSV); then, and over chars, null.
   */
  private PlainLines plain;
  /** Whether the current record is {@link #plain}'s line rather than {@link #record}. */
  private boolean plainRecord;
  /** Lines read before {@link #parser} took over. */
  private long lineOffset;
  private CSVParser parser;
  private Iterator<CSVRecord> records;
  private final boolean csv;
  /** Whether the chars come from a strict UTF-8 decoder, so that no field can hold a lone surrogate. */
  private final boolean validText;
  private int keyIndex;
  private int valueIndex;
  private String keyLabel;
  private String valueLabel;
  private CSVRecord record;

  /** Over chars: every line goes through Commons CSV. */
  DelimitedRecordReader(
      Reader in, boolean csv, String keyColumn, String valueColumn, boolean header, boolean keysOnly, boolean validText) {
    this(in, in, csv, keyColumn, valueColumn, header, keysOnly, validText);
  }

  /** Over UTF-8 bytes already checked ({@link Utf8InputStream}): plain lines split in place, the rest through Commons CSV. */
  DelimitedRecordReader(
      InputStream checkedBytes, boolean csv, String keyColumn, String valueColumn, boolean header, boolean keysOnly) {
    this(checkedBytes, null, csv, keyColumn, valueColumn, header, keysOnly, true);
  }

  private DelimitedRecordReader(
      Closeable source,
      Reader chars,
      boolean csv,
      String keyColumn,
      String valueColumn,
      boolean header,
      boolean keysOnly,
      boolean validText) {
    super(source, keysOnly);
    this.csv = csv;
    this.validText = validText;
    int keyAt = index("key", keyColumn);
    int valueAt = index("value", valueColumn);
    if (!header) {
      // Fail before reading anything: without a header there is nothing to look a name up in.
      if (keyAt < 0) {
        throw needsHeader("key", keyColumn);
      }
      if (valueAt < 0) {
        throw needsHeader("value", valueColumn);
      }
    }
    if (chars == null) {
      plain = csv ? new PlainLines((InputStream) source, ',', '"') : new PlainLines((InputStream) source, '\t', '\\');
    } else {
      openParser(chars);
    }
    if (header && nextNonBlank()) {
      List<String> names = new ArrayList<>();
      for (int i = 0; i < fieldCount(); i++) {
        names.add(field(i));
      }
      keyAt = keyAt >= 0 ? keyAt : lookUp(names, "key", keyColumn);
      valueAt = valueAt >= 0 ? valueAt : lookUp(names, "value", valueColumn);
    }
    // An empty input has no records, whichever columns they would have been.
    keyIndex = Math.max(keyAt, 0);
    valueIndex = Math.max(valueAt, 0);
    keyLabel = label("key", keyColumn, keyIndex);
    valueLabel = label("value", valueColumn, valueIndex);
  }

  @Override
  boolean advance() {
    key = null;
    value = null;
    if (!nextNonBlank()) {
      return false;
    }
    int fields = fieldCount();
    int needed = Math.max(keyIndex, valueIndex) + 1;
    if (fields < needed) {
      boolean keyMissing = keyIndex >= fields;
      throw new InputFormatException(
          recordLine,
          fields + (fields == 1 ? " field, " : " fields, ") + (keyMissing ? keyLabel : valueLabel)
              + " needs at least " + ((keyMissing ? keyIndex : valueIndex) + 1));
    }
    // Encoded here rather than when asked for, so that a field UTF-8 cannot hold fails the record's next().
    key = encode(keyIndex, "key");
    value = valueIndex == keyIndex ? key : encode(valueIndex, "value");
    return true;
  }

  private int fieldCount() {
    return plainRecord ? plain.fieldCount() : record.size();
  }

  private String field(int i) {
    return plainRecord ? plain.field(i) : record.get(i);
  }

  private void openParser(Reader in) {
    try {
      parser = CSVParser.builder().setReader(in).setFormat(csv ? CSV : TSV).get();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    records = parser.iterator();
  }

  /** Moves {@link #record} to the next record that is not a blank line; false at the end. */
  private boolean nextNonBlank() {
    while (plain != null) {
      recordLine = plain.linesRead() + 1;
      try {
        if (plain.next()) {
          plainRecord = true;
          if (plain.fieldCount() > 1 || plain.fieldLength(0) > 0) {
            return true;
          }
          continue;
        }
        if (!plain.stoppedAtSpecial()) {
          return false;
        }
        lineOffset = plain.linesRead();
        // The byte order mark, if any, is behind: a U+FEFF that starts this line is data.
        openParser(new InputText(new Utf8Reader(plain.rest()), false));
      } catch (IOException e) {
        throw failure(e);
      }
      plain = null;
      plainRecord = false;
    }
    for (;;) {
      // Set before parsing, so that an error inside the record names the line it starts on.
      recordLine = lineOffset + parser.getCurrentLineNumber() + 1;
      try {
        // The iterator parses a record in hasNext(): the count of line breaks above comes before it.
        if (!records.hasNext()) {
          return false;
        }
        record = records.next();
      } catch (UncheckedIOException e) {
        throw failure(e.getCause());
      }
      if (record.size() > 1 || !record.get(0).isEmpty()) {
        return true;
      }
    }
  }

  private RuntimeException failure(IOException e) {
    long line = recordLine;
    InputFormatException notText = notText(e, line);
    if (notText != null) {
      return notText;
    }
    String message = String.valueOf(e.getMessage());
    if (message.contains("EOF reached before encapsulated token finished")) {
      return new InputFormatException(
          line, "a quoted field that starts on this record is never closed (no matching '\"' before the end of the input)");
    }
    if (message.contains("between encapsulated token and delimiter")) {
      return new InputFormatException(
          line, "expected '" + (csv ? ',' : '\t') + "' or the end of the line after a closing quote");
    }
    if (message.contains("EOF while processing escape sequence")) {
      return new InputFormatException(line, "a backslash at the end of the input escapes nothing (write \\\\ for a backslash)");
    }
    if (e instanceof org.apache.commons.csv.CSVException) {
      return new InputFormatException(line, message);
    }
    return new UncheckedIOException("reading line " + line + ": " + e.getMessage(), e);
  }

  private byte[] encode(int index, String role) {
    byte[] bytes;
    if (plainRecord) {
      return plain.fieldBytes(index);
    } else if (validText) {
      return record.get(index).getBytes(StandardCharsets.UTF_8);
    } else {
      bytes = Utf8.encode(record.get(index));
    }
    if (bytes == null) {
      throw new InputFormatException(recordLine, "the " + role + " holds an unpaired UTF-16 surrogate (not valid Unicode)");
    }
    return bytes;
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

  private int lookUp(List<String> names, String role, String column) {
    int found = names.indexOf(column);
    if (found < 0) {
      throw new InputFormatException(
          recordLine, "the header has no column named '" + column + "' for the " + role + " (it has " + show(names) + ")");
    }
    int again = names.subList(found + 1, names.size()).indexOf(column);
    if (again >= 0) {
      throw new InputFormatException(
          recordLine,
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
}
