package io.varve.core.ect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The analytic model must agree with the sizes of real tries (averaged over random key sets). */
class TrieSizeModelTest {
  private static final int TRIALS = 3000;

  @Test
  void denseModelMatchesBuiltTries() {
    TrieSizeModel model = new TrieSizeModel(64);
    double[] expected = model.expectedDenseBits(300);
    assertEquals(0, expected[1]);
    // Two keys: each level splits them with probability 1/2, every level costs one bit.
    assertEquals(2.0, expected[2], 1e-12, "two keys: a geometric number of 1-bit codes");
    for (int n : new int[] {3, 16, 64, 65, 256, 300}) {
      double measured = averageTrieBits(n, Integer.MAX_VALUE, n * 31L);
      System.out.printf("dense n=%d: model %.3f bits/key, measured %.3f%n", n, expected[n] / n, measured / n);
      assertEquals(expected[n], measured, expected[n] * 0.02 + 0.1, "n=" + n);
    }
    assertTrue(expected[256] / 256 < 2.5, "the paper's ~2.5 bits/key asymptote");
  }

  @Test
  void sparseModelMatchesBuiltTries() {
    TrieSizeModel model = new TrieSizeModel(64);
    for (int k : new int[] {1, 2, 8, 32, 255, 256}) {
      double expected = model.expectedSparseBits(256, k);
      double measured = averageTrieBits(256, k, k * 17L);
      System.out.printf("sparse 256 keys, %d per block: model %.3f bits/key, measured %.3f%n", k, expected / 256, measured / 256);
      assertEquals(expected, measured, expected * 0.03 + 0.5, "k=" + k);
    }
    assertEquals(model.expectedDenseBits(256)[256], model.expectedSparseBits(256, 1), 1e-9);
  }

  private static double averageTrieBits(int n, int keysPerBlock, long seed) {
    long total = 0;
    for (int t = 0; t < TRIALS; t++) {
      SortedHashes hashes = SortedHashes.random(n, seed + t);
      if (hashes.size() != n) {
        t--;
        continue;
      }
      EctParameters oneBucket = new EctParameters(n, 64);
      EctIndex index =
          keysPerBlock == Integer.MAX_VALUE
              ? hashes.buildDense(oneBucket)
              : hashes.buildSparse(oneBucket, BlockBoundaries.fixedSize(keysPerBlock));
      total += index.trieBits();
    }
    return (double) total / TRIALS;
  }
}
