package io.varve.cli.input;

import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * Strictly decodes UTF-8 bytes into chars, and reports the first invalid byte where it is: every
 * char before it is returned first, and only the next {@code read} throws {@link InvalidUtf8Exception},
 * which gives the byte's offset in the input and its line and column, counted here over the chars
 * returned (the parsers read ahead through buffers of their own, so only the decoder knows).
 * ({@link java.io.InputStreamReader} instead drops the chars decoded in the call that meets the bad
 * byte, so a line count stops up to a buffer's worth of lines early.)
 *
 * <p>Not thread-safe.
 */
public final class Utf8Reader extends Reader {
  private static final int BUFFER_BYTES = 1 << 16;

  private final InputStream in;
  private final CharsetDecoder decoder =
      StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT);
  private final ByteBuffer bytes = ByteBuffer.allocate(BUFFER_BYTES).flip();
  /** The input offset of {@code bytes}' index 0. */
  private long bufferOffset;
  private boolean endOfInput;
  private boolean flushed;
  /** The error met after chars that were returned first; thrown by every later read. */
  private InvalidUtf8Exception failure;
  /** Line feeds among the chars returned so far. */
  private long lineFeeds;
  /** Chars returned since the last line feed. */
  private long charsOnLine;

  /** A reader of {@code in}, which it closes on {@link #close}; buffering {@code in} is not needed. */
  public Utf8Reader(InputStream in) {
    this.in = Objects.requireNonNull(in, "in");
  }

  @Override
  public int read(char[] cbuf, int off, int len) throws IOException {
    Objects.checkFromIndexSize(off, len, cbuf.length);
    if (failure != null) {
      throw failure;
    }
    if (flushed) {
      return -1;
    }
    if (len == 0) {
      return 0;
    }
    CharBuffer out = CharBuffer.wrap(cbuf, off, len);
    for (;;) {
      CoderResult result = decoder.decode(bytes, out, endOfInput);
      int decoded = out.position() - off;
      if (result.isError()) {
        count(cbuf, off, decoded);
        failure = invalid(result.length());
        if (decoded > 0) {
          return decoded;
        }
        throw failure;
      }
      if (result.isOverflow() || decoded > 0 && !endOfInput) {
        // Chars in hand are returned rather than waiting on more input (stdin may be a pipe).
        return count(cbuf, off, decoded);
      }
      if (endOfInput) {
        // The UTF-8 decoder keeps no state between calls, so flushing adds no chars.
        decoder.flush(out);
        flushed = true;
        decoded = out.position() - off;
        return decoded > 0 ? count(cbuf, off, decoded) : -1;
      }
      readBytes();
    }
  }

  /** Counts the line feeds among {@code n} chars returned, for the place of an invalid byte; returns {@code n}. */
  private int count(char[] chars, int off, int n) {
    int lastLineFeed = -1;
    long feeds = 0;
    for (int i = off, end = off + n; i < end; i++) {
      if (chars[i] == '\n') {
        feeds++;
        lastLineFeed = i;
      }
    }
    lineFeeds += feeds;
    charsOnLine = lastLineFeed < 0 ? charsOnLine + n : off + n - lastLineFeed - 1;
    return n;
  }

  /** Moves the undecoded bytes to the buffer's start and reads more after them. */
  private void readBytes() throws IOException {
    bufferOffset += bytes.position();
    bytes.compact();
    try {
      int n = in.read(bytes.array(), bytes.position(), bytes.remaining());
      if (n < 0) {
        endOfInput = true;
      } else {
        bytes.position(bytes.position() + n);
      }
    } finally {
      bytes.flip();
    }
  }

  private InvalidUtf8Exception invalid(int length) {
    int at = bytes.position();
    byte[] bad = new byte[length];
    bytes.get(at, bad);
    return new InvalidUtf8Exception(bufferOffset + at, bad, lineFeeds + 1, charsOnLine + 1);
  }

  @Override
  public void close() throws IOException {
    in.close();
  }
}
