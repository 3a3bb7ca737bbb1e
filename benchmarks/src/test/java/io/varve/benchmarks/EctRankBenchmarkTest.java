package io.varve.benchmarks;

import static io.varve.benchmarks.RankBenchmarkChecks.assertRanksInHashOrder;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class EctRankBenchmarkTest {
  @ParameterizedTest
  @CsvSource({"64, 0", "128, 0", "256, 0", "512, 0", "64, 2", "256, 3"})
  void rankIsThePositionInHashOrder(int bucketSize, int skipLevels) {
    EctRankBenchmark bench = new EctRankBenchmark();
    bench.bucketSize = bucketSize;
    bench.huffmanMax = 64;
    bench.skipLevels = skipLevels;
    bench.keys = 40_000;
    bench.setup();

    assertRanksInHashOrder(bench, bench.keys, bench::rank);
    assertTrue(bench.index.bitsPerKey() > 1 && bench.index.bitsPerKey() < 5);

    // The batch benchmark ranks the same queries, BATCH at a time, wrapping at the end.
    int lookups = bench.queryHi.length;
    int done = 0;
    while (done < 2 * lookups) {
      int start = bench.nextBatch();
      int end = Math.min(lookups, start + EctRankBenchmark.BATCH);
      long[] ranks = bench.rankBatch();
      for (int i = start; i < end; i++) {
        assertEquals(bench.order[i], ranks[i], "batch lookup " + i);
      }
      done += end - start;
    }
  }
}
