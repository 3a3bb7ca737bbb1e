package io.varve.builder;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.varve.core.testing.TestRecords;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Checks {@link HashOrderSort} against a stable reference sort on many hash distributions. */
class HashOrderSortTest {
  private static final long SEED = 0x4A5B_6C7DL;
  private static final int[] SIZES = {0, 1, 2, 3, 33, 1000, 100_000};

  enum Shape {
    /** Uniform random hi and lo. */
    UNIFORM,
    /** hi and lo from a handful of values: long runs of equal hashes. */
    FEW_DISTINCT,
    /** All hashes equal. */
    ALL_EQUAL,
    /** hi in a tiny range (all top bits equal): one huge bucket, the merge sort path. */
    TINY_HI_RANGE,
    /** Like TINY_HI_RANGE but near 2^64 (top bit set: unsigned comparison matters). */
    TINY_HI_RANGE_HIGH,
    /** hi constant, lo from a tiny range with repeats, including negative lo. */
    SAME_HI_FEW_LO,
    /** Half the hashes uniform, half in one bucket, many repeats. */
    MIXED_SKEW,
    /** Already sorted input. */
    SORTED,
    /** Reverse-sorted input. */
    REVERSED
  }

  static List<Arguments> cases() {
    List<Arguments> cases = new ArrayList<>();
    for (Shape shape : Shape.values()) {
      for (int n : SIZES) {
        cases.add(Arguments.of(shape, n));
      }
    }
    return cases;
  }

  private static long[][] generate(Shape shape, int n, SplittableRandom random) {
    long[] hi = new long[n];
    long[] lo = new long[n];
    for (int i = 0; i < n; i++) {
      switch (shape) {
        case UNIFORM, SORTED, REVERSED -> {
          hi[i] = random.nextLong();
          lo[i] = random.nextLong();
        }
        case FEW_DISTINCT -> {
          hi[i] = new long[] {0, -1, Long.MIN_VALUE, Long.MAX_VALUE, 12345}[random.nextInt(5)];
          lo[i] = new long[] {0, -1, Long.MIN_VALUE, 7}[random.nextInt(4)];
        }
        case ALL_EQUAL -> {
          hi[i] = 0x0123_4567_89AB_CDEFL;
          lo[i] = -42;
        }
        case TINY_HI_RANGE -> {
          hi[i] = 0x1234_0000_0000_0000L + random.nextInt(50);
          lo[i] = random.nextInt(4) == 0 ? 0 : random.nextLong();
        }
        case TINY_HI_RANGE_HIGH -> {
          hi[i] = -1L - random.nextInt(50);
          lo[i] = random.nextInt(3) == 0 ? -1 : random.nextLong();
        }
        case SAME_HI_FEW_LO -> {
          hi[i] = Long.MIN_VALUE;
          lo[i] = random.nextInt(64) - 32;
        }
        case MIXED_SKEW -> {
          if (random.nextBoolean()) {
            hi[i] = random.nextLong();
            lo[i] = random.nextLong();
          } else {
            hi[i] = 0x7FFF_FFFF_0000_0000L | random.nextInt(8);
            lo[i] = random.nextInt(8);
          }
        }
      }
    }
    if (shape == Shape.SORTED || shape == Shape.REVERSED) {
      Integer[] order = referenceOrder(hi, lo, n);
      if (shape == Shape.REVERSED) {
        java.util.Collections.reverse(Arrays.asList(order));
      }
      long[] h = new long[n];
      long[] l = new long[n];
      for (int i = 0; i < n; i++) {
        h[i] = hi[order[i]];
        l[i] = lo[order[i]];
      }
      hi = h;
      lo = l;
    }
    return new long[][] {hi, lo};
  }

  /** Indexes of the input in hash order (unsigned, hi first), stable. */
  private static Integer[] referenceOrder(long[] hi, long[] lo, int n) {
    Integer[] order = new Integer[n];
    for (int i = 0; i < n; i++) {
      order[i] = i;
    }
    Comparator<Integer> byHash =
        Comparator.<Integer, Long>comparing(i -> hi[i], Long::compareUnsigned).thenComparing(i -> lo[i], Long::compareUnsigned);
    Arrays.sort(order, byHash); // a stable merge sort for objects
    return order;
  }

