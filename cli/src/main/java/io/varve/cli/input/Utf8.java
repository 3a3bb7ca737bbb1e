package io.varve.cli.input;

import java.nio.CharBuffer;
import java.nio.charset.StandardCharsets;

/** Encodes parsed fields as UTF-8, refusing what UTF-8 cannot encode. Stateless; thread-safe. */
final class Utf8 {
  private Utf8() {}

  /**
   * {@code text} as UTF-8, or null if it holds an unpaired UTF-16 surrogate (a lone {@code
   * \\uD800} in JSON, or chars from a reader that is not a strict decoder), which the JDK's encoder
   * would silently replace by {@code ?}. When every char took one byte, an unpaired surrogate can
   * only be a {@code ?} in the bytes that the text does not hold, so ASCII text is only scanned for
   * {@code ?}.
   */
  static byte[] encode(String text) {
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    if (bytes.length == text.length()) {
      for (int i = 0; i < bytes.length; i++) {
        if (bytes[i] == '?' && text.charAt(i) != '?') {
          return null;
        }
      }
      return bytes;
    }
    return hasUnpairedSurrogate(text) ? null : bytes;
  }

  /**
   * {@code chars[offset, offset + length)} as UTF-8, or null if they hold an unpaired surrogate:
   * encoding straight from a parser's buffer spares the {@code String} in between.
   */
  static byte[] encode(char[] chars, int offset, int length) {
    byte[] ascii = new byte[length];
    for (int i = 0; i < length; i++) {
      char c = chars[offset + i];
      if (c >= 0x80) {
        if (hasUnpairedSurrogate(CharBuffer.wrap(chars, offset + i, length - i))) {
          return null;
        }
        return new String(chars, offset, length).getBytes(StandardCharsets.UTF_8);
      }
      ascii[i] = (byte) c;
    }
    return ascii;
  }

  private static boolean hasUnpairedSurrogate(CharSequence text) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (Character.isSurrogate(c)) {
        if (!Character.isHighSurrogate(c) || i + 1 == text.length() || !Character.isLowSurrogate(text.charAt(i + 1))) {
          return true;
        }
        i++;
      }
    }
    return false;
  }
}
