package io.varve.examples.input;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.CharacterCodingException;

/**
 * The char buffer and position bookkeeping shared by the format parsers, and the one virtual call
 * they make per record ({@link #next}). Subclasses scan {@link #buf} with local copies of
 * {@link #pos} and {@link #limit} in their hot loops.
 *
 * <p>A field's chars are copied to its sink in spans rather than one by one: the parser sets
 * {@link #mark} where the span starts, and {@link #fill} flushes the span to {@link #markSink}
 * before it overwrites the buffer. That keeps lines of any length streaming through a fixed buffer.
 *
 * <p>Not thread-safe.
 */
abstract class Parser {
  static final int END = -1;

  /** What to do about input that is not UTF-8, for error messages. */
  static final String CONVERT =
      "the input must be UTF-8 text: convert it first (for example with iconv -f ISO-8859-1 -t UTF-8 if it is Latin-1)";

  private final Reader in;
  final char[] buf;
  int pos;
  int limit;
  /** The absolute input offset of {@code buf[0]}, for columns. */
  long bufStart;
  /** The 1-based line that {@link #pos} is on. */
  long line = 1;
  /** The absolute input offset of the first char of {@link #line}. */
  long lineStart;
  private boolean eof;

  /** Where the span being captured starts in {@link #buf}, or -1 if none. */
  int mark = -1;
  Utf8Sink markSink;

  final Utf8Sink key = new Utf8Sink();
  final Utf8Sink value = new Utf8Sink();
  /** The line the current record started on. */
  long recordLine;

  Parser(Reader in, int bufferSize) {
    this.in = in;
    this.buf = new char[bufferSize];
  }

  /** Reads the next record into {@link #key} and {@link #value}; false at the end of the input. */
  abstract boolean next();

  /**
   * Refills the buffer once everything in it is consumed ({@code pos == limit}); false at the end
   * of the input. A span being captured is flushed first and continues at the buffer's start.
   */
  final boolean fill() {
    if (mark >= 0) {
      markSink.append(buf, mark, limit);
      mark = 0;
    }
    bufStart += limit;
    pos = 0;
    limit = 0;
    if (eof) {
      return false;
    }
    try {
      int n;
      do {
        n = in.read(buf, 0, buf.length);
      } while (n == 0);
      if (n < 0) {
        eof = true;
        return false;
      }
      limit = n;
      return true;
    } catch (Utf8Reader.InvalidUtf8Exception e) {
      // Every char before the bad byte was consumed, so line and column are the byte's own.
      throw new InputFormatException(line, column(), e.getMessage() + "; " + CONVERT);
    } catch (CharacterCodingException e) {
      // Another decoder may have dropped chars before the error: the place is not exact.
      throw new InputFormatException(
          line, "the input is not valid text at or after this line (" + e.getMessage() + "); " + CONVERT);
    } catch (IOException e) {
      throw new UncheckedIOException("reading line " + line + ": " + e.getMessage(), e);
    }
  }

  /** The char at {@link #pos} without consuming it, or {@link #END}. */
  final int peek() {
    if (pos == limit && !fill()) {
      return END;
    }
    return buf[pos];
  }

  /** Starts capturing at {@link #pos} into {@code sink}. */
  final void startCapture(Utf8Sink sink) {
    markSink = sink;
    mark = pos;
  }

  /** Copies the span from the mark to {@link #pos} and stops capturing. */
  final void flushCapture() {
    if (mark >= 0) {
      markSink.append(buf, mark, pos);
      mark = -1;
    }
  }

  /** Call with {@link #pos} just past a consumed line feed. */
  final void newLine() {
    line++;
    lineStart = bufStart + pos;
  }

  /** The absolute input offset of {@link #pos}. */
  final long offset() {
    return bufStart + pos;
  }

  /** The 1-based column of {@link #pos} on the current line, in UTF-16 chars. */
  final long column() {
    return bufStart + pos - lineStart + 1;
  }

  /** Fails if either field holds an unpaired surrogate, which UTF-8 cannot encode. */
  final void checkEncodable() {
    if (key.malformed()) {
      throw new InputFormatException(recordLine, "the key holds an unpaired UTF-16 surrogate (not valid Unicode)");
    }
    if (value.malformed()) {
      throw new InputFormatException(recordLine, "the value holds an unpaired UTF-16 surrogate (not valid Unicode)");
    }
  }

  final void close() {
    try {
      in.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** How a char appears in an error message. */
  static String describe(int c) {
    if (c == END) {
      return "the end of the input";
    }
    if (c == '\n' || c == '\r') {
      return "the end of the line";
    }
    if (c < 0x20 || c == 0x7F || Character.isSurrogate((char) c) || Character.isSpaceChar(c) && c != ' ') {
      return String.format("U+%04X", c);
    }
    return "'" + (char) c + "'";
  }
}