  @ParameterizedTest(name = "{0} n={1}")
  @MethodSource("cases")
  void sortsLikeAStableReference(Shape shape, int n) {
    long seed = SEED ^ (31L * n + shape.ordinal());
    SplittableRandom random = TestRecords.seeded("HashOrderSortTest " + shape + " n=" + n, seed);
    long[][] generated = generate(shape, n, random);
    // Arrays longer than n: the sort must only look at and produce [0, n).
    int slack = 5;
    long[] hi = Arrays.copyOf(generated[0], n + slack);
    long[] lo = Arrays.copyOf(generated[1], n + slack);
    long[] payload = new long[n + slack];
    for (int i = 0; i < n + slack; i++) {
      payload[i] = i < n ? i : -1000 - i;
      if (i >= n) {
        hi[i] = 0; // would sort first if looked at
        lo[i] = 0;
      }
    }
    long[] hiScratch = new long[n + slack];
    long[] loScratch = new long[n + slack];
    long[] payloadScratch = new long[n + slack];
    Arrays.fill(payloadScratch, Long.MIN_VALUE);

    Integer[] expected = referenceOrder(generated[0], generated[1], n);
    long[] inputHi = generated[0].clone();
    long[] inputLo = generated[1].clone();

    boolean inScratch = HashOrderSort.sort(hi, lo, payload, hiScratch, loScratch, payloadScratch, n);
    if (n < 2) {
      assertFalse(inScratch, "nothing to sort for n < 2");
    }
    long[] outHi = inScratch ? hiScratch : hi;
    long[] outLo = inScratch ? loScratch : lo;
    long[] outPayload = inScratch ? payloadScratch : payload;
    long[] expectedPayload = new long[n];
    long[] expectedHi = new long[n];
    long[] expectedLo = new long[n];
    for (int i = 0; i < n; i++) {
      expectedPayload[i] = expected[i];
      expectedHi[i] = inputHi[expected[i]];
      expectedLo[i] = inputLo[expected[i]];
    }
    // Payloads equal to the stable reference: sorted and stable (equal hashes keep input order).
    assertArrayEquals(expectedPayload, Arrays.copyOf(outPayload, n), "payload order (stability)");
    assertArrayEquals(expectedHi, Arrays.copyOf(outHi, n), "hi order");
    assertArrayEquals(expectedLo, Arrays.copyOf(outLo, n), "lo order");
    // Each payload still travels with its own hash.
    for (int i = 0; i < n; i++) {
      int origin = (int) outPayload[i];
      assertEquals(inputHi[origin], outHi[i]);
      assertEquals(inputLo[origin], outLo[i]);
    }
    // Nothing beyond n was touched in the output arrays' tails (inputs keep their tails too).
    for (int i = n; i < n + slack; i++) {
      assertEquals(-1000 - i, payload[i], "tail of payload untouched");
    }
    if (inScratch) {
      for (int i = n; i < n + slack; i++) {
        assertEquals(Long.MIN_VALUE, payloadScratch[i], "tail of scratch untouched");
      }
    }
  }

  static List<Arguments> prefixCases() {
    List<Arguments> cases = new ArrayList<>();
    for (int prefix : new int[] {0, 1, 8, 16, 40, 48, 56, 60, 63, 64, 72, 120, 128}) {
      for (int n : new int[] {2, 33, 1000, 50_000}) {
        cases.add(Arguments.of(prefix, n));
      }
    }
    return cases;
  }

  /** Hashes sharing their top {@code prefix} bits, sorted with that knowledge (one partition's records). */
  @ParameterizedTest(name = "prefix={0} n={1}")
  @MethodSource("prefixCases")
  void sortsRecordsSharingAPrefix(int prefix, int n) {
    long seed = SEED ^ (1000L * prefix + n);
    SplittableRandom random = TestRecords.seeded("HashOrderSortTest prefix=" + prefix + " n=" + n, seed);
    long commonHi = random.nextLong();
    long commonLo = random.nextLong();
    long hiMask = prefix == 0 ? 0 : prefix >= 64 ? -1L : -1L << (64 - prefix); // shared bits of hi
    long loMask = prefix <= 64 ? 0 : prefix >= 128 ? -1L : -1L << (128 - prefix);
    long[] hi = new long[n];
    long[] lo = new long[n];
    for (int i = 0; i < n; i++) {
      long h = random.nextInt(4) == 0 && i > 0 ? hi[random.nextInt(i)] : random.nextLong();
      long l = random.nextInt(4) == 0 && i > 0 ? lo[random.nextInt(i)] : random.nextLong();
      if (random.nextInt(8) == 0) {
        h &= 0xFF; // small variable part: skew within the partition
      }
      hi[i] = (commonHi & hiMask) | (h & ~hiMask);
      lo[i] = (commonLo & loMask) | (l & ~loMask);
    }
    long[] payload = new long[n];
    for (int i = 0; i < n; i++) {
      payload[i] = i;
    }
    Integer[] expected = referenceOrder(hi, lo, n);
    long[] inputHi = hi.clone();
    long[] inputLo = lo.clone();
    long[] hs = new long[n];
    long[] ls = new long[n];
    long[] ps = new long[n];
    boolean inScratch = HashOrderSort.sort(hi, lo, payload, hs, ls, ps, n, prefix);
    long[] outPayload = inScratch ? ps : payload;
    long[] outHi = inScratch ? hs : hi;
    long[] outLo = inScratch ? ls : lo;
    for (int i = 0; i < n; i++) {
      assertEquals((long) expected[i], outPayload[i], "payload at " + i);
      assertEquals(inputHi[expected[i]], outHi[i]);
      assertEquals(inputLo[expected[i]], outLo[i]);
    }
  }

  @Test
  void lessIsUnsignedHiFirst() {
    assertEquals(true, HashOrderSort.less(1, -1, 2, 0));
    assertEquals(true, HashOrderSort.less(Long.MAX_VALUE, 0, Long.MIN_VALUE, 0));
    assertEquals(true, HashOrderSort.less(-2, 5, -1, 0));
    assertEquals(true, HashOrderSort.less(3, Long.MAX_VALUE, 3, Long.MIN_VALUE));
    assertEquals(false, HashOrderSort.less(3, 3, 3, 3));
    assertEquals(false, HashOrderSort.less(-1, 0, 0, -1));
  }
}
