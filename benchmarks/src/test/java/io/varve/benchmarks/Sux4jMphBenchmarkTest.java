package io.varve.benchmarks;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.BitSet;
import org.junit.jupiter.api.Test;

class Sux4jMphBenchmarkTest {
  @Test
  void functionIsAMinimalPerfectHashOfTheKeys() throws IOException {
    Sux4jMphBenchmark bench = new Sux4jMphBenchmark();
    bench.keys = 50_000;
    bench.setup();

    int n = bench.keys;
    BenchmarkData data = BenchmarkData.sortedHashes(n, BenchmarkData.SEED);
    int lookups = bench.queryKeys.length;
    assertEquals(n, lookups, "small sizes look up every key");

    // One pass through the lookup order visits every key once: values must be a bijection on [0, n).
    BitSet seen = new BitSet(n);
    long[] valueOfKey = new long[n];
    for (int call = 0; call < lookups; call++) {
      int i = bench.nextLookup();
      assertArrayEquals(data.keyBytes(bench.order[i]), bench.queryKeys[i]);
      long value = bench.getLong();
      assertTrue(value >= 0 && value < n, "value out of range: " + value);
      assertFalse(seen.get((int) value), "value " + value + " returned twice");
      seen.set((int) value);
      valueOfKey[bench.order[i]] = value;
    }
    assertEquals(n, seen.cardinality());

    // By signature: the same value for the same key, on a second (wrapped) pass and beyond.
    for (int call = 0; call < lookups + 1_000; call++) {
      int i = bench.nextLookup();
      assertEquals(valueOfKey[bench.order[i]], bench.getLongBySignature(), "lookup " + i);
    }
    // And the key lookups go on agreeing after wrapping around.
    for (int call = 0; call < lookups; call++) {
      int i = bench.nextLookup();
      assertEquals(valueOfKey[bench.order[i]], bench.getLong(), "lookup " + i);
    }

    double bitsPerKey = (double) bench.mph.numBits() / n;
    assertTrue(bitsPerKey > 1.5 && bitsPerKey < 3, "bits/key " + bitsPerKey);
  }
}
