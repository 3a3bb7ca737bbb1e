package io.varve.examples.input;

import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Parses JSON lines: one object per line, blank lines skipped. The whole line is validated against
 * the JSON grammar (RFC 8259), not just the two fields it takes, so that a broken line is reported
 * where it breaks instead of yielding half a record.
 *
 * <p>A string field yields its decoded UTF-8 bytes; any other value yields its text exactly as
 * written, from its first char to its last. Nested values are skipped with an explicit stack, not
 * recursion, so deep nesting cannot overflow the thread's stack.
 *
 * <p>Not thread-safe.
 */
final class JsonLinesParser extends Parser {
  private static final byte OBJECT = 0;
  private static final byte ARRAY = 1;

  private final String keyField;
  private final String valueField;
  private final byte[] keyName;
  private final byte[] valueName;
  private final boolean sameField;
  private final Utf8Sink name = new Utf8Sink();
  private byte[] stack = new byte[16];

  JsonLinesParser(Reader in, int bufferSize, String keyField, String valueField) {
    super(in, bufferSize);
    this.keyField = keyField;
    this.valueField = valueField;
    this.keyName = keyField.getBytes(StandardCharsets.UTF_8);
    this.valueName = valueField.getBytes(StandardCharsets.UTF_8);
    this.sameField = keyField.equals(valueField);
  }

  @Override
  boolean next() {
    for (;;) {
      int c = skipSpaces();
      if (c == END) {
        return false;
      }
      if (c == '\n') {
        pos++;
        newLine();
        continue;
      }
      recordLine = line;
      readObject(c);
      checkEncodable();
      return true;
    }
  }

  private void readObject(int c) {
    if (c != '{') {
      throw error("expected '{' to start the line's JSON object, found " + describe(c));
    }
    pos++;
    key.reset();
    value.reset();
    boolean haveKey = false;
    boolean haveValue = false;
    c = skipSpaces();
    if (c == '}') {
      pos++;
    } else {
      for (;;) {
        if (c != '"') {
          throw error("expected a field name in double quotes, found " + describe(c));
        }
        long nameColumn = column();
        pos++;
        name.reset();
        readString(name);
        boolean isKey = name.contentEquals(keyName);
        boolean isValue = sameField ? isKey : name.contentEquals(valueName);
        if (isKey && haveKey || isValue && haveValue) {
          throw new InputFormatException(line, nameColumn, "field '" + name.asString() + "' appears twice in the object");
        }
        c = skipSpaces();
        if (c != ':') {
          throw error("expected ':' after the field name, found " + describe(c));
        }
        pos++;
        c = skipSpaces();
        if (isKey) {
          readValue(c, key);
          haveKey = true;
          if (isValue) {
            value.copyFrom(key);
            haveValue = true;
          }
        } else if (isValue) {
          readValue(c, value);
          haveValue = true;
        } else {
          readValue(c, null);
        }
        c = skipSpaces();
        if (c == ',') {
          pos++;
          c = skipSpaces();
          continue;
        }
        if (c == '}') {
          pos++;
          break;
        }
        throw error("expected ',' or '}' after a field's value, found " + describe(c));
      }
    }
    c = skipSpaces();
    if (c == '\n') {
      pos++;
      newLine();
    } else if (c != END) {
      throw error("expected the end of the line after the object, found " + describe(c));
    }
    if (!haveKey) {
      throw new InputFormatException(recordLine, "the object has no field '" + keyField + "' (the key)");
    }
    if (!haveValue) {
      throw new InputFormatException(recordLine, "the object has no field '" + valueField + "' (the value)");
    }
  }

  /** Reads the value that starts with {@code c} at {@link #pos} into {@code sink}, or skips it if null. */
  private void readValue(int c, Utf8Sink sink) {
    if (c == '"') {
      pos++;
      readString(sink);
      return;
    }
    if (sink != null) {
      startCapture(sink);
    }
    skipValue(c);
    if (sink != null) {
      flushCapture();
    }
  }

