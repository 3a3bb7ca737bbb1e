package io.varve.benchmarks;

import io.varve.core.blocked.BlockedIndex;
import io.varve.core.blocked.BlockedIndexBuilder;
import io.varve.core.blocked.BlockedIndexParameters;
import io.varve.core.ect.EctIndex;
import io.varve.core.ect.EctIndexBuilder;
import io.varve.core.ect.EctParameters;
import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * Deterministic benchmark inputs: {@code n} distinct uniformly random 128-bit hashes in hash order
 * (unsigned, {@code hi} first) as two parallel arrays, plus helpers that build indexes over them and
 * precompute random lookup orders so that benchmark loops never pay for a random number generator.
 *
 * <p>Every generator takes an explicit seed; the benchmarks use {@link #SEED} so that every run
 * and every setting sees the same keys.
 *
 * <p>Immutable once built (the arrays are not copied: do not modify them); thread-safe for reads.
 */
public final class BenchmarkData {
  /** The seed of every benchmark's data. */
  public static final long SEED = 0x5EEDEC7L;

  /** The seed of the lookup orders (distinct from {@link #SEED} so that order and keys are independent). */
  public static final long LOOKUP_SEED = 0x100C0FFEEL;

  /**
   * The largest number of precomputed lookups: a full permutation of the keys when there are at
   * most this many, else this many uniformly random member indexes. 2^20 lookups in sequential
   * arrays keep the query stream out of the cache misses being measured.
   */
  public static final int MAX_LOOKUPS = 1 << 20;

  /** The high words, in hash order. */
  public final long[] hi;

  /** The low words, parallel to {@link #hi}. */
  public final long[] lo;

  private BenchmarkData(long[] hi, long[] lo) {
    this.hi = hi;
    this.lo = lo;
  }

  /** The lookup after lookup {@code i} in an order of {@code length} lookups: they cycle. */
  public static int nextLookup(int i, int length) {
    return i + 1 == length ? 0 : i + 1;
  }

  /** The high words of the hashes at {@code indexes}, in that order (a sequential query stream). */
  public long[] hiAt(int[] indexes) {
    return at(hi, indexes);
  }

  /** The low words of the hashes at {@code indexes}, parallel to {@link #hiAt}. */
  public long[] loAt(int[] indexes) {
    return at(lo, indexes);
  }

  private static long[] at(long[] words, int[] indexes) {
    long[] picked = new long[indexes.length];
    for (int i = 0; i < indexes.length; i++) {
      picked[i] = words[indexes[i]];
    }
    return picked;
  }

  /** The number of hashes. */
  public int size() {
    return hi.length;
  }

  /**
   * Exactly {@code n} distinct uniformly random 128-bit hashes in hash order. The high words are
   * themselves distinct (true of random 128-bit hashes but with probability ~{@code n^2 / 2^65});
   * the low words are independent uniformly random.
   */
  public static BenchmarkData sortedHashes(int n, long seed) {
    if (n < 0) {
      throw new IllegalArgumentException("n must be >= 0: " + n);
    }
    SplittableRandom random = new SplittableRandom(seed);
    // Sorted as signed values, hi ^ MIN_VALUE orders like hi unsigned.
    long[] flipped = new long[n];
    int distinct = 0;
    while (distinct < n) {
      for (int i = distinct; i < n; i++) {
        flipped[i] = random.nextLong();
      }
      Arrays.parallelSort(flipped);
      distinct = 0;
      for (int i = 0; i < n; i++) {
        if (i == 0 || flipped[i] != flipped[i - 1]) {
          flipped[distinct++] = flipped[i];
        }
      }
    }
    long[] lo = new long[n];
    for (int i = 0; i < n; i++) {
      flipped[i] ^= Long.MIN_VALUE;
      lo[i] = random.nextLong();
    }
    return new BenchmarkData(flipped, lo);
  }

  /** Builds a dense ECT index over all the hashes, without skip lengths. */
  public EctIndex buildEct(int bucketSize, int huffmanMax) {
    return buildEct(new EctParameters(bucketSize, huffmanMax));
  }

  /** Builds a dense ECT index over all the hashes. */
  public EctIndex buildEct(EctParameters parameters) {
    EctIndexBuilder builder = EctIndex.builder(size(), parameters);
    for (int i = 0; i < hi.length; i++) {
      builder.add(hi[i], lo[i]);
    }
    return builder.finish();
  }

  /** Builds a blocked rank index over all the hashes. */
  public BlockedIndex buildBlocked(BlockedIndexParameters parameters) {
    BlockedIndexBuilder builder = BlockedIndex.builder(size(), parameters);
    for (int i = 0; i < hi.length; i++) {
      builder.add(hi[i], lo[i]);
    }
    return builder.finish();
  }

  /**
   * Hash {@code i} as 16 big-endian bytes, {@code hi} then {@code lo}: distinct keys whose byte
   * order is the hash order.
   */
  public byte[] keyBytes(int i) {
    byte[] key = new byte[16];
    long h = hi[i];
    long l = lo[i];
    for (int b = 7; b >= 0; b--) {
      key[b] = (byte) h;
      key[8 + b] = (byte) l;
      h >>>= 8;
      l >>>= 8;
    }
    return key;
  }

  /** The number of lookups {@link #lookupOrder} precomputes for {@code n} keys. */
  public static int lookupCount(int n) {
    return Math.min(n, MAX_LOOKUPS);
  }

  /**
   * A random order of lookups over member indexes {@code [0, n)}: a uniformly random permutation
   * of all of them when {@code n <= MAX_LOOKUPS}, else {@code MAX_LOOKUPS} indexes drawn uniformly
   * (with replacement).
   */
  public static int[] lookupOrder(int n, long seed) {
    if (n <= 0) {
      throw new IllegalArgumentException("lookups need at least one key: " + n);
    }
    SplittableRandom random = new SplittableRandom(seed);
    int count = lookupCount(n);
    int[] order = new int[count];
    if (count == n) {
      for (int i = 0; i < n; i++) {
        order[i] = i;
      }
      for (int i = n - 1; i > 0; i--) {
        int j = random.nextInt(i + 1);
        int t = order[i];
        order[i] = order[j];
        order[j] = t;
      }
    } else {
      for (int i = 0; i < count; i++) {
        order[i] = random.nextInt(n);
      }
    }
    return order;
  }

  /**
   * {@code n} non-decreasing values whose gaps are uniform in {@code [0, 2 * meanGap)}: an
   * Elias-Fano input of about {@code 2 + log2(meanGap)} bits per element. The first value is
   * itself a gap.
   */
  public static long[] monotoneValues(int n, long meanGap, long seed) {
    if (meanGap < 1) {
      throw new IllegalArgumentException("meanGap must be >= 1: " + meanGap);
    }
    SplittableRandom random = new SplittableRandom(seed);
    long[] values = new long[n];
    long value = 0;
    for (int i = 0; i < n; i++) {
      value += random.nextLong(2 * meanGap);
      values[i] = value;
    }
    return values;
  }
}
