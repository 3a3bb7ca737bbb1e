package io.varve.cli.input;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/** Test helpers: read a whole text with every buffer size worth trying, and compare records. */
final class Records {
  /** Text handed over in tiny pieces ({@link #chunked}) puts every read boundary inside escapes, quotes, CRLFs and surrogate pairs. */
  static final int[] BUFFER_SIZES = {1, 2, 3, 5, 8, 13, 1 << 16};

  private Records() {}

  /** A reader that hands out at most {@code size} chars per read, as a slow pipe would. */
  static java.io.Reader chunked(java.io.Reader in, int size) {
    return new java.io.FilterReader(in) {
      @Override
      public int read(char[] cbuf, int off, int len) throws java.io.IOException {
        return super.read(cbuf, off, Math.min(len, size));
      }
    };
  }

  /** One record as read: key and value as UTF-8, and the line it started on. */
  static final class Rec {
    final byte[] key;
    final byte[] value;
    final long line;

    Rec(byte[] key, byte[] value, long line) {
      this.key = key;
      this.value = value;
      this.line = line;
    }

    Rec(String key, String value, long line) {
      this(key.getBytes(StandardCharsets.UTF_8), value.getBytes(StandardCharsets.UTF_8), line);
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Rec
          && Arrays.equals(key, ((Rec) o).key)
          && Arrays.equals(value, ((Rec) o).value)
          && line == ((Rec) o).line;
    }

    @Override
    public int hashCode() {
      return Objects.hash(Arrays.hashCode(key), Arrays.hashCode(value), line);
    }

    @Override
    public String toString() {
      return "line " + line + ": " + show(key) + " -> " + show(value);
    }

    private static String show(byte[] bytes) {
      String s = new String(bytes, StandardCharsets.UTF_8);
      StringBuilder b = new StringBuilder("\"");
      for (int i = 0; i < s.length(); i++) {
        char c = s.charAt(i);
        b.append(c < 0x20 || c == '"' || c == '\\' ? String.format("\\u%04X", (int) c) : String.valueOf(c));
      }
      return b.append('"').toString();
    }
  }

  static Rec rec(String key, String value, long line) {
    return new Rec(key, value, line);
  }

  /** Reads all of {@code text} with each buffer size, checks they agree, and returns the records. */
  static List<Rec> read(String text, InputFormat format, String keyColumn, String valueColumn, boolean header) {
    return read(text, format, keyColumn, valueColumn, header, false);
  }

  /** As {@link #read(String, InputFormat, String, String, boolean)}, with JSON fields that are not strings read as their text. */
  static List<Rec> read(String text, InputFormat format, String keyColumn, String valueColumn, boolean header, boolean jsonText) {
    List<Rec> first = null;
    for (int size : BUFFER_SIZES) {
      List<Rec> records = read(text, format, keyColumn, valueColumn, header, size, jsonText);
      if (first == null) {
        first = records;
      } else {
        assertEquals(first, records, "buffer size " + size);
      }
    }
    return first;
  }

  static List<Rec> read(String text, InputFormat format, String keyColumn, String valueColumn, boolean header, int bufferSize) {
    return read(text, format, keyColumn, valueColumn, header, bufferSize, false);
  }

  static List<Rec> read(
      String text, InputFormat format, String keyColumn, String valueColumn, boolean header, int bufferSize, boolean jsonText) {
    List<Rec> records = new ArrayList<>();
    try (RecordReader reader =
        RecordReader.open(chunked(new StringReader(text), bufferSize), format, keyColumn, valueColumn, header, jsonText)) {
      while (reader.next()) {
        records.add(new Rec(reader.key(), reader.value(), reader.lineNumber()));
      }
      assertFalse(reader.next(), "next() after the end");
    }
    return records;
  }

  /** Reads {@code text} with each buffer size, expects the same error every time, and returns it. */
  static InputFormatException error(String text, InputFormat format, String keyColumn, String valueColumn, boolean header) {
    InputFormatException first = null;
    for (int size : BUFFER_SIZES) {
      InputFormatException e =
          assertThrows(InputFormatException.class, () -> read(text, format, keyColumn, valueColumn, header, size), "buffer size " + size);
      if (first == null) {
        first = e;
      } else {
        assertEquals(first.getMessage(), e.getMessage(), "buffer size " + size);
      }
    }
    String message = first.getMessage();
    assertTrue(message.matches("line " + first.lineNumber() + "[:,] .*"), message);
    return first;
  }
}
