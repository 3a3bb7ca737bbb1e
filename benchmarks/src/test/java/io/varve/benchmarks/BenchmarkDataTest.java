package io.varve.benchmarks;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.core.hash.KeyHasher;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class BenchmarkDataTest {
  @Test
  void hashesAreDistinctSortedAndDeterministic() {
    BenchmarkData data = BenchmarkData.sortedHashes(50_000, BenchmarkData.SEED);
    assertEquals(50_000, data.size());
    for (int i = 1; i < data.size(); i++) {
      assertTrue(
          KeyHasher.compare(data.hi[i - 1], data.lo[i - 1], data.hi[i], data.lo[i]) < 0,
          "not in strictly increasing hash order at " + i);
    }
    // Both halves of the unsigned range are used (the sign flip is undone).
    assertTrue(data.hi[0] >= 0 && data.hi[data.size() - 1] < 0);
    BenchmarkData again = BenchmarkData.sortedHashes(50_000, BenchmarkData.SEED);
    assertArrayEquals(data.hi, again.hi);
    assertArrayEquals(data.lo, again.lo);
  }

  @Test
  void keyBytesAreBigEndianHiThenLo() {
    BenchmarkData data = BenchmarkData.sortedHashes(1_000, 7);
    for (int i = 0; i < data.size(); i++) {
      byte[] key = data.keyBytes(i);
      assertEquals(16, key.length);
      long hi = 0;
      long lo = 0;
      for (int b = 0; b < 8; b++) {
        hi = hi << 8 | (key[b] & 0xFF);
        lo = lo << 8 | (key[8 + b] & 0xFF);
      }
      assertEquals(data.hi[i], hi);
      assertEquals(data.lo[i], lo);
      if (i > 0) {
        assertTrue(Arrays.compareUnsigned(data.keyBytes(i - 1), key) < 0);
      }
    }
  }

  @Test
  void smallLookupOrderIsAPermutation() {
    int n = 10_007;
    int[] order = BenchmarkData.lookupOrder(n, BenchmarkData.LOOKUP_SEED);
    assertEquals(n, order.length);
    int[] sorted = order.clone();
    Arrays.sort(sorted);
    for (int i = 0; i < n; i++) {
      assertEquals(i, sorted[i]);
    }
    // Shuffled, not the identity.
    int fixedPoints = 0;
    for (int i = 0; i < n; i++) {
      fixedPoints += order[i] == i ? 1 : 0;
    }
    assertTrue(fixedPoints < 20, "fixed points: " + fixedPoints);
  }

  @Test
  void largeLookupOrderIsABoundedSample() {
    int n = 3 * BenchmarkData.MAX_LOOKUPS;
    int[] order = BenchmarkData.lookupOrder(n, BenchmarkData.LOOKUP_SEED);
    assertEquals(BenchmarkData.MAX_LOOKUPS, order.length);
    long sum = 0;
    for (int index : order) {
      assertTrue(index >= 0 && index < n);
      sum += index;
    }
    double mean = (double) sum / order.length;
    assertEquals(n / 2.0, mean, n * 0.01);
  }

  @Test
  void monotoneValuesHaveTheRequestedMeanGap() {
    long[] values = BenchmarkData.monotoneValues(100_000, 256, 3);
    for (int i = 1; i < values.length; i++) {
      assertTrue(values[i] >= values[i - 1]);
      assertTrue(values[i] - values[i - 1] < 512);
    }
    assertEquals(255.5, (double) values[values.length - 1] / values.length, 2.0);
  }
}
