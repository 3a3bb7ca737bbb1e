package io.varve.cli.input;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
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

  /**
   * Reads all of {@code text} with each buffer size, as chars and (when the text is valid UTF-16)
   * as UTF-8 bytes, checks they agree, and returns the records.
   */
  static List<Rec> read(String text, InputFormat format, String keyColumn, String valueColumn, boolean header) {
    return read(text, format, keyColumn, valueColumn, header, false);
  }

  /** As {@link #read(String, InputFormat, String, String, boolean)}, with JSON fields that are not strings read as their text. */
  static List<Rec> read(String text, InputFormat format, String keyColumn, String valueColumn, boolean header, boolean jsonText) {
    List<Rec> first = null;
    for (int size : BUFFER_SIZES) {
      for (boolean bytes : bytesToo(text)) {
        List<Rec> records = read(text, format, keyColumn, valueColumn, header, size, jsonText, bytes);
        if (first == null) {
          first = records;
        } else {
          assertEquals(first, records, "buffer size " + size + (bytes ? ", as bytes" : ", as chars"));
        }
      }
    }
    return first;
  }

  static List<Rec> read(String text, InputFormat format, String keyColumn, String valueColumn, boolean header, int bufferSize) {
    return read(text, format, keyColumn, valueColumn, header, bufferSize, false, false);
  }

  /** Reads the text as chars, or as its UTF-8 bytes through {@link RecordReader#open(InputStream, InputFormat, String, String, boolean, boolean)}. */
  static List<Rec> read(
      String text, InputFormat format, String keyColumn, String valueColumn, boolean header, int bufferSize, boolean jsonText,
      boolean bytes) {
    List<Rec> records = new ArrayList<>();
    try (RecordReader reader =
        bytes
            ? RecordReader.open(chunked(new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)), bufferSize), format, keyColumn,
                valueColumn, header, jsonText)
            : RecordReader.open(chunked(new StringReader(text), bufferSize), format, keyColumn, valueColumn, header, jsonText)) {
      while (reader.next()) {
        records.add(new Rec(reader.key(), reader.value(), reader.lineNumber()));
      }
      assertFalse(reader.next(), "next() after the end");
    }
    return records;
  }

  /** A stream that hands out at most {@code size} bytes per read. */
  static InputStream chunked(InputStream in, int size) {
    return new FilterInputStream(in) {
      @Override
      public int read(byte[] b, int off, int len) throws IOException {
        return super.read(b, off, Math.min(len, size));
      }
    };
  }

  /** Chars only, or chars and bytes: text with a lone surrogate has no UTF-8 form. */
  private static boolean[] bytesToo(String text) {
    return StandardCharsets.UTF_8.newEncoder().canEncode(text) ? new boolean[] {false, true} : new boolean[] {false};
  }

  /**
   * Reads {@code text} with each buffer size, as chars and as bytes, expects the same error every
   * time, and returns the one read as chars. JSON lines as bytes are read by Jackson's UTF-8
   * parser, whose columns count bytes: for text that is not ASCII only the same line is asked.
   */
  static InputFormatException error(String text, InputFormat format, String keyColumn, String valueColumn, boolean header) {
    InputFormatException first = null;
    InputFormatException firstAsBytes = null;
    for (int size : BUFFER_SIZES) {
      for (boolean bytes : bytesToo(text)) {
        InputFormatException e =
            assertThrows(
                InputFormatException.class,
                () -> read(text, format, keyColumn, valueColumn, header, size, false, bytes),
                "buffer size " + size + (bytes ? ", as bytes" : ", as chars"));
        InputFormatException same = bytes ? firstAsBytes : first;
        if (same == null) {
          if (bytes) {
            firstAsBytes = e;
          } else {
            first = e;
          }
        } else {
          assertEquals(same.getMessage(), e.getMessage(), "buffer size " + size + (bytes ? ", as bytes" : ", as chars"));
        }
      }
    }
    if (firstAsBytes != null) {
      if (format != InputFormat.JSON_LINES || text.chars().allMatch(c -> c < 0x80)) {
        assertEquals(first.getMessage(), firstAsBytes.getMessage(), "as chars and as bytes");
      } else {
        assertEquals(first.lineNumber(), firstAsBytes.lineNumber(), "as chars and as bytes: " + first.getMessage() + " / " + firstAsBytes.getMessage());
      }
    }
    String message = first.getMessage();
    assertTrue(message.matches("line " + first.lineNumber() + "[:,] .*"), message);
    return first;
  }
}
