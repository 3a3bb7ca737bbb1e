package io.varve.core.ect;

import io.varve.core.codes.TrieCodes;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The length of {@code Rep(T)} for small subtries without skip lengths, read off the next {@value
 * #WINDOW_BITS} bits in one table lookup instead of decoding the subtrie code by code. Skipping
 * small left subtries is most of the work of a lookup, so this cuts its branchy, serial decoding
 * where it is densest.
 *
 * <p>For each key count {@code c} in {@code [2, MAX_KEYS]} and each {@value #WINDOW_BITS}-bit
 * window, the table holds one more than the length of the representation that starts with those
 * bits if it fits in the window, else 0 (decode normally). One table read for every small count
 * lets a lookup find the skip before it knows its direction and then choose without a branch
 * (a one-key subtrie is empty and needs no table). Immutable and thread-safe; cached per {@code
 * hmax}.
 */
final class SmallSubtrieSkips {
  static final int WINDOW_BITS = 12;
  static final int MAX_KEYS = 6;
  private static final ConcurrentHashMap<Integer, SmallSubtrieSkips> CACHE = new ConcurrentHashMap<>();

  /** Entry {@code (c - 2) << WINDOW_BITS | window}: the representation length plus one, or 0. */
  private final byte[] lengths = new byte[(MAX_KEYS - 1) << WINDOW_BITS];

  private SmallSubtrieSkips(TrieCodes codes) {
    for (int c = 2; c <= MAX_KEYS; c++) {
      for (int window = 0; window < 1 << WINDOW_BITS; window++) {
        long peek = (long) window << (64 - WINDOW_BITS);
        int length = representationLength(codes, peek, 0, c);
        if (length <= WINDOW_BITS) {
          lengths[(c - 2) << WINDOW_BITS | window] = (byte) (length + 1);
        }
      }
    }
  }

  static SmallSubtrieSkips forHuffmanMax(int huffmanMax) {
    return CACHE.computeIfAbsent(huffmanMax, h -> new SmallSubtrieSkips(TrieCodes.forHuffmanMax(h)));
  }

  /**
   * The length of Rep of a {@code count}-key subtrie ({@code 2 <= count <= MAX_KEYS}) whose bits
   * start at the head of {@code peek}, or -1 if it is longer than the window.
   */
  int length(int count, long peek) {
    return lengths[(count - 2) << WINDOW_BITS | (int) (peek >>> (64 - WINDOW_BITS))] - 1;
  }

  /**
   * Decodes Rep of a {@code count}-key subtrie at bit {@code position} of {@code peek} (zeros past
   * the window); returns its length, or a value over the window when it does not end inside.
   */
  private static int representationLength(TrieCodes codes, long peek, int position, int count) {
    int start = position;
    while (count > 1) {
      if (position > WINDOW_BITS) {
        return WINDOW_BITS + 1;
      }
      long decoded;
      try {
        decoded = codes.decode(count, peek << position);
      } catch (RuntimeException invalidPrefix) {
        return WINDOW_BITS + 1;
      }
      position += (int) (decoded & 0xFF);
      int left = (int) (decoded >>> 8);
      if (left != 0) {
        position += representationLength(codes, peek, position, left);
        count -= left;
      }
    }
    return position - start;
  }
}
