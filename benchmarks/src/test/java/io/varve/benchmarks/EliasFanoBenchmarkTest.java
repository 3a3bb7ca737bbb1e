package io.varve.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class EliasFanoBenchmarkTest {
  @Test
  void bothStructuresReturnTheStoredValues() {
    EliasFanoBenchmark bench = new EliasFanoBenchmark();
    bench.elements = 60_000;
    bench.meanGap = 256;
    bench.setup();

    long[] values = bench.values();
    int lookups = bench.queryIndex.length;
    assertEquals(bench.elements, lookups);
    for (int call = 0; call < 2 * lookups + 17; call++) {
      int i = bench.nextLookup();
      long expected = values[(int) bench.queryIndex[i]];
      assertEquals(expected, bench.varveGet(), "varve at lookup " + i);
      assertEquals((i + 1) % lookups, bench.nextLookup());
    }
    for (int call = 0; call < 2 * lookups + 17; call++) {
      int i = bench.nextLookup();
      long expected = values[(int) bench.queryIndex[i]];
      assertEquals(expected, bench.sux4jGetLong(), "sux4j at lookup " + i);
    }
    for (int i = 0; i < values.length; i++) {
      assertEquals(values[i], bench.varve.get(i));
      assertEquals(values[i], bench.sux4j.getLong(i));
    }
    // About 2 + log2(256) = 10 bits per element for both.
    double varveBits = (double) bench.varve.encodedBits() / values.length;
    double sux4jBits = (double) bench.sux4j.numBits() / values.length;
    assertTrue(varveBits > 9.5 && varveBits < 10.5, "varve bits/element " + varveBits);
    assertTrue(sux4jBits > 9.5 && sux4jBits < 11.5, "sux4j bits/element " + sux4jBits);
  }
}
