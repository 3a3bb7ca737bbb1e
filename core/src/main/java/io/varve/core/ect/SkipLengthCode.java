package io.varve.core.ect;

import io.varve.core.bits.BitWriter;
import io.varve.core.codes.ExpGolomb;
import io.varve.core.codes.TrieCodes;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The code of a skip length: the number of bits of {@code Rep(Left(T))}, stored at the top
 * {@code skipLevels} levels of each trie so that a lookup going right jumps over the left subtrie
 * instead of decoding it.
 *
 * <p>A skip length {@code L} for a left subtrie of {@code c} keys is written as the zigzag-mapped
 * deviation {@code L - predicted(c)} in an Exp-Golomb code of order {@code k(c) = max(0,
 * floor(log2 c) / 2 + 1)}, where {@code predicted(c)} is the expected size of a dense trie of
 * {@code c} random keys ({@link TrieSizeModel}, evaluated with {@link StrictMath} so that every
 * JVM computes the same table) rounded to the nearest integer for {@code c <= 1024}, and {@code
 * c * predicted(1024) / 1024} beyond. Immutable and thread-safe.
 */
final class SkipLengthCode {
  private static final int TABLE_SIZE = 1024;
  private static final ConcurrentHashMap<Integer, SkipLengthCode> CACHE = new ConcurrentHashMap<>();

  private final long[] predicted;

  private SkipLengthCode(int huffmanMax) {
    double[] expected = new TrieSizeModel(huffmanMax).expectedDenseBits(TABLE_SIZE);
    predicted = new long[TABLE_SIZE + 1];
    for (int c = 0; c <= TABLE_SIZE; c++) {
      predicted[c] = Math.round(expected[c]);
    }
  }

  static SkipLengthCode forHuffmanMax(int huffmanMax) {
    TrieCodes.forHuffmanMax(huffmanMax); // validates
    return CACHE.computeIfAbsent(huffmanMax, SkipLengthCode::new);
  }

  long predicted(int keys) {
    return keys <= TABLE_SIZE ? predicted[keys] : keys * predicted[TABLE_SIZE] / TABLE_SIZE;
  }

  static int order(int keys) {
    return Math.max(0, (31 - Integer.numberOfLeadingZeros(keys)) / 2 + 1);
  }

  int length(int keys, long skipBits) {
    return ExpGolomb.length(ExpGolomb.zigzag(skipBits - predicted(keys)), order(keys));
  }

  void write(BitWriter out, int keys, long skipBits) {
    ExpGolomb.write(out, ExpGolomb.zigzag(skipBits - predicted(keys)), order(keys));
  }

  /** Returns {@code skipBits << 8 | codeLength}; {@code skipBits} may be negative if damaged. */
  long decode(int keys, long peek) {
    long decoded = ExpGolomb.decode(peek, order(keys));
    long skipBits = ExpGolomb.unzigzag(decoded >>> 8) + predicted(keys);
    return skipBits << 8 | (decoded & 0xFF);
  }
}
