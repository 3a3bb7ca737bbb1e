package io.varve.core.hash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.core.blocked.BlockedIndexParameters;
import io.varve.core.blocked.CrowdedHashesException;
import io.varve.core.ect.EctParameters;
import io.varve.core.index.IndexParameters;
import io.varve.core.index.RankIndex;
import io.varve.core.index.RankIndexBuilder;
import java.math.BigInteger;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Hash sets that cover only part of the hash space (a shard routed by the top bits of the store's
 * own hash, a narrow range anywhere, a single hash) against both index kinds, through the range
 * map a store applies; checked against sorted {@code long[]} references and {@link BigInteger}
 * arithmetic.
 */
class HashRangeTest {
  private static final BigInteger TWO_128 = BigInteger.ONE.shiftLeft(128);
  private static final IndexParameters[] KINDS = {BlockedIndexParameters.DEFAULT, new EctParameters(64, 64, 3)};

  private static BigInteger value(long hi, long lo) {
    return new BigInteger(Long.toUnsignedString(hi)).shiftLeft(64).or(new BigInteger(Long.toUnsignedString(lo)));
  }

  /** {@code n} distinct sorted hashes in {@code [min, min + span]}, min and max included when n >= 2. */
  private static long[][] hashesIn(BigInteger min, BigInteger span, int wanted, SplittableRandom random) {
    int n = (int) Math.min(wanted, span.add(BigInteger.ONE).min(BigInteger.valueOf(wanted)).longValueExact());
    BigInteger[] values = new BigInteger[n];
    java.util.TreeSet<BigInteger> set = new java.util.TreeSet<>();
    if (n >= 1) {
      set.add(min);
    }
    if (n >= 2) {
      set.add(min.add(span));
    }
    while (set.size() < n) {
      BigInteger offset = new BigInteger(span.bitLength() + 8, new java.util.Random(random.nextLong())).mod(span.add(BigInteger.ONE));
      set.add(min.add(offset));
    }
    set.toArray(values);
    long[][] hashes = new long[2][n];
    for (int i = 0; i < n; i++) {
      hashes[0][i] = values[i].shiftRight(64).longValue();
      hashes[1][i] = values[i].longValue();
    }
    return hashes;
  }

  private static HashRange rangeOf(long[][] hashes) {
    HashRange.Tracker tracker = new HashRange.Tracker();
    for (int i = hashes[0].length - 1; i >= 0; i--) { // any order
      tracker.add(hashes[0][i], hashes[1][i]);
    }
    return tracker.range();
  }

  @Test
  void theMapKeepsOrderAndDistinctnessAndSpreadsTheRange() {
    long seed = 0x4A56EL;
    System.out.println("HashRangeTest map seed " + Long.toHexString(seed));
    SplittableRandom random = new SplittableRandom(seed);
    for (int trial = 0; trial < 2_000; trial++) {
      int spanBits = random.nextInt(129);
      BigInteger span = spanBits == 0 ? BigInteger.ZERO : new BigInteger(spanBits, new java.util.Random(random.nextLong()));
      BigInteger min = new BigInteger(128, new java.util.Random(random.nextLong())).mod(TWO_128.subtract(span));
      long[][] hashes = hashesIn(min, span, 2 + random.nextInt(30), random);
      HashRange range = rangeOf(hashes);
      int shift = range.shift();
      BigInteger trueSpan = value(range.maxHi(), range.maxLo()).subtract(value(range.minHi(), range.minLo()));
      assertEquals(Math.min(127, 128 - trueSpan.bitLength()), shift, "shift of " + range);
      BigInteger previous = null;
      for (int i = 0; i < hashes[0].length; i++) {
        long hi = hashes[0][i];
        long lo = hashes[1][i];
        assertTrue(range.contains(hi, lo));
        BigInteger mapped = value(range.mapHi(hi, lo), range.mapLo(hi, lo));
        BigInteger expected = value(hi, lo).subtract(value(range.minHi(), range.minLo())).shiftLeft(shift).mod(TWO_128);
        assertEquals(expected, mapped, "map of hash " + i + " in " + range);
        assertTrue(previous == null || previous.compareTo(mapped) < 0, "order kept at " + i);
        previous = mapped;
      }
      if (trueSpan.signum() > 0) {
        assertTrue(previous.testBit(127), "the maximum maps to the upper half: " + range);
      }
      // Just outside the range, on both sides.
      BigInteger below = value(range.minHi(), range.minLo()).subtract(BigInteger.ONE);
      BigInteger above = value(range.maxHi(), range.maxLo()).add(BigInteger.ONE);
      if (below.signum() >= 0) {
        assertFalse(range.contains(below.shiftRight(64).longValue(), below.longValue()), "below " + range);
      }
      if (above.compareTo(TWO_128) < 0) {
        assertFalse(range.contains(above.shiftRight(64).longValue(), above.longValue()), "above " + range);
      }
    }
  }

