package io.varve.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class BlockedRankBenchmarkTest {
  @ParameterizedTest
  @ValueSource(ints = {256, 300, 320})
  void rankIsThePositionInHashOrder(int keysPerBlock) {
    BlockedRankBenchmark bench = new BlockedRankBenchmark();
    bench.keysPerBlock = keysPerBlock;
    bench.keys = 40_000;
    bench.setup();
    BenchmarkData data = BenchmarkData.sortedHashes(bench.keys, BenchmarkData.SEED);
    int lookups = bench.queryHi.length;
    assertEquals(bench.keys, lookups, "small sizes look up every key");
    for (int call = 0; call < 5 * lookups / 2; call++) {
      int i = bench.nextLookup();
      assertEquals(call % lookups, i);
      long expected = EctRankBenchmarkTest.referenceRank(data, bench.queryHi[i], bench.queryLo[i]);
      assertEquals(bench.order[i], expected);
      assertEquals(expected, bench.rank(), "lookup " + i);
    }
    assertTrue(bench.index.bitsPerKey() > 3 && bench.index.bitsPerKey() < 4.5, "bits/key " + bench.index.bitsPerKey());
  }
}
