package io.varve.examples.input;

import java.io.Reader;
import java.util.ArrayList;
import java.util.List;

/**
 * Parses TSV (with PostgreSQL {@code COPY} text escapes) and RFC 4180 CSV. One class for both
 * because the record loop, blank-line rule and column checks are the same; only the field scanner
 * differs, and choosing it costs one predictable branch per field.
 *
 * <p>A record ends at a line feed; a carriage return right before it (or before the end of the
 * input) belongs to the line ending, anywhere else it is data. Lines with no chars at all (after
 * dropping that carriage return) are skipped, so a record with two columns always has a separator.
 *
 * <p>Not thread-safe.
 */
final class DelimitedParser extends Parser {
  private final boolean csv;
  private final char separator;

  private int keyColumn;
  private int valueColumn;
  private int maxColumn;
  private String keyLabel;
  private String valueLabel;

  /**
   * The absolute offset where the field just read ended (its terminator, or the carriage return of
   * a CRLF), or -1 for a quoted field; a line is blank when its only field ends where it started.
   */
  private long fieldEnd;

  DelimitedParser(Reader in, int bufferSize, boolean csv) {
    super(in, bufferSize);
    this.csv = csv;
    this.separator = csv ? ',' : '\t';
  }

  /** Sets the 0-based columns to read; the labels name them in error messages. */
  void columns(int keyColumn, int valueColumn, String keyLabel, String valueLabel) {
    this.keyColumn = keyColumn;
    this.valueColumn = valueColumn;
    this.maxColumn = Math.max(keyColumn, valueColumn);
    this.keyLabel = keyLabel;
    this.valueLabel = valueLabel;
  }

  /** Reads the first non-blank line as column names; null if the input has none. */
  List<String> readHeader() {
    Utf8Sink sink = new Utf8Sink();
    for (;;) {
      if (peek() == END) {
        return null;
      }
      recordLine = line;
      long start = offset();
      List<String> names = new ArrayList<>();
      int terminator;
      do {
        sink.reset();
        terminator = readField(sink);
        if (sink.malformed()) {
          throw new InputFormatException(recordLine, "the header holds an unpaired UTF-16 surrogate (not valid Unicode)");
        }
        names.add(sink.asString());
      } while (terminator == separator);
      if (names.size() == 1 && fieldEnd == start) {
        continue;
      }
      return names;
    }
  }

  @Override
  boolean next() {
    for (;;) {
      if (peek() == END) {
        return false;
      }
      recordLine = line;
      long start = offset();
      key.reset();
      value.reset();
      int fields = 0;
      int terminator;
      do {
        Utf8Sink sink = fields == keyColumn ? key : fields == valueColumn ? value : null;
        terminator = readField(sink);
        fields++;
      } while (terminator == separator && fields <= maxColumn);
      if (terminator == separator) {
        skipRestOfRecord();
      } else if (fields == 1 && fieldEnd == start) {
        continue;
      }
      if (fields <= maxColumn) {
        throw missingColumn(fields);
      }
      if (keyColumn == valueColumn) {
        value.copyFrom(key);
      }
      checkEncodable();
      return true;
    }
  }

  private InputFormatException missingColumn(int fields) {
    boolean keyMissing = keyColumn >= fields;
    int column = keyMissing ? keyColumn : valueColumn;
    return new InputFormatException(
        recordLine,
        fields + (fields == 1 ? " field, " : " fields, ") + (keyMissing ? keyLabel : valueLabel)
            + " needs at least " + (column + 1));
  }

  private int readField(Utf8Sink sink) {
    return csv ? readCsvField(sink) : readTsvField(sink);
  }

  /** {@link #asciiRun}: the field goes on past the run. */
  private static final int NOT_ENDED = -2;

  /**
   * The fast path of a field: copies the run of printable ASCII before the first {@code special}
   * character (or any other) into {@code sink}. Returns the separator or LF that ends the field
   * right after the run, or {@link #NOT_ENDED} (the slow path takes over, capture started).
   */
  private int asciiRun(Utf8Sink sink, char special, char separator) {
    int p = pos;
    final int lim = limit;
    final char[] b = buf;
    final int start = p;
    while (p < lim) {
      char c = b[p];
      if ((char) (c - 0x20) >= 0x60 || c == special) {
        break;
      }
      p++;
    }
    sink.appendAscii(b, start, p);
    if (p < lim && (b[p] == separator || b[p] == '\n')) {
      fieldEnd = bufStart + p;
      pos = p + 1;
      if (b[p] == '\n') {
        newLine();
      }
      return b[p];
    }
    pos = p;
    startCapture(sink);
    return NOT_ENDED;
  }

