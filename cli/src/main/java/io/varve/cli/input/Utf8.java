package io.varve.cli.input;

import java.nio.charset.StandardCharsets;

/** Encodes parsed fields as UTF-8, refusing what UTF-8 cannot encode. Stateless; thread-safe. */
final class Utf8 {
  private Utf8() {}

  /**
   * {@code text} as UTF-8, or null if it holds an unpaired UTF-16 surrogate (a lone {@code
   * \\uD800} in JSON, or chars from a reader that is not a strict decoder), which the JDK's encoder
   * would silently replace by {@code ?}. ASCII text, by far the most common, is scanned for
   * {@code ?} alone: when every char took one byte, an unpaired surrogate can only be a {@code ?}
   * that the text does not hold.
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

  private static boolean hasUnpairedSurrogate(String text) {
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
