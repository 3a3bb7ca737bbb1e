package io.varve.cli.input;

import java.io.IOException;
import java.io.InputStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.CharBuffer;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * Passes UTF-8 bytes through unchanged after checking them as strictly as the JDK's decoder does,
 * for parsers that read bytes (Jackson's UTF-8 parser) and so spare the decoding to chars. As
 * {@link Utf8Reader} does, it returns every byte before the first invalid sequence, and only the
 * next {@code read} throws {@link InvalidUtf8Exception} with the sequence's byte offset, line and
 * column (in UTF-16 chars, as {@code Utf8Reader} counts them).
 *
 * <p>Not thread-safe.
 */
final class Utf8InputStream extends InputStream {
  private static final int BUFFER_BYTES = 1 << 16;
  private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final long HIGH_BITS = 0x8080_8080_8080_8080L;
  private static final long LINE_FEEDS = 0x0A0A_0A0A_0A0A_0A0AL;
  private static final long LOW_SEVEN_BITS = 0x7F7F_7F7F_7F7F_7F7FL;

  private final InputStream in;
  /** {@code [next, checked)}: checked bytes not yet returned; {@code [checked, filled)}: not checked yet. */
  private final byte[] buffer = new byte[BUFFER_BYTES];
  private int next;
  private int checked;
  private int filled;
  /** The input offset of {@code buffer[0]}. */
  private long bufferOffset;
  private boolean endOfInput;
  private InvalidUtf8Exception failure;
  /** Line feeds in the bytes before {@code buffer[0]}. */
  private long lineFeeds;
  /** UTF-16 chars since the last line feed before {@code buffer[0]}. */
  private long charsOnLine;

  /** A stream over {@code in}, which it closes on {@link #close}; buffering {@code in} is not needed. */
  Utf8InputStream(InputStream in) {
    this.in = Objects.requireNonNull(in, "in");
  }

  @Override
  public int read() throws IOException {
    byte[] one = new byte[1];
    return read(one, 0, 1) < 0 ? -1 : one[0] & 0xFF;
  }

  @Override
  public int read(byte[] b, int off, int len) throws IOException {
    Objects.checkFromIndexSize(off, len, b.length);
    if (len == 0) {
      return 0;
    }
    while (next == checked) {
      if (failure != null) {
        throw failure;
      }
      if (endOfInput && checked == filled) {
        return -1;
      }
      fill();
    }
    int n = Math.min(len, checked - next);
    System.arraycopy(buffer, next, b, off, n);
    next += n;
    return n;
  }

  /** Reads more input (keeping a sequence cut by the buffer's end) and checks it. */
  private void fill() throws IOException {
    if (checked > 0) {
      countLines(0, checked);
      bufferOffset += checked;
      System.arraycopy(buffer, checked, buffer, 0, filled - checked);
      filled -= checked;
      next = 0;
      checked = 0;
    }
    if (!endOfInput) {
      int n = in.read(buffer, filled, buffer.length - filled);
      if (n < 0) {
        endOfInput = true;
      } else {
        filled += n;
      }
    }
    checked = checkUpTo(checked, filled);
    if (checked < filled && (endOfInput || !isCutShort(checked, filled))) {
      failure = invalidAt(checked);
    }
  }

  /**
   * The end of the valid, whole sequences from {@code from}: {@code to}, or where the first
   * sequence starts that is invalid or not whole before {@code to}.
   */
  private int checkUpTo(int from, int to) {
    byte[] b = buffer;
    int i = from;
    while (i < to) {
      if (i + Long.BYTES <= to && ((long) LONGS.get(b, i) & HIGH_BITS) == 0) {
        i += Long.BYTES;
        continue;
      }
      int lead = b[i] & 0xFF;
      if (lead < 0x80) {
        i++;
        continue;
      }
      int length = sequenceLength(b, i, to);
      if (length <= 0) {
        return i;
      }
      i += length;
    }
    return i;
  }

  /**
   * The length of the valid sequence at {@code i} (Unicode's table of well-formed UTF-8: no
   * overlong forms, no surrogates, nothing past U+10FFFF), or 0 if it is invalid or runs past
   * {@code to}.
   */
  private static int sequenceLength(byte[] b, int i, int to) {
    int lead = b[i] & 0xFF;
    int length;
    int secondMin = 0x80;
    int secondMax = 0xBF;
    if (lead >= 0xC2 && lead <= 0xDF) {
      length = 2;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
      length = 3;
      if (lead == 0xE0) {
        secondMin = 0xA0;
      } else if (lead == 0xED) {
        secondMax = 0x9F;
      }
    } else if (lead >= 0xF0 && lead <= 0xF4) {
      length = 4;
      if (lead == 0xF0) {
        secondMin = 0x90;
      } else if (lead == 0xF4) {
        secondMax = 0x8F;
      }
    } else {
      return 0;
    }
    if (i + length > to) {
      return 0;
    }
    int second = b[i + 1] & 0xFF;
    if (second < secondMin || second > secondMax) {
      return 0;
    }
    for (int k = 2; k < length; k++) {
      if ((b[i + k] & 0xC0) != 0x80) {
        return 0;
      }
    }
    return length;
  }

  /** Whether the bytes from {@code at} to {@code to} are the valid start of a sequence that goes on past {@code to}. */
  private boolean isCutShort(int at, int to) {
    return to - at < 4 && isValidPrefix(at, to);
  }

  private boolean isValidPrefix(int at, int to) {
    CharBuffer out = CharBuffer.allocate(2);
    CoderResult result = decoder().decode(ByteBuffer.wrap(buffer, at, to - at), out, false);
    return result.isUnderflow();
  }

  /** The exception for the invalid sequence at {@code at}, the JDK decoder's view of its length. */
  private InvalidUtf8Exception invalidAt(int at) {
    int end = Math.min(filled, at + 4);
    CoderResult result =
        decoder().decode(ByteBuffer.wrap(buffer, at, end - at), CharBuffer.allocate(4), endOfInput && end == filled);
    int length = result.isError() ? result.length() : end - at;
    byte[] bad = new byte[length];
    System.arraycopy(buffer, at, bad, 0, length);
    long feeds = lineFeeds;
    long column = charsOnLine;
    int lastLineFeed = -1;
    for (int i = 0; i < at; i++) {
      if (buffer[i] == '\n') {
        feeds++;
        lastLineFeed = i;
      }
    }
    column = lastLineFeed < 0 ? column + chars(0, at) : chars(lastLineFeed + 1, at);
    return new InvalidUtf8Exception(bufferOffset + at, bad, feeds + 1, column + 1);
  }

  /** Counts the line feeds in {@code buffer[from, to)} and the chars after the last, as the bytes are let go. */
  private void countLines(int from, int to) {
    int i = from;
    long feeds = 0;
    for (; i + Long.BYTES <= to; i += Long.BYTES) {
      long x = (long) LONGS.get(buffer, i) ^ LINE_FEEDS;
      // A byte of x is zero exactly where the input held a line feed; this sets its high bit.
      feeds += Long.bitCount(~(((x & LOW_SEVEN_BITS) + LOW_SEVEN_BITS) | x | LOW_SEVEN_BITS));
    }
    for (; i < to; i++) {
      if (buffer[i] == '\n') {
        feeds++;
      }
    }
    if (feeds == 0) {
      charsOnLine += chars(from, to);
      return;
    }
    lineFeeds += feeds;
    int lastLineFeed = to - 1;
    while (buffer[lastLineFeed] != '\n') {
      lastLineFeed--;
    }
    charsOnLine = chars(lastLineFeed + 1, to);
  }

  /** The UTF-16 chars that the valid bytes {@code buffer[from, to)} decode to. */
  private int chars(int from, int to) {
    int chars = 0;
    for (int i = from; i < to; i++) {
      int b = buffer[i] & 0xFF;
      if ((b & 0xC0) != 0x80) {
        chars += b >= 0xF0 ? 2 : 1;
      }
    }
    return chars;
  }

  private static java.nio.charset.CharsetDecoder decoder() {
    return StandardCharsets.UTF_8
        .newDecoder()
        .onMalformedInput(CodingErrorAction.REPORT)
        .onUnmappableCharacter(CodingErrorAction.REPORT);
  }

  @Override
  public void close() throws IOException {
    in.close();
  }
}
