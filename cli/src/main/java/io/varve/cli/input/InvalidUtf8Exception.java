package io.varve.cli.input;

import java.nio.charset.MalformedInputException;

/**
 * Bytes that are not valid UTF-8 (a stray continuation byte, a sequence cut short, an overlong
 * form, an encoded surrogate, or a code point past U+10FFFF), with where they start in the input.
 *
 * <p>Immutable; thread-safe.
 */
public final class InvalidUtf8Exception extends MalformedInputException {
  private static final long serialVersionUID = 1L;

  private final long byteOffset;
  private final byte[] bytes;
  private final long line;
  private final long column;

  InvalidUtf8Exception(long byteOffset, byte[] bytes, long line, long column) {
    super(bytes.length);
    this.byteOffset = byteOffset;
    this.bytes = bytes;
    this.line = line;
    this.column = column;
  }

  /** The 1-based line of the first invalid byte (lines end at line feeds). */
  public long line() {
    return line;
  }

  /** The 1-based column of the first invalid byte on its line, in UTF-16 chars. */
  public long column() {
    return column;
  }

  /** The 0-based offset in the input of the first invalid byte. */
  public long byteOffset() {
    return byteOffset;
  }

  /** The invalid bytes, as {@code 0xFF} or {@code 0xED 0xA0}. */
  public String bytesShown() {
    StringBuilder s = new StringBuilder();
    for (byte b : bytes) {
      s.append(s.length() == 0 ? "" : " ").append(String.format("0x%02X", b & 0xFF));
    }
    return s.toString();
  }

  @Override
  public String getMessage() {
    return (bytes.length == 1 ? "byte " : "bytes ") + bytesShown() + " at byte offset " + byteOffset
        + (bytes.length == 1 ? " is" : " are") + " not valid UTF-8";
  }
}
