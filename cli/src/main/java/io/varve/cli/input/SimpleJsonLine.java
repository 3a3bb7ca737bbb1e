package io.varve.cli.input;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Reads the JSON line that machines write most, in place: one object whose fields all hold strings
 * without escapes, such as {@code {"key":"k1","value":"v1"}}. Such a line's key and value are the
 * bytes between their quotes, exactly what Jackson would decode and Varve encode back. Anything
 * else (an escape, a number, a nested value, a field twice, a missing field, a syntax error) is
 * {@link #NOT_SIMPLE}, for Jackson to read and, if need be, to word the error. Not thread-safe.
 */
final class SimpleJsonLine {
  /** What {@link #read} found. */
  static final int RECORD = 0;
  static final int BLANK = 1;
  static final int NOT_SIMPLE = 2;

  private final byte[] keyName;
  private final byte[] valueName;
  private final boolean keysOnly;
  private byte[] key;
  private byte[] value;

  /** For fields named {@code keyField} and {@code valueField} (the same field allowed); a reader of keys alone needs no value. */
  SimpleJsonLine(String keyField, String valueField, boolean keysOnly) {
    this.keyName = keyField.getBytes(StandardCharsets.UTF_8);
    this.valueName = valueField.getBytes(StandardCharsets.UTF_8);
    this.keysOnly = keysOnly;
  }

  /**
   * Whether field names can be matched as the bytes of a simple line: not a name JSON must escape (a
   * quote, a backslash, a control char), nor one with a lone surrogate, which has no UTF-8 form.
   */
  static boolean canMatch(String keyField, String valueField) {
    return isPlain(keyField) && isPlain(valueField);
  }

  private static boolean isPlain(String name) {
    return StandardCharsets.UTF_8.newEncoder().canEncode(name) && name.chars().noneMatch(c -> c == '"' || c == '\\' || c < ' ');
  }

  /** Reads the line {@code bytes[from, to)} (its terminator excluded): {@link #RECORD}, {@link #BLANK} or {@link #NOT_SIMPLE}. */
  int read(byte[] bytes, int from, int to) {
    key = null;
    value = null;
    int i = skipSpace(bytes, from, to);
    if (i == to) {
      return BLANK;
    }
    if (bytes[i] != '{') {
      return NOT_SIMPLE;
    }
    int keyStart = -1;
    int keyEnd = -1;
    int valueStart = -1;
    int valueEnd = -1;
    i = skipSpace(bytes, i + 1, to);
    for (;;) {
      if (i == to || bytes[i] != '"') {
        return NOT_SIMPLE;
      }
      int nameStart = i + 1;
      boolean isKey = isName(bytes, nameStart, to, keyName);
      boolean isValue = !keysOnly && isName(bytes, nameStart, to, valueName);
      int nameEnd = isKey ? nameStart + keyName.length : isValue ? nameStart + valueName.length : closingQuote(bytes, nameStart, to);
      if (nameEnd < 0) {
        return NOT_SIMPLE;
      }
      i = skipSpace(bytes, nameEnd + 1, to);
      if (i == to || bytes[i] != ':') {
        return NOT_SIMPLE;
      }
      i = skipSpace(bytes, i + 1, to);
      if (i == to || bytes[i] != '"') {
        return NOT_SIMPLE;
      }
      int start = i + 1;
      int end = closingQuote(bytes, start, to);
      if (end < 0) {
        return NOT_SIMPLE;
      }
      if (isKey) {
        if (keyStart >= 0) {
          return NOT_SIMPLE;
        }
        keyStart = start;
        keyEnd = end;
      }
      if (isValue) {
        if (valueStart >= 0) {
          return NOT_SIMPLE;
        }
        valueStart = start;
        valueEnd = end;
      }
      i = skipSpace(bytes, end + 1, to);
      if (i == to) {
        return NOT_SIMPLE;
      }
      if (bytes[i] == '}') {
        break;
      }
      if (bytes[i] != ',') {
        return NOT_SIMPLE;
      }
      i = skipSpace(bytes, i + 1, to);
    }
    if (skipSpace(bytes, i + 1, to) != to || keyStart < 0 || !keysOnly && valueStart < 0) {
      return NOT_SIMPLE;
    }
    key = Arrays.copyOfRange(bytes, keyStart, keyEnd);
    if (!keysOnly) {
      value = valueStart == keyStart ? key : Arrays.copyOfRange(bytes, valueStart, valueEnd);
    }
    return RECORD;
  }

  /** Whether the string at {@code i} is {@code name}, its closing quote included (the name holds no quote). */
  private static boolean isName(byte[] bytes, int i, int to, byte[] name) {
    if (i + name.length >= to || bytes[i + name.length] != '"') {
      return false;
    }
    for (int k = 0; k < name.length; k++) {
      if (bytes[i + k] != name[k]) {
        return false;
      }
    }
    return true;
  }

  /** JSON's white space within a line: spaces and tabs. */
  private static int skipSpace(byte[] bytes, int i, int to) {
    while (i < to && (bytes[i] == ' ' || bytes[i] == '\t')) {
      i++;
    }
    return i;
  }

  /** Where the string that starts at {@code i} closes, or -1 if it holds an escape or a control char, or does not close. */
  private static int closingQuote(byte[] bytes, int i, int to) {
    int stop = ByteScan.stringStop(bytes, i, to);
    return stop < to && bytes[stop] == '"' ? stop : -1;
  }

  /** The last record's key: a new array. */
  byte[] key() {
    return key;
  }

  /** The last record's value: a new array (the key's own when the two fields are one), or null when reading keys alone. */
  byte[] value() {
    return value;
  }
}
