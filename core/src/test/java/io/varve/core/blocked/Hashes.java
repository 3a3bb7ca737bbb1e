package io.varve.core.blocked;

import java.util.Arrays;
import java.util.SplittableRandom;

/** Test data: distinct 128-bit hashes in unsigned hash order, as two parallel arrays. */
final class Hashes {
  final long[] hi;
  final long[] lo;

  Hashes(long[] hi, long[] lo) {
    this.hi = hi;
    this.lo = lo;
  }

  int size() {
    return hi.length;
  }

  /** About {@code n} uniformly random distinct hashes (repeated high words are dropped). */
  static Hashes random(int n, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    long[] flipped = new long[n];
    for (int i = 0; i < n; i++) {
      flipped[i] = random.nextLong();
    }
    Arrays.sort(flipped); // signed order of hi ^ MIN_VALUE is the unsigned order of hi
    long[] distinct = Arrays.stream(flipped).distinct().toArray();
    long[] hi = new long[distinct.length];
    long[] lo = new long[distinct.length];
    for (int i = 0; i < distinct.length; i++) {
      hi[i] = distinct[i] ^ Long.MIN_VALUE;
      lo[i] = random.nextLong();
    }
    return new Hashes(hi, lo);
  }

  /**
   * Hashes whose high words repeat in runs of up to {@code maxRun}, with low words that agree in
   * their top 32 bits: ties are broken deep in the low word.
   */
  static Hashes clustered(int n, int maxRun, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    Hashes base = random(n, seed);
    long[] hi = new long[n];
    long[] lo = new long[n];
    int filled = 0;
    int next = 0;
    while (filled < n) {
      int run = Math.min(n - filled, 1 + random.nextInt(maxRun));
      long h = base.hi[next++];
      long prefix = random.nextLong() & 0xFFFFFFFF00000000L;
      long[] lows = new long[run];
      for (int i = 0; i < run; i++) {
        lows[i] = (prefix | ((long) i * 2654435761L & 0xFFFFFFFFL)) ^ Long.MIN_VALUE;
      }
      Arrays.sort(lows);
      for (int i = 0; i < run; i++) {
        hi[filled] = h;
        lo[filled++] = lows[i] ^ Long.MIN_VALUE;
      }
    }
    return new Hashes(hi, lo);
  }
}
