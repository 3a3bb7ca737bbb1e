package io.varve.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.core.hash.KeyHasher;
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

    BenchmarkData data = BenchmarkData.sortedHashes(bench.keys, BenchmarkData.SEED);
    int lookups = bench.queryHi.length;
    assertEquals(bench.keys, lookups, "small sizes look up every key");
    // Two and a half passes: the cursor wraps around.
    for (int call = 0; call < 5 * lookups / 2; call++) {
      int i = bench.nextLookup();
      assertEquals(call % lookups, i);
      long expected = referenceRank(data, bench.queryHi[i], bench.queryLo[i]);
      assertEquals(bench.order[i], expected);
      assertEquals(expected, bench.rank(), "lookup " + i);
    }
    assertTrue(bench.index.bitsPerKey() > 1 && bench.index.bitsPerKey() < 5);

    // The batch benchmark ranks the same queries, BATCH at a time, wrapping at the end.
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

  /** Binary search in the sorted arrays: the rank of a member hash, or -1. */
  static long referenceRank(BenchmarkData data, long hi, long lo) {
    int low = 0;
    int high = data.size() - 1;
    while (low <= high) {
      int mid = (low + high) >>> 1;
      int c = KeyHasher.compare(data.hi[mid], data.lo[mid], hi, lo);
      if (c < 0) {
        low = mid + 1;
      } else if (c > 0) {
        high = mid - 1;
      } else {
        return mid;
      }
    }
    return -1;
  }
}