  /**
   * Shards routed by the top k bits of the hash (k = 1 to 60), narrow ranges anywhere, 0, 1 and 2
   * hashes and sizes around a block: every member ranks at its place through the map, every hash
   * outside the range is absent, for both index kinds.
   */
  @Test
  void skewedHashSetsBuildAndRankExactly() {
    long seed = 0x5C3EDL;
    System.out.println("HashRangeTest skewed seed " + Long.toHexString(seed));
    SplittableRandom random = new SplittableRandom(seed);
    int[] sizes = {0, 1, 2, 299, 300, 301, 5_000, 80_000};
    for (int trial = 0; trial < 48; trial++) {
      int n = sizes[trial % sizes.length];
      BigInteger min;
      BigInteger span;
      String shape;
      if (trial % 3 == 0) {
        int k = 1 + random.nextInt(60);
        BigInteger prefix = BigInteger.valueOf(random.nextLong() >>> (64 - k));
        min = prefix.shiftLeft(128 - k);
        span = BigInteger.ONE.shiftLeft(128 - k).subtract(BigInteger.ONE);
        shape = "shard of " + k + " prefix bits";
      } else {
        int bits = 40 + random.nextInt(80);
        span = BigInteger.ONE.shiftLeft(bits).subtract(BigInteger.ONE);
        min = new BigInteger(128, new java.util.Random(random.nextLong())).mod(TWO_128.subtract(span));
        shape = "range of 2^" + bits + " anywhere";
      }
      long[][] hashes = hashesIn(min, span, n, random);
      HashRange range = rangeOf(hashes);
      for (IndexParameters parameters : KINDS) {
        String label = shape + ", n = " + n + ", " + parameters;
        RankIndexBuilder builder = range.adapt(parameters.builder(n));
        for (int i = 0; i < n; i++) {
          builder.add(hashes[0][i], hashes[1][i]);
        }
        RankIndex index = builder.finish();
        for (int i = 0; i < n; i++) {
          assertEquals(i, range.rank(index, hashes[0][i], hashes[1][i]), label + ": rank of member " + i);
        }
        if (n > 0 && !range.isFull()) {
          BigInteger above = value(range.maxHi(), range.maxLo()).add(BigInteger.ONE);
          if (above.compareTo(TWO_128) < 0) {
            assertEquals(-1, range.rank(index, above.shiftRight(64).longValue(), above.longValue()), label + ": above the range");
          }
        }
      }
    }
  }

