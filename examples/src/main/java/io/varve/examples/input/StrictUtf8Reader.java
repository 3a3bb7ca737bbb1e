package io.varve.examples.input;

import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Decodes UTF-8 bytes strictly, reporting a malformed sequence as an {@link InputFormatException}
 * that names the line it is on and its byte offset. An {@code InputStreamReader} decodes ahead of
 * the parser and reports only "Input length = 1", so the line the parser had reached was thousands
 * of lines short of the bad byte; here the line is counted in the bytes themselves. Not
 * thread-safe.
 */
public final class StrictUtf8Reader extends Reader {
  private final InputStream in;
  private final CharsetDecoder decoder =
      StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT);
  private final ByteBuffer bytes;
  private final CharBuffer chars;
  /** Line feeds before the buffer's first byte, and that byte's offset in the input. */
  private long linesBefore;
  private long offsetBefore;
  private boolean endOfInput;
  private boolean flushed;

  /** A reader of {@code in}, which it closes on {@link #close}. */
  public StrictUtf8Reader(InputStream in) {
    this(in, 1 << 16);
  }

  StrictUtf8Reader(InputStream in, int bufferSize) {
    this.in = in;
    this.bytes = ByteBuffer.allocate(Math.max(4, bufferSize));
    bytes.flip();
    this.chars = CharBuffer.allocate(Math.max(2, bufferSize));
    chars.flip();
  }

  @Override
  public int read(char[] target, int offset, int length) throws IOException {
    java.util.Objects.checkFromIndexSize(offset, length, target.length);
    if (length == 0) {
      return 0;
    }
    if (!chars.hasRemaining() && !decodeMore()) {
      return -1;
    }
    int n = Math.min(length, chars.remaining());
    chars.get(target, offset, n);
    return n;
  }

  /**
   * Decodes the next chars into {@code chars} (a buffer of its own, so that a surrogate pair is
   * never split across reads); false at the end of the input.
   */
  private boolean decodeMore() throws IOException {
    chars.clear();
    while (chars.position() == 0 && !flushed) {
      CoderResult result = decoder.decode(bytes, chars, endOfInput);
      if (result.isError()) {
        throw malformed(result.length());
      }
      if (result.isOverflow()) {
        break;
      }
      if (endOfInput) {
        decoder.flush(chars);
        flushed = true;
      } else {
        refill();
      }
    }
    chars.flip();
    return chars.hasRemaining();
  }

  /** Moves the undecoded bytes to the front of the buffer and reads more after them. */
  private void refill() throws IOException {
    countLines(bytes.position());
    bytes.compact();
    int read = in.read(bytes.array(), bytes.position(), bytes.remaining());
    if (read < 0) {
      endOfInput = true;
    } else {
      bytes.position(bytes.position() + read);
    }
    bytes.flip();
  }

  /** Counts the line feeds among the buffer's first {@code consumed} bytes, which are being dropped. */
  private void countLines(int consumed) {
    byte[] array = bytes.array();
    for (int i = 0; i < consumed; i++) {
      if (array[i] == '\n') {
        linesBefore++;
      }
    }
    offsetBefore += consumed;
  }

  private InputFormatException malformed(int length) {
    int at = bytes.position();
    long line = linesBefore + 1;
    byte[] array = bytes.array();
    for (int i = 0; i < at; i++) {
      if (array[i] == '\n') {
        line++;
      }
    }
    StringBuilder shown = new StringBuilder();
    for (int i = at; i < Math.min(bytes.limit(), at + length); i++) {
      shown.append(shown.length() == 0 ? "" : " ").append(String.format("0x%02X", array[i] & 0xFF));
    }
    return new InputFormatException(
        line,
        "not UTF-8: byte" + (length > 1 ? "s " : " ") + shown + " at byte " + (offsetBefore + at)
            + " of the input; the input must be UTF-8 text (convert it, for example with iconv, or escape such bytes)");
  }

  @Override
  public void close() throws IOException {
    in.close();
  }
}
