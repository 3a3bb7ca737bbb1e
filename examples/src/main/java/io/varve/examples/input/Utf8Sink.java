package io.varve.examples.input;

import java.util.Arrays;

/**
 * A growable byte buffer that UTF-8 encodes the chars of one field as the parser hands them over,
 * span by span. A surrogate pair may be split between two spans (at a buffer refill), so a high
 * surrogate at the end of a span waits in {@link #pendingHigh} for the next one.
 *
 * <p>Not thread-safe.
 */
final class Utf8Sink {
  private static final byte[] EMPTY = new byte[0];
  /** The largest array the JVMs we know of allocate. */
  private static final int MAX_LENGTH = Integer.MAX_VALUE - 8;
  /** Past this, {@link #reset} drops the array so that one huge field does not pin its memory. */
  private static final int KEEP_CAPACITY = 1 << 20;

  private byte[] bytes = new byte[64];
  private int length;
  private char pendingHigh;
  /** Set when the chars held an unpaired surrogate, which has no UTF-8 encoding. */
  private boolean malformed;

  void reset() {
    if (bytes.length > KEEP_CAPACITY) {
      bytes = new byte[64];
    }
    length = 0;
    pendingHigh = 0;
    malformed = false;
  }

  int length() {
    return length;
  }

  /** True if the chars appended since {@link #reset} are not a valid UTF-16 sequence. */
  boolean malformed() {
    return malformed || pendingHigh != 0;
  }

  /** A copy of the bytes; the caller owns it. */
  byte[] toArray() {
    return length == 0 ? EMPTY : Arrays.copyOf(bytes, length);
  }

  /** The bytes as a string (for header names). */
  String asString() {
    return new String(bytes, 0, length, java.nio.charset.StandardCharsets.UTF_8);
  }

  boolean contentEquals(byte[] other) {
    return Arrays.equals(bytes, 0, length, other, 0, other.length);
  }

  void copyFrom(Utf8Sink other) {
    length = 0;
    ensure(other.length);
    System.arraycopy(other.bytes, 0, bytes, 0, other.length);
    length = other.length;
    pendingHigh = other.pendingHigh;
    malformed = other.malformed;
  }

  /**
   * Appends {@code src[from, to)}, which the caller has checked is all ASCII: the parsers' fast
   * path, a plain narrowing copy. Only for a field's first span, when no surrogate is pending.
   */
  void appendAscii(char[] src, int from, int to) {
    int n = to - from;
    ensure(n);
    byte[] out = bytes;
    int o = length;
    for (int i = 0; i < n; i++) {
      out[o + i] = (byte) src[from + i];
    }
    length = o + n;
  }

  /** Appends {@code src[from, to)}. */
  void append(char[] src, int from, int to) {
    if (from >= to) {
      return;
    }
    // 3 bytes per char covers every case: a surrogate pair is 2 chars and 4 bytes.
    ensure(3L * (to - from) + 3);
    byte[] out = bytes;
    int o = length;
    int i = from;
    if (pendingHigh != 0) {
      char c = src[i];
      if (Character.isLowSurrogate(c)) {
        o = putCodePoint(out, o, Character.toCodePoint(pendingHigh, c));
        i++;
      } else {
        malformed = true;
      }
      pendingHigh = 0;
    }
    while (i < to) {
      char c = src[i++];
      if (c < 0x80) {
        out[o++] = (byte) c;
      } else if (c < 0x800) {
        out[o++] = (byte) (0xC0 | (c >>> 6));
        out[o++] = (byte) (0x80 | (c & 0x3F));
      } else if (!Character.isSurrogate(c)) {
        out[o++] = (byte) (0xE0 | (c >>> 12));
        out[o++] = (byte) (0x80 | ((c >>> 6) & 0x3F));
        out[o++] = (byte) (0x80 | (c & 0x3F));
      } else if (Character.isLowSurrogate(c)) {
        malformed = true;
      } else if (i == to) {
        pendingHigh = c;
      } else if (Character.isLowSurrogate(src[i])) {
        o = putCodePoint(out, o, Character.toCodePoint(c, src[i++]));
      } else {
        malformed = true;
      }
    }
    length = o;
  }

  /** Appends one char that is not a surrogate (a decoded escape such as {@code \t}). */
  void appendChar(char c) {
    appendCodePoint(c);
  }

  /** Appends a whole code point (a decoded escape, so never half of a pair). */
  void appendCodePoint(int cp) {
    if (pendingHigh != 0) {
      malformed = true;
      pendingHigh = 0;
    }
    ensure(4);
    length = putCodePoint(bytes, length, cp);
  }

  private static int putCodePoint(byte[] out, int o, int cp) {
    if (cp < 0x80) {
      out[o++] = (byte) cp;
    } else if (cp < 0x800) {
      out[o++] = (byte) (0xC0 | (cp >>> 6));
      out[o++] = (byte) (0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out[o++] = (byte) (0xE0 | (cp >>> 12));
      out[o++] = (byte) (0x80 | ((cp >>> 6) & 0x3F));
      out[o++] = (byte) (0x80 | (cp & 0x3F));
    } else {
      out[o++] = (byte) (0xF0 | (cp >>> 18));
      out[o++] = (byte) (0x80 | ((cp >>> 12) & 0x3F));
      out[o++] = (byte) (0x80 | ((cp >>> 6) & 0x3F));
      out[o++] = (byte) (0x80 | (cp & 0x3F));
    }
    return o;
  }

  private void ensure(long extra) {
    long needed = length + extra;
    if (needed <= bytes.length) {
      return;
    }
    if (needed > MAX_LENGTH) {
      // Caught by the parser, which knows the line number.
      throw new FieldTooLongException();
    }
    bytes = Arrays.copyOf(bytes, (int) Math.min(MAX_LENGTH, Math.max(needed, 2L * bytes.length)));
  }

  /** A field does not fit in a Java array; the parser rethrows it with the line number. */
  static final class FieldTooLongException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    FieldTooLongException() {
      super(null, null, false, false);
    }
  }
}
