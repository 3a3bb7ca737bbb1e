package io.varve.cli.input;

import java.io.IOException;
import java.io.PushbackReader;
import java.io.Reader;
import java.util.Arrays;

/**
 * The plain lines of a TSV or CSV input, split here rather than by Commons CSV: lines that hold no
 * special char (TSV's backslash, CSV's quote), whose fields Commons CSV would make the text between
 * delimiters (a line ends at LF, CR or CRLF). It stops at the first line that holds the special
 * char (an escape or a quoted field, perhaps holding a line break), and {@link #rest} hands the
 * input from that line on to Commons CSV, which reads the rest. Machine-written input rarely holds
 * one, and splitting it here spares Commons CSV's char-by-char lexing and its objects per record (a
 * TSV build took 1.5 times as long without it). {@code PlainLinesTest} checks it against Commons CSV
 * alone on random inputs. Not thread-safe.
 */
final class PlainLines {
  private final Reader in;
  private final char delimiter;
  /** The char that sends the rest of the input to Commons CSV. */
  private final char special;
  private char[] buffer = new char[1 << 16];
  /** The unread chars are {@code buffer[position, limit)}. */
  private int position;
  private int limit;
  private boolean ended;
  private boolean stoppedAtSpecial;
  private long linesRead;
  /** The current line's fields: field {@code i} is {@code buffer[starts[i], starts[i + 1] - 1)}. */
  private int[] starts = new int[16];
  private int fieldCount;

  PlainLines(Reader in, char delimiter, char special) {
    this.in = in;
    this.delimiter = delimiter;
    this.special = special;
  }

  /**
   * Moves to the next line and splits it. False at the end of the input, or at a line that holds
   * the special char ({@link #stoppedAtSpecial}), which stays unread.
   */
  boolean next() throws IOException {
    if (stoppedAtSpecial) {
      return false;
    }
    int end = position;
    for (;;) {
      while (end < limit) {
        char c = buffer[end];
        if (c == '\n' || c == '\r') {
          break;
        }
        if (c == special) {
          stoppedAtSpecial = true;
          return false;
        }
        end++;
      }
      if (end < limit || ended) {
        break;
      }
      end = fill(end);
    }
    if (end == position && end == limit) {
      return false; // the end of the input: no line after the last break
    }
    int terminator = 0;
    if (end < limit) {
      terminator = 1;
      if (buffer[end] == '\r') {
        if (end + 1 == limit && !ended) {
          end = fill(end); // a CR at the end of the chars read: is it a CRLF?
        }
        if (end + 1 < limit && buffer[end + 1] == '\n') {
          terminator = 2;
        }
      }
    }
    split(end);
    position = end + terminator;
    linesRead++;
    return true;
  }

  private void split(int end) {
    fieldCount = 0;
    starts[0] = position;
    for (int i = position; i < end; i++) {
      if (buffer[i] == delimiter) {
        addStart(i + 1);
      }
    }
    addStart(end + 1);
  }

  private void addStart(int start) {
    if (++fieldCount == starts.length) {
      starts = Arrays.copyOf(starts, starts.length * 2);
    }
    starts[fieldCount] = start;
  }

  /** Moves the unread chars to the buffer's start, reads more, and returns {@code end} moved with them. */
  private int fill(int end) throws IOException {
    int unread = limit - position;
    if (unread == buffer.length) {
      buffer = Arrays.copyOf(buffer, buffer.length * 2);
    } else if (position > 0) {
      System.arraycopy(buffer, position, buffer, 0, unread);
    }
    end -= position;
    position = 0;
    limit = unread;
    int read = in.read(buffer, limit, buffer.length - limit);
    if (read < 0) {
      ended = true;
    } else {
      limit += read;
    }
    return end;
  }

  /** Whether {@link #next} stopped at a line that holds the special char. */
  boolean stoppedAtSpecial() {
    return stoppedAtSpecial;
  }

  /** The lines read: the number of the current line, or of the line before the one stopped at. */
  long linesRead() {
    return linesRead;
  }

  int fieldCount() {
    return fieldCount;
  }

  char[] chars() {
    return buffer;
  }

  int fieldStart(int i) {
    return starts[i];
  }

  int fieldLength(int i) {
    return starts[i + 1] - 1 - starts[i];
  }

  String field(int i) {
    return new String(buffer, fieldStart(i), fieldLength(i));
  }

  /** The input from the line stopped at on: the chars read ahead, then the rest of the reader. */
  Reader rest() throws IOException {
    PushbackReader rest = new PushbackReader(in, Math.max(1, limit - position));
    rest.unread(buffer, position, limit - position);
    return rest;
  }
}