  /** Without the map a routed shard crowds the blocked index; with it the same hashes build. */
  @Test
  void theShardThatFailedBeforeBuildsThroughTheMap() {
    SplittableRandom random = new SplittableRandom(0xF00DL);
    int n = 70_000;
    long[][] hashes = hashesIn(BigInteger.valueOf(0x5A).shiftLeft(120), BigInteger.ONE.shiftLeft(120).subtract(BigInteger.ONE), n, random);
    RankIndexBuilder unmapped = BlockedIndexParameters.DEFAULT.builder(n);
    assertThrows(CrowdedHashesException.class, () -> {
      for (int i = 0; i < n; i++) {
        unmapped.add(hashes[0][i], hashes[1][i]);
      }
      unmapped.finish();
    });
    HashRange range = rangeOf(hashes);
    RankIndexBuilder mapped = range.adapt(BlockedIndexParameters.DEFAULT.builder(n));
    for (int i = 0; i < n; i++) {
      mapped.add(hashes[0][i], hashes[1][i]);
    }
    RankIndex index = mapped.finish();
    for (int i = 0; i < n; i += 7) {
      assertEquals(i, range.rank(index, hashes[0][i], hashes[1][i]));
    }
  }

  /**
   * Hashes crowded at both ends of the space span all of it: no map spreads them, and the blocked
   * index says so with its own exception (which the store builder turns into advice).
   */
  @Test
  void hashesCrowdedAtBothEndsGetAClearError() {
    SplittableRandom random = new SplittableRandom(0xB07EL);
    int half = 70_000;
    long[][] low = hashesIn(BigInteger.ZERO, BigInteger.ONE.shiftLeft(100), half, random);
    long[][] high = hashesIn(TWO_128.subtract(BigInteger.ONE.shiftLeft(100)), BigInteger.ONE.shiftLeft(100).subtract(BigInteger.ONE), half, random);
    long[] hi = concat(low[0], high[0]);
    long[] lo = concat(low[1], high[1]);
    HashRange range = rangeOf(new long[][] {hi, lo});
    RankIndexBuilder builder = range.adapt(BlockedIndexParameters.DEFAULT.builder(hi.length));
    CrowdedHashesException e =
        assertThrows(
            CrowdedHashesException.class,
            () -> {
              for (int i = 0; i < hi.length; i++) {
                builder.add(hi[i], lo[i]);
              }
              builder.finish();
            });
    assertTrue(e.getMessage().contains("crowd"), e.getMessage());
    assertFalse(e.getMessage().contains("are the keys hashed"), e.getMessage());
  }

  @Test
  void rangesCombineAndRejectNonsense() {
    HashRange a = HashRange.of(0, 5, 0, 9);
    HashRange b = HashRange.of(1, 0, 2, 0);
    HashRange both = a.union(b);
    assertEquals(HashRange.of(0, 5, 2, 0), both);
    assertTrue(HashRange.of(0, 0, -1, -1).isFull());
    assertTrue(HashRange.FULL.contains(-1, -1) && HashRange.FULL.contains(0, 0));
    assertEquals(7, HashRange.FULL.mapLo(3, 7));
    assertThrows(IllegalArgumentException.class, () -> HashRange.of(0, 9, 0, 5));
    assertEquals(HashRange.FULL, new HashRange.Tracker().range());
    HashRange.Tracker spread = new HashRange.Tracker();
    spread.add(0x0100_0000_0000_0000L, 7);
    spread.add(0xF000_0000_0000_0000L, 9);
    assertEquals(HashRange.FULL, spread.mapping(), "hashes over more than half the space are not mapped");
    HashRange.Tracker half = new HashRange.Tracker();
    half.add(0x8000_0000_0000_0000L, 0);
    half.add(-1, -1);
    assertEquals(1, half.mapping().shift(), "the upper half is mapped");
    HashRange single = HashRange.of(4, 4, 4, 4);
    assertEquals(127, single.shift());
    assertEquals(0, single.mapHi(4, 4));
    assertFalse(single.contains(4, 5));
    RankIndexBuilder builder = single.adapt(BlockedIndexParameters.DEFAULT.builder(1));
    assertThrows(IllegalArgumentException.class, () -> builder.add(4, 3), "a hash outside the range");
    assertTrue(Arrays.asList(HashRange.FULL.toString(), single.toString()).toString().contains("full"));
  }

  private static long[] concat(long[] a, long[] b) {
    long[] c = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, c, a.length, b.length);
    return c;
  }
}