  /** Skips (and validates) a value other than a top-level string, starting with {@code c}. */
  private void skipValue(int c) {
    int depth = 0;
    for (;;) {
      switch (c) {
        case '{':
          pos++;
          c = skipSpaces();
          if (c == '}') {
            pos++;
            break;
          }
          depth = push(depth, OBJECT);
          skipMemberName(c);
          c = skipSpaces();
          continue;
        case '[':
          pos++;
          c = skipSpaces();
          if (c == ']') {
            pos++;
            break;
          }
          depth = push(depth, ARRAY);
          continue;
        case '"':
          pos++;
          readString(null);
          break;
        case 't':
          literal("true");
          break;
        case 'f':
          literal("false");
          break;
        case 'n':
          literal("null");
          break;
        default:
          if (c != '-' && (c < '0' || c > '9')) {
            throw error("expected a JSON value, found " + describe(c));
          }
          skipNumber();
      }
      // A value is complete: close the containers it completes, until one wants another value.
      for (;;) {
        if (depth == 0) {
          return;
        }
        boolean inObject = stack[depth - 1] == OBJECT;
        c = skipSpaces();
        if (c == ',') {
          pos++;
          c = skipSpaces();
          if (inObject) {
            skipMemberName(c);
            c = skipSpaces();
          }
          break;
        }
        if (c == (inObject ? '}' : ']')) {
          pos++;
          depth--;
          continue;
        }
        throw error((inObject ? "expected ',' or '}' in an object, found " : "expected ',' or ']' in an array, found ") + describe(c));
      }
    }
  }

  private int push(int depth, byte kind) {
    if (depth == stack.length) {
      stack = Arrays.copyOf(stack, 2 * depth);
    }
    stack[depth] = kind;
    return depth + 1;
  }

  /** Skips {@code "name" :} inside a nested object; {@code c} is the char at {@link #pos}. */
  private void skipMemberName(int c) {
    if (c != '"') {
      throw error("expected a field name in double quotes, found " + describe(c));
    }
    pos++;
    readString(null);
    c = skipSpaces();
    if (c != ':') {
      throw error("expected ':' after the field name, found " + describe(c));
    }
    pos++;
  }

  private void literal(String word) {
    for (int i = 0; i < word.length(); i++) {
      int c = peek();
      if (c != word.charAt(i)) {
        throw error("expected '" + word + "', found " + describe(c));
      }
      pos++;
    }
  }

  private void skipNumber() {
    int c = peek();
    if (c == '-') {
      pos++;
      c = peek();
    }
    if (c == '0') {
      pos++;
    } else if (c >= '1' && c <= '9') {
      pos++;
      skipDigits();
    } else {
      throw error("expected a digit in a number, found " + describe(c));
    }
    c = peek();
    if (c == '.') {
      pos++;
      requireDigits();
      c = peek();
    }
    if (c == 'e' || c == 'E') {
      pos++;
      c = peek();
      if (c == '+' || c == '-') {
        pos++;
      }
      requireDigits();
    }
  }

  private void requireDigits() {
    int c = peek();
    if (c < '0' || c > '9') {
      throw error("expected a digit in a number, found " + describe(c));
    }
    skipDigits();
  }

  private void skipDigits() {
    for (;;) {
      int c = peek();
      if (c < '0' || c > '9') {
        return;
      }
      pos++;
    }
  }

