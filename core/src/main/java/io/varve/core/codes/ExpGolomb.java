package io.varve.core.codes;

import io.varve.core.bits.BitWriter;
import io.varve.core.format.CorruptStoreException;

/**
 * Exp-Golomb codes of order {@code k} for non-negative integers, and the zigzag map that sends
 * signed deviations to them. The code of {@code x} is, with {@code v = x + 2^k}, {@code
 * bitLength(v) - k - 1} zero bits followed by {@code v} in {@code bitLength(v)} bits. Decoding
 * counts the zeros with {@link Long#numberOfLeadingZeros}. Stateless and thread-safe.
 */
public final class ExpGolomb {
  /** The longest code {@link #decode} accepts: codes are read from a single 64-bit peek. */
  public static final int MAX_CODE_LENGTH = 63;

  private ExpGolomb() {}

  /** Maps 0, -1, 1, -2, 2, ... to 0, 1, 2, 3, 4, ... */
  public static long zigzag(long value) {
    return (value << 1) ^ (value >> 63);
  }

  /** The inverse of {@link #zigzag}. */
  public static long unzigzag(long value) {
    return (value >>> 1) ^ -(value & 1);
  }

  /** The length in bits of the code of {@code x >= 0}. */
  public static int length(long x, int k) {
    int bits = 64 - Long.numberOfLeadingZeros(x + (1L << k));
    return 2 * bits - k - 1;
  }

  /** Appends the code of {@code x >= 0}. */
  public static void write(BitWriter out, long x, int k) {
    long v = x + (1L << k);
    int bits = 64 - Long.numberOfLeadingZeros(v);
    if (2 * bits - k - 1 > MAX_CODE_LENGTH) {
      throw new IllegalArgumentException("value too large for an order-" + k + " Exp-Golomb code: " + x);
    }
    out.writeZeros(bits - k - 1);
    out.write(v, bits);
  }

  /**
   * Decodes the code at the head of {@code peek}.
   *
   * @return {@code x << 8 | codeLength}
   * @throws CorruptStoreException when {@code peek} holds no complete code
   */
  public static long decode(long peek, int k) {
    int zeros = Long.numberOfLeadingZeros(peek);
    int bits = zeros + k + 1;
    if (zeros + bits > MAX_CODE_LENGTH) {
      throw new CorruptStoreException("invalid Exp-Golomb code (" + zeros + " leading zeros)");
    }
    long x = ((peek << zeros) >>> (64 - bits)) - (1L << k);
    return x << 8 | (zeros + bits);
  }
}
