package io.varve.core.index;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.varve.core.ect.SortedHashes;
import java.util.SplittableRandom;

/**
 * Checks {@link RankIndex#rank(long[], long[], long[], int, int)} against single lookups, for
 * every index kind's tests: members and random hashes mixed, a range that starts past 0 (the slots
 * before it untouched), and bounds checked.
 */
public final class BatchRanks {
  private BatchRanks() {}

  /** Ranks {@code hashes.size() + 37} queries, three quarters members, in one batch call. */
  public static void check(RankIndex index, SortedHashes hashes, SplittableRandom random) {
    int n = hashes.size();
    int queries = n + 37;
    long[] hi = new long[queries];
    long[] lo = new long[queries];
    for (int i = 0; i < queries; i++) {
      boolean member = n > 0 && random.nextInt(4) != 0;
      int k = member ? random.nextInt(n) : 0;
      hi[i] = member ? hashes.hi[k] : random.nextLong();
      lo[i] = member ? hashes.lo[k] : random.nextLong();
    }
    long[] ranks = new long[queries];
    int from = Math.min(3, queries);
    index.rank(hi, lo, ranks, from, queries);
    for (int i = 0; i < queries; i++) {
      long expected = i < from ? 0 : index.rank(hi[i], lo[i]);
      assertEquals(expected, ranks[i], "query " + i + " of " + queries);
    }
    assertThrows(IndexOutOfBoundsException.class, () -> index.rank(new long[4], new long[4], new long[3], 0, 4));
    assertThrows(IndexOutOfBoundsException.class, () -> index.rank(new long[4], new long[4], new long[4], 3, 2));
  }
}