  /**
   * Reads a string whose opening quote is consumed, decoding it into {@code sink}, or only
   * validating it if {@code sink} is null (then a capture in progress is left alone).
   */
  private void readString(Utf8Sink sink) {
    if (sink != null) {
      // Fast path: a run of printable ASCII with no escapes needs no decoding or encoding.
      int p = pos;
      final int lim = limit;
      final char[] b = buf;
      final int start = p;
      while (p < lim) {
        char c = b[p];
        if ((char) (c - 0x20) >= 0x60 || c == '"' || c == '\\') {
          break;
        }
        p++;
      }
      sink.appendAscii(b, start, p);
      if (p < lim && b[p] == '"') {
        pos = p + 1;
        return;
      }
      pos = p;
      startCapture(sink);
    }
    for (;;) {
      int p = pos;
      final int lim = limit;
      final char[] b = buf;
      while (p < lim) {
        char c = b[p];
        if (c == '"' || c == '\\' || c < 0x20) {
          break;
        }
        p++;
      }
      pos = p;
      if (p == lim) {
        if (!fill()) {
          throw error("the string is not closed before the end of the input");
        }
        continue;
      }
      char c = b[p];
      if (c == '"') {
        if (sink != null) {
          flushCapture();
        }
        pos = p + 1;
        return;
      }
      if (c == '\n') {
        throw error("the string is not closed before the end of the line");
      }
      if (c != '\\') {
        throw error(String.format("control character U+%04X must be escaped in a string", (int) c));
      }
      if (sink != null) {
        flushCapture();
      }
      long escapeColumn = column();
      pos = p + 1;
      int cp = readEscape(escapeColumn);
      if (sink != null) {
        sink.appendCodePoint(cp);
        startCapture(sink);
      }
    }
  }

  /** Decodes the escape after a backslash; a {@code \\u} pair of surrogates gives one code point. */
  private int readEscape(long escapeColumn) {
    int c = peek();
    int decoded;
    switch (c) {
      case '"':
      case '\\':
      case '/':
        decoded = c;
        break;
      case 'b':
        decoded = '\b';
        break;
      case 'f':
        decoded = '\f';
        break;
      case 'n':
        decoded = '\n';
        break;
      case 'r':
        decoded = '\r';
        break;
      case 't':
        decoded = '\t';
        break;
      case 'u':
        pos++;
        return readUnicodeEscape(escapeColumn);
      default:
        throw new InputFormatException(
            line,
            escapeColumn,
            c == END || c < 0x20 || c == 0x7F
                ? "invalid escape: a backslash followed by " + describe(c)
                : "invalid escape '\\" + (char) c + "' in a string");
    }
    pos++;
    return decoded;
  }

  private int readUnicodeEscape(long escapeColumn) {
    char unit = (char) readHex4();
    if (Character.isLowSurrogate(unit)) {
      throw unpaired(escapeColumn, unit);
    }
    if (!Character.isHighSurrogate(unit)) {
      return unit;
    }
    // The low half must follow at once as another escape; UTF-8 has no encoding for a lone half.
    if (peek() != '\\') {
      throw unpaired(escapeColumn, unit);
    }
    pos++;
    if (peek() != 'u') {
      throw unpaired(escapeColumn, unit);
    }
    pos++;
    char low = (char) readHex4();
    if (!Character.isLowSurrogate(low)) {
      throw unpaired(escapeColumn, unit);
    }
    return Character.toCodePoint(unit, low);
  }

  private int readHex4() {
    int result = 0;
    for (int i = 0; i < 4; i++) {
      int c = peek();
      int digit = Character.digit(c, 16);
      if (c == END || c >= 0x80 || digit < 0) {
        throw error("expected 4 hex digits after '\\u', found " + describe(c));
      }
      result = result << 4 | digit;
      pos++;
    }
    return result;
  }

  private InputFormatException unpaired(long column, char unit) {
    return new InputFormatException(
        line, column, String.format("unpaired UTF-16 surrogate \\u%04X in a string (not valid Unicode)", (int) unit));
  }

  /** Skips spaces, tabs and carriage returns (not line feeds: they end the record); returns the next char. */
  private int skipSpaces() {
    for (;;) {
      int p = pos;
      final int lim = limit;
      final char[] b = buf;
      while (p < lim) {
        char c = b[p];
        if (c != ' ' && c != '\t' && c != '\r') {
          pos = p;
          return c;
        }
        p++;
      }
      pos = p;
      if (!fill()) {
        return END;
      }
    }
  }

  private InputFormatException error(String detail) {
    return new InputFormatException(line, column(), detail);
  }
}
