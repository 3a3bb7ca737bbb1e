package io.varve.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.varve.core.hash.KeyHasher;
import java.util.function.LongSupplier;

/** Checks the rank benchmarks share: each call ranks the hash it should, as a binary search would. */
final class RankBenchmarkChecks {
  private RankBenchmarkChecks() {}

  /**
   * Two and a half passes through the lookup order of {@code bench}, set up (the cursor wraps
   * around): every call of {@code rank} ranks the hash the cursor points at, at its position in hash
   * order.
   */
  static void assertRanksInHashOrder(RankBenchmark bench, int keys, LongSupplier rank) {
    BenchmarkData data = BenchmarkData.sortedHashes(keys, BenchmarkData.SEED);
    int lookups = bench.queryHi.length;
    assertEquals(keys, lookups, "small sizes look up every key");
    for (int call = 0; call < 5 * lookups / 2; call++) {
      int i = bench.nextLookup();
      assertEquals(call % lookups, i);
      long expected = referenceRank(data, bench.queryHi[i], bench.queryLo[i]);
      assertEquals(bench.order[i], expected);
      assertEquals(expected, rank.getAsLong(), "lookup " + i);
    }
  }

  /** Binary search in the sorted arrays: the rank of a member hash, or -1. */
  private static long referenceRank(BenchmarkData data, long hi, long lo) {
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
