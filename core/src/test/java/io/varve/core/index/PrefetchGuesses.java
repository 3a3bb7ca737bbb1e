package io.varve.core.index;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.core.ect.SortedHashes;
import java.util.SplittableRandom;

/**
 * Checks {@link RankIndex#rank(long, long, RecordPrefetcher)} against {@link RankIndex#rank(long,
 * long)}, for every index kind's tests: the same answers for members and random non-members, at
 * most one guess per lookup, every guess a rank in {@code [0, size())}.
 */
public final class PrefetchGuesses {
  private PrefetchGuesses() {}

  /**
   * What the guesses came to.
   *
   * @param guesses member lookups that told the prefetcher a rank
   * @param meanError the mean distance of those guesses from the exact rank
   */
  public record Outcome(long guesses, double meanError) {}

  /**
   * Looks up every member of {@code hashes} and, unless the index is empty, 1000 random hashes
   * both ways and compares.
   */
  public static Outcome check(RankIndex index, SortedHashes hashes, SplittableRandom random, String label) {
    long[] calls = new long[1];
    long[] guess = new long[1];
    RecordPrefetcher prefetcher = expected -> {
      calls[0]++;
      guess[0] = expected;
      assertTrue(expected >= 0 && expected < index.size(), "guess " + expected + " outside [0, " + index.size() + ") with " + label);
      return expected;
    };
    double absoluteError = 0;
    long guesses = 0;
    for (int i = 0; i < hashes.size(); i++) {
      long before = calls[0];
      assertEquals(i, index.rank(hashes.hi[i], hashes.lo[i], prefetcher), "member " + i + " with " + label);
      assertTrue(calls[0] - before <= 1, "one guess per lookup at most");
      if (calls[0] > before) {
        absoluteError += Math.abs(guess[0] - i);
        guesses++;
      }
    }
    for (int t = 0; t < 1000 && index.size() > 0; t++) {
      long hi = random.nextLong();
      long lo = random.nextLong();
      assertEquals(index.rank(hi, lo), index.rank(hi, lo, prefetcher), "non-member " + t + " with " + label);
    }
    return new Outcome(guesses, guesses == 0 ? 0 : absoluteError / guesses);
  }
}
