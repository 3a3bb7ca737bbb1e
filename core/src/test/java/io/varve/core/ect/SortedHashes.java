package io.varve.core.ect;

import io.varve.core.hash.KeyHasher;
import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * Test data: distinct 128-bit hashes in hash order, as two parallel arrays. Shared by the tests of
 * every index over sorted hashes (ECT, blocked).
 */
public final class SortedHashes {
  public final long[] hi;
  public final long[] lo;

  /** Wraps hashes the caller has put in strictly increasing unsigned order. */
  public SortedHashes(long[] hi, long[] lo) {
    this.hi = hi;
    this.lo = lo;
  }

  public int size() {
    return hi.length;
  }

  /** {@code n} uniformly random distinct hashes. */
  public static SortedHashes random(int n, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    long[] hi = new long[n];
    for (int i = 0; i < n; i++) {
      hi[i] = random.nextLong() ^ Long.MIN_VALUE;
    }
    Arrays.sort(hi); // signed order of hi ^ MIN_VALUE is the unsigned order of hi
    int distinct = 0;
    for (int i = 0; i < n; i++) {
      if (i == 0 || hi[i] != hi[i - 1]) {
        hi[distinct++] = hi[i];
      }
    }
    long[] sortedHi = new long[distinct];
    long[] lo = new long[distinct];
    for (int i = 0; i < distinct; i++) {
      sortedHi[i] = hi[i] ^ Long.MIN_VALUE;
      lo[i] = random.nextLong();
    }
    return new SortedHashes(sortedHi, lo);
  }

  /**
   * Hashes whose high words repeat in runs, so that tries must read the low words: runs of up to
   * {@code maxRun} keys share {@code hi} and differ in a few bits of {@code lo}.
   */
  public static SortedHashes clustered(int n, int maxRun, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    SortedHashes base = random(n, seed);
    long[] hi = new long[n];
    long[] lo = new long[n];
    int filled = 0;
    int next = 0;
    while (filled < n) {
      int run = Math.min(n - filled, 1 + random.nextInt(maxRun));
      long h = base.hi[next++];
      long[] lows = new long[run];
      long prefix = random.nextLong() & 0xFFFFFFFF00000000L;
      for (int i = 0; i < run; i++) {
        // Distinct low words that agree in their top 32 bits: paths go deep into lo.
        lows[i] = prefix | ((long) i * 2654435761L & 0xFFFFFFFFL);
      }
      for (int i = 0; i < run; i++) {
        lows[i] ^= Long.MIN_VALUE;
      }
      Arrays.sort(lows);
      for (int i = 0; i < run; i++) {
        hi[filled] = h;
        lo[filled++] = lows[i] ^ Long.MIN_VALUE;
      }
    }
    return new SortedHashes(hi, lo);
  }

  /** The hashes of real byte-string keys under {@code hasher}, sorted. */
  static SortedHashes ofKeys(byte[][] keys, KeyHasher hasher) {
    long[][] pairs = new long[keys.length][];
    for (int i = 0; i < keys.length; i++) {
      pairs[i] = new long[2];
      hasher.hash(keys[i], pairs[i]);
    }
    Arrays.sort(pairs, (a, b) -> KeyHasher.compare(a[0], a[1], b[0], b[1]));
    long[] hi = new long[keys.length];
    long[] lo = new long[keys.length];
    for (int i = 0; i < keys.length; i++) {
      hi[i] = pairs[i][0];
      lo[i] = pairs[i][1];
    }
    return new SortedHashes(hi, lo);
  }

  EctIndex buildDense(EctParameters parameters) {
    EctIndexBuilder builder = EctIndex.builder(size(), parameters);
    for (int i = 0; i < size(); i++) {
      builder.add(hi[i], lo[i]);
    }
    return builder.finish();
  }

  /** An index sized for {@code declared} keys (at least {@link #size()}) that gets these. */
  EctIndex buildDenseUpTo(long declared, EctParameters parameters) {
    EctIndexBuilder builder = EctIndex.builderUpTo(declared, parameters);
    for (int i = 0; i < size(); i++) {
      builder.add(hi[i], lo[i]);
    }
    return builder.finish();
  }

  EctIndex buildSparse(EctParameters parameters, BlockBoundaries blocks) {
    EctIndexBuilder builder = EctIndex.sparseBuilder(size(), parameters, blocks);
    for (int i = 0; i < size(); i++) {
      builder.add(hi[i], lo[i]);
    }
    return builder.finish();
  }
}
