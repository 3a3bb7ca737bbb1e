package io.varve.core.ect;

import io.varve.core.codes.TrieCodes;

/**
 * The expected size of an entropy-coded trie over uniformly random keys, computed exactly from the
 * codes of {@link TrieCodes} (the curves of the ECT paper's Figures 3 and 6).
 *
 * <p>For a trie of {@code c} keys whose first key has rank {@code r} modulo the block size {@code
 * k}, with {@code p(s) = C(c, s) / 2^c} for a split with {@code s} keys on the left and {@code
 * p(0) = 2 / 2^c} for a one-sided split:
 *
 * <pre>
 * E(c, r) = 0                                            if c &lt;= 1 or the keys lie in one block
 * E(c, r) = p(0) (len(c, 0) + E(c, r))
 *         + sum over s in [1, c) of p(s) (len(c, s) + E(s, r) + E(c - s, (r + s) mod k))
 * </pre>
 *
 * Dense tries are the case {@code k = infinity}. The size excludes the bucket directory (which
 * stores {@code c}). Instances are immutable and thread-safe.
 */
public final class TrieSizeModel {
  private final TrieCodes codes;

  public TrieSizeModel(int huffmanMax) {
    this.codes = TrieCodes.forHuffmanMax(huffmanMax);
  }

  /** Expected bits of a dense trie of each size: element {@code c} for {@code c <= maxKeys}. */
  public double[] expectedDenseBits(int maxKeys) {
    double[] expected = new double[maxKeys + 1];
    for (int c = 2; c <= maxKeys; c++) {
      double[] p = splitProbabilities(c);
      double sum = p[0] * codes.length(c, 0);
      for (int s = 1; s < c; s++) {
        sum += p[s] * (codes.length(c, s) + expected[s] + expected[c - s]);
      }
      expected[c] = sum / (1 - p[0]);
    }
    return expected;
  }

  /**
   * The entropy of a trie of each size up to {@code maxKeys} (element {@code c}), in bits: the
   * least any code for the same recursive representation can spend on average. The codes' expected
   * size ({@link #expectedDenseBits}) over this is their coding overhead.
   */
  public double[] entropyBits(int maxKeys) {
    double[] entropy = new double[maxKeys + 1];
    for (int c = 2; c <= maxKeys; c++) {
      double[] p = splitProbabilities(c);
      double sum = 0;
      for (int s = 0; s < c; s++) {
        if (p[s] > 0) {
          sum -= p[s] * StrictMath.log(p[s]) / StrictMath.log(2);
        }
        if (s > 0) {
          sum += p[s] * (entropy[s] + entropy[c - s]);
        }
      }
      entropy[c] = sum / (1 - p[0]);
    }
    return entropy;
  }

  /**
   * Expected bits of a sparse trie of {@code keys} keys that starts at a block boundary, with
   * blocks of {@code keysPerBlock} keys.
   */
  public double expectedSparseBits(int keys, int keysPerBlock) {
    if (keysPerBlock < 1) {
      throw new IllegalArgumentException("keysPerBlock must be >= 1: " + keysPerBlock);
    }
    if (keysPerBlock >= keys) {
      return 0;
    }
    int k = keysPerBlock;
    // expected[c][r]: a trie of c keys whose first key sits at offset r of its block.
    double[][] expected = new double[keys + 1][k];
    for (int c = 2; c <= keys; c++) {
      double[] p = splitProbabilities(c);
      for (int r = 0; r < k; r++) {
        if (r + c <= k) {
          continue;
        }
        double sum = p[0] * codes.length(c, 0);
        for (int s = 1; s < c; s++) {
          sum += p[s] * (codes.length(c, s) + expected[s][r] + expected[c - s][(r + s) % k]);
        }
        expected[c][r] = sum / (1 - p[0]);
      }
    }
    return expected[keys][0];
  }

  /** {@code p[s]} = probability that {@code s} of {@code c} random keys go left, s = 0 merged with c. */
  private static double[] splitProbabilities(int c) {
    double[] p = new double[c];
    // log C(c, s) - c log 2, accumulated to stay finite for large c.
    double logBinomial = 0;
    // StrictMath: skip-length predictions derive from this model and must not vary by JVM.
    double logHalfPower = -c * StrictMath.log(2);
    p[0] = 2 * StrictMath.exp(logHalfPower);
    for (int s = 1; s < c; s++) {
      logBinomial += StrictMath.log((double) (c - s + 1) / s);
      p[s] = StrictMath.exp(logBinomial + logHalfPower);
    }
    return p;
  }
}
