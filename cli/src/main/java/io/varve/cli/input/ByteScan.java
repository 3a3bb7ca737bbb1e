package io.varve.cli.input;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Finds the next byte of interest eight bytes at a time: the plain lines of machine-written input
 * are long runs of bytes that need no look, and the input readers scan every one of them. Words
 * with a byte of interest are then looked at byte by byte. Stateless; thread-safe.
 */
final class ByteScan {
  private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final long ONES = 0x0101_0101_0101_0101L;
  private static final long HIGH_BITS = 0x8080_8080_8080_8080L;
  private static final long LINE_FEEDS = '\n' * ONES;
  private static final long CARRIAGE_RETURNS = '\r' * ONES;
  private static final long QUOTES = '"' * ONES;
  private static final long BACKSLASHES = '\\' * ONES;
  private static final long SPACES = ' ' * ONES;

  private ByteScan() {}

  /** The index of the first LF or CR in {@code bytes[from, to)}, or {@code to}. */
  static int lineBreak(byte[] bytes, int from, int to) {
    int i = from;
    for (; i + Long.BYTES <= to; i += Long.BYTES) {
      long word = (long) LONGS.get(bytes, i);
      if ((zeroBytes(word ^ LINE_FEEDS) | zeroBytes(word ^ CARRIAGE_RETURNS)) != 0) {
        break;
      }
    }
    for (; i < to; i++) {
      byte b = bytes[i];
      if (b == '\n' || b == '\r') {
        return i;
      }
    }
    return to;
  }

  /**
   * The index of the first byte in {@code bytes[from, to)} that ends a JSON string or needs a
   * parser's look inside one (a quote, a backslash, or a control char below U+0020), or {@code to}.
   */
  static int stringStop(byte[] bytes, int from, int to) {
    int i = from;
    for (; i + Long.BYTES <= to; i += Long.BYTES) {
      long word = (long) LONGS.get(bytes, i);
      if ((zeroBytes(word ^ QUOTES) | zeroBytes(word ^ BACKSLASHES) | bytesBelow(word, SPACES)) != 0) {
        break;
      }
    }
    for (; i < to; i++) {
      byte b = bytes[i];
      if (b == '"' || b == '\\' || b >= 0 && b < ' ') {
        return i;
      }
    }
    return to;
  }

  /** Nonzero exactly when a byte of {@code word} is zero. */
  private static long zeroBytes(long word) {
    return (word - ONES) & ~word & HIGH_BITS;
  }

  /** Nonzero exactly when a byte of {@code word} is below the byte repeated in {@code bound} (at most 0x80). */
  private static long bytesBelow(long word, long bound) {
    return (word - bound) & ~word & HIGH_BITS;
  }
}
