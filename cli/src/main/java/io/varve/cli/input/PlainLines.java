package io.varve.cli.input;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The plain lines of a TSV or CSV input, split here rather than by Commons CSV: lines that hold no
 * special byte (TSV's backslash, CSV's quote), whose fields Commons CSV would make the text between
 * delimiters. It stops at the first line that holds the special byte (an escape or a quoted field,
 * perhaps holding a line break), and {@link #rest} hands the input from that line on to Commons
 * CSV. Machine-written input rarely holds one, and splitting the bytes in place spares decoding to
 * chars, Commons CSV's char-by-char lexing, its objects per record and encoding the fields back.
 * {@code PlainLinesTest} checks it against Commons CSV alone on random inputs. Not thread-safe.
 */
final class PlainLines {
  private final ByteLines lines;
  private final byte delimiter;
  /** The byte that sends the rest of the input to Commons CSV. */
  private final byte special;
  private boolean stoppedAtSpecial;
  /** The current line's fields: field {@code i} is {@code bytes()[starts[i], starts[i + 1] - 1)}. */
  private int[] starts = new int[16];
  private int fieldCount;

  /** Plain lines of the checked UTF-8 bytes {@code in}. */
  PlainLines(InputStream in, char delimiter, char special) {
    this.lines = new ByteLines(in);
    this.delimiter = (byte) delimiter;
    this.special = (byte) special;
  }

  /**
   * Moves to the next line and splits it. False at the end of the input, or at a line that holds
   * the special byte ({@link #stoppedAtSpecial}), which stays unread.
   */
  boolean next() throws IOException {
    if (stoppedAtSpecial || !lines.next()) {
      return false;
    }
    byte[] bytes = lines.bytes();
    int end = lines.end();
    fieldCount = 0;
    starts[0] = lines.start();
    for (int i = lines.start(); i < end; i++) {
      byte b = bytes[i];
      if (b == delimiter) {
        addStart(i + 1);
      } else if (b == special) {
        stoppedAtSpecial = true;
        return false;
      }
    }
    addStart(end + 1);
    return true;
  }

  private void addStart(int start) {
    if (++fieldCount == starts.length) {
      starts = Arrays.copyOf(starts, starts.length * 2);
    }
    starts[fieldCount] = start;
  }

  /** Whether {@link #next} stopped at a line that holds the special byte. */
  boolean stoppedAtSpecial() {
    return stoppedAtSpecial;
  }

  /** The lines read: the number of the current line, or of the line before the one stopped at. */
  long linesRead() {
    return stoppedAtSpecial ? lines.linesRead() - 1 : lines.linesRead();
  }

  int fieldCount() {
    return fieldCount;
  }

  int fieldLength(int i) {
    return starts[i + 1] - 1 - starts[i];
  }

  /** Field {@code i}'s bytes, a new array. */
  byte[] fieldBytes(int i) {
    return Arrays.copyOfRange(lines.bytes(), starts[i], starts[i + 1] - 1);
  }

  String field(int i) {
    return new String(lines.bytes(), starts[i], fieldLength(i), StandardCharsets.UTF_8);
  }

  /** The input from the line stopped at on. */
  InputStream rest() {
    return lines.rest();
  }
}