  /** Reads one TSV field into {@code sink} (null to skip it); returns TAB, LF or {@link #END}. */
  private int readTsvField(Utf8Sink sink) {
    if (sink != null) {
      // A run of printable ASCII other than the backslash needs no decoding or encoding.
      int end = asciiRun(sink, '\\', '\t');
      if (end != NOT_ENDED) {
        return end;
      }
    }
    for (;;) {
      int p = pos;
      final int lim = limit;
      final char[] b = buf;
      while (p < lim) {
        char c = b[p];
        // One compare for the common case: printable chars other than the backslash.
        if (c >= 0x20 ? c == '\\' : (c == '\t' || c == '\n' || c == '\r')) {
          break;
        }
        p++;
      }
      pos = p;
      if (p == lim) {
        if (!fill()) {
          fieldEnd = offset();
          flushCapture();
          return END;
        }
        continue;
      }
      char c = b[p];
      if (c == '\t' || c == '\n') {
        fieldEnd = bufStart + p;
        flushCapture();
        pos = p + 1;
        if (c == '\n') {
          newLine();
        }
        return c;
      }
      flushCapture();
      long at = bufStart + p;
      pos = p + 1;
      int next = peek();
      if (c == '\r') {
        if (next == '\n' || next == END) {
          fieldEnd = at;
          if (next == END) {
            return END;
          }
          pos++;
          newLine();
          return '\n';
        }
        if (sink != null) {
          sink.appendChar('\r');
        }
      } else {
        char decoded;
        switch (next) {
          case 't':
            decoded = '\t';
            break;
          case 'n':
            decoded = '\n';
            break;
          case 'r':
            decoded = '\r';
            break;
          case '\\':
            decoded = '\\';
            break;
          default:
            // Not an escape we know: keep the backslash, and let the next char be read as usual.
            decoded = 0;
        }
        if (decoded != 0) {
          pos++;
        }
        if (sink != null) {
          sink.appendChar(decoded != 0 ? decoded : '\\');
        }
      }
      if (sink != null) {
        startCapture(sink);
      }
    }
  }

  /** Reads one CSV field into {@code sink} (null to skip it); returns ',', LF or {@link #END}. */
  private int readCsvField(Utf8Sink sink) {
    if (peek() == '"') {
      return readQuotedCsvField(sink);
    }
    if (sink != null) {
      // A run of printable ASCII other than the comma needs no encoding.
      int end = asciiRun(sink, ',', ',');
      if (end != NOT_ENDED) {
        return end;
      }
    }
    for (;;) {
      int p = pos;
      final int lim = limit;
      final char[] b = buf;
      while (p < lim) {
        char c = b[p];
        if (c <= ',' && (c == ',' || c == '\n' || c == '\r')) {
          break;
        }
        p++;
      }
      pos = p;
      if (p == lim) {
        if (!fill()) {
          fieldEnd = offset();
          flushCapture();
          return END;
        }
        continue;
      }
      char c = b[p];
      if (c != '\r') {
        fieldEnd = bufStart + p;
        flushCapture();
        pos = p + 1;
        if (c == '\n') {
          newLine();
        }
        return c;
      }
      flushCapture();
      long at = bufStart + p;
      pos = p + 1;
      int next = peek();
      if (next == '\n' || next == END) {
        fieldEnd = at;
        if (next == END) {
          return END;
        }
        pos++;
        newLine();
        return '\n';
      }
      if (sink != null) {
        sink.appendChar('\r');
        startCapture(sink);
      }
    }
  }

  /** Reads a field that starts with a quote, at {@link #pos}. */
  private int readQuotedCsvField(Utf8Sink sink) {
    long quoteLine = line;
    long quoteColumn = column();
    fieldEnd = -1;
    pos++;
    if (sink != null) {
      startCapture(sink);
    }
    for (;;) {
      int p = pos;
      final int lim = limit;
      final char[] b = buf;
      while (p < lim) {
        char c = b[p];
        if (c == '"') {
          break;
        }
        p++;
        if (c == '\n') {
          line++;
          lineStart = bufStart + p;
        }
      }
      pos = p;
      if (p == lim) {
        if (!fill()) {
          throw new InputFormatException(
              quoteLine, quoteColumn, "the quoted field that starts here is never closed (no matching '\"')");
        }
        continue;
      }
      flushCapture();
      pos = p + 1;
      int next = peek();
      if (next == '"') {
        // A doubled quote stands for one quote.
        pos++;
        if (sink != null) {
          sink.appendChar('"');
          startCapture(sink);
        }
        continue;
      }
      if (next == ',' || next == '\n') {
        pos++;
        if (next == '\n') {
          newLine();
        }
        return next;
      }
      if (next == END) {
        return END;
      }
      if (next == '\r') {
        long crColumn = column();
        pos++;
        int after = peek();
        if (after == '\n') {
          pos++;
          newLine();
          return '\n';
        }
        if (after == END) {
          return END;
        }
        throw new InputFormatException(
            line, crColumn, "expected ',' or the end of the line after a closing quote, found U+000D");
      }
      throw new InputFormatException(
          line, column(), "expected ',' or the end of the line after a closing quote, found " + describe(next));
    }
  }

  private void skipRestOfRecord() {
    if (csv) {
      while (readCsvField(null) == ',') {
        // Quotes in later fields can hide line feeds, so CSV is skipped field by field.
      }
      return;
    }
    for (;;) {
      int p = pos;
      final int lim = limit;
      final char[] b = buf;
      while (p < lim && b[p] != '\n') {
        p++;
      }
      if (p < lim) {
        pos = p + 1;
        newLine();
        return;
      }
      pos = p;
      if (!fill()) {
        return;
      }
    }
  }
}
