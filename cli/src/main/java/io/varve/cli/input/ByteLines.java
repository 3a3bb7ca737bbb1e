package io.varve.cli.input;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.util.Arrays;

/**
 * The lines of UTF-8 bytes, read ahead in a buffer of their own, for the fast paths that split or
 * parse a plain line in place; from the first line a fast path cannot read, {@link #rest} hands the
 * input to the library parser. A line ends at LF, CR or CRLF; a byte order mark at the very start
 * is dropped. Not thread-safe.
 */
final class ByteLines {
  private static final int BYTE_ORDER_MARK_LENGTH = 3;

  private final InputStream in;
  private byte[] buffer = new byte[1 << 16];
  /** The current line is {@code buffer[start, end)}; the next starts at {@code next}. */
  private int start;
  private int end;
  private int next;
  /** Bytes read into the buffer: {@code buffer[0, limit)}. */
  private int limit;
  private boolean ended;
  private boolean started;
  private long linesRead;

  /** Lines of {@code in}, whose bytes the caller has checked (a {@link Utf8InputStream}). */
  ByteLines(InputStream in) {
    this.in = in;
  }

  /** Moves to the next line; false at the end of the input. */
  boolean next() throws IOException {
    start = next;
    int at = start;
    for (;;) {
      at = ByteScan.lineBreak(buffer, at, limit);
      if (at < limit || ended) {
        break;
      }
      at = fill(at);
    }
    if (at == start && at == limit) {
      return false; // the end of the input: no line after the last break
    }
    int terminator = 0;
    if (at < limit) {
      terminator = 1;
      if (buffer[at] == '\r') {
        if (at + 1 == limit && !ended) {
          at = fill(at); // a CR at the end of the bytes read: is it a CRLF?
        }
        if (at + 1 < limit && buffer[at + 1] == '\n') {
          terminator = 2;
        }
      }
    }
    end = at;
    next = at + terminator;
    linesRead++;
    return true;
  }

  /** Moves the current line to the buffer's start, reads more, and returns {@code at} moved with it. */
  private int fill(int at) throws IOException {
    int kept = limit - start;
    if (kept == buffer.length) {
      buffer = Arrays.copyOf(buffer, buffer.length * 2);
    } else if (start > 0) {
      System.arraycopy(buffer, start, buffer, 0, kept);
    }
    at -= start;
    next -= start;
    start = 0;
    limit = kept;
    int read = in.read(buffer, limit, buffer.length - limit);
    if (read < 0) {
      ended = true;
    } else {
      limit += read;
    }
    if (!started) {
      dropByteOrderMark();
    }
    return at;
  }

  /** Drops U+FEFF at the start of the input once its bytes are in (editors on Windows write one). */
  private void dropByteOrderMark() throws IOException {
    while (limit < BYTE_ORDER_MARK_LENGTH && !ended) {
      int read = in.read(buffer, limit, buffer.length - limit);
      if (read < 0) {
        ended = true;
      } else {
        limit += read;
      }
    }
    started = true;
    if (limit >= BYTE_ORDER_MARK_LENGTH
        && buffer[0] == (byte) 0xEF
        && buffer[1] == (byte) 0xBB
        && buffer[2] == (byte) 0xBF) {
      System.arraycopy(buffer, BYTE_ORDER_MARK_LENGTH, buffer, 0, limit - BYTE_ORDER_MARK_LENGTH);
      limit -= BYTE_ORDER_MARK_LENGTH;
    }
  }

  /** The buffer that holds the current line (valid until the next call of {@link #next}). */
  byte[] bytes() {
    return buffer;
  }

  int start() {
    return start;
  }

  int end() {
    return end;
  }

  /** The lines moved to: the current line's number. */
  long linesRead() {
    return linesRead;
  }

  /** The input from the current line on: the bytes read ahead, then the rest of the stream. */
  InputStream rest() {
    return new SequenceInputStream(new ByteArrayInputStream(buffer, start, limit - start), in);
  }
}
