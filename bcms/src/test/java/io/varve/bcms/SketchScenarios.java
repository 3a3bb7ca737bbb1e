package io.varve.bcms;

import static io.varve.bcms.SketchChecks.assertMostlyExact;
import static io.varve.bcms.SketchChecks.assertNoUnderestimate;
import static io.varve.bcms.SketchChecks.feed;
import static io.varve.bcms.SketchChecks.overestimateSum;
import static io.varve.bcms.SketchChecks.random;
import static io.varve.bcms.SketchChecks.randomWeight;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.bcms.SketchChecks.BytesModel;
import io.varve.bcms.SketchChecks.LongModel;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Test bodies the plain and the buffered sketch share: each test class supplies its own sketches
 * (and seeds), so that what both must do is written once.
 */
final class SketchScenarios {
  private SketchScenarios() {}

  /** A new sketch holds nothing: every estimate and the total weight are 0, nothing is pending. */
  static void assertEmpty(AnySketch s) {
    assertEquals(0, s.totalWeight());
    assertEquals(0, s.pendingUpdates());
    for (long item = -50; item < 50; item++) {
      assertEquals(0, s.estimate(item));
    }
    assertEquals(0, s.estimate(new byte[0]));
    assertEquals(0, s.estimate("x".getBytes(UTF_8)));
  }

  /** The empty byte string is an item like any other. */
  static void assertEmptyItemCounts(FrequencySketch s) {
    s.update(new byte[0], 7);
    assertEquals(7, s.estimate(new byte[0]));
    assertEquals(7, s.totalWeight());
  }

  /**
   * A sketch far wider than its streams: nearly every item, {@code long} or byte string, is
   * estimated exactly, and nearly every absent item 0. Each stream goes to a new sketch of {@code
   * make}.
   */
  static void assertWideSketchMostlyExact(Random r, Supplier<AnySketch> make) {
    try (AnySketch s = make.get()) {
      LongModel model = new LongModel();
      long[] items = SketchChecks.randomLongItems(r, 5000, 20_000);
      long[] weights = new long[items.length];
      for (int i = 0; i < weights.length; i++) {
        weights[i] = randomWeight(r);
      }
      feed(s, model, items, weights);
      assertNoUnderestimate(s, model);
      assertMostlyExact(s, model, 0.99);
      // items never added are estimated 0, nearly always
      int zeros = 0;
      for (int i = 0; i < 5000; i++) {
        long absent = r.nextLong();
        if (!model.exact.containsKey(absent) && s.estimate(absent) == 0) {
          zeros++;
        }
      }
      assertTrue(zeros >= 4950, "only " + zeros + " of 5000 absent items estimated 0");
    }
    try (AnySketch s = make.get()) {
      BytesModel model = new BytesModel();
      List<byte[]> distinct = SketchChecks.distinctByteItems(r, 5000);
      for (int i = 0; i < 20_000; i++) {
        byte[] item = distinct.get(r.nextInt(distinct.size()));
        long w = randomWeight(r);
        s.update(item, w);
        model.add(item, w);
      }
      assertNoUnderestimate(s, model);
      assertMostlyExact(s, model, 0.99);
    }
  }

  /**
   * On one Zipf stream, at both counter widths, conservative update never estimates an item above
   * plain update and overestimates less in sum. {@code make} makes a sketch of the given parameters;
   * {@code name} labels the printed sums.
   */
  static void assertConservativeOverestimatesLess(long seed, SketchParameters base, String name,
      Function<SketchParameters, AnySketch> make) {
    Random r = random(seed);
    int distinct = 5000;
    int[] zipf = SketchChecks.zipfIndices(r, distinct, 1.1, 40_000);
    long[] values = new long[distinct];
    for (int i = 0; i < distinct; i++) {
      values[i] = r.nextLong();
    }
    for (int bits : new int[] {32, 64}) {
      SketchParameters p = base.withCounterBits(bits);
      try (AnySketch plain = make.apply(p); AnySketch conservative = make.apply(p.withConservativeUpdate(true))) {
        LongModel model = new LongModel();
        for (int i = 0; i < zipf.length; i++) {
          long w = i % 4 == 0 ? 1 + r.nextInt(5) : 1;
          plain.update(values[zipf[i]], w);
          conservative.update(values[zipf[i]], w);
          model.add(values[zipf[i]], w);
        }
        assertNoUnderestimate(plain, model);
        assertNoUnderestimate(conservative, model);
        for (Map.Entry<Long, Long> e : model.exact.entrySet()) {
          assertTrue(conservative.estimate(e.getKey()) <= plain.estimate(e.getKey()),
              "conservative estimate above plain for " + e.getKey());
        }
        long plainOver = overestimateSum(plain, model);
        long conservativeOver = overestimateSum(conservative, model);
        System.out.println(name + ", " + bits + "-bit: overestimate sum plain " + plainOver + ", conservative "
            + conservativeOver);
        assertTrue(conservativeOver < plainOver,
            "conservative " + conservativeOver + " not below plain " + plainOver);
      }
    }
  }

  /** Brings item 1 to 3 below the counter maximum {@code max}, in steps, each checked. */
  static void approachMax(FrequencySketch s, long max) {
    s.update(1L, max - 10);
    assertEquals(max - 10, s.estimate(1L));
    s.update(1L, 7);
    assertEquals(max - 3, s.estimate(1L));
  }

  /**
   * After an item's counters reached {@code max}: a weight past any maximum leaves them there;
   * {@code moderateWeights} (of item 2, summing past 2^32 - 1) and one weight past the maximum (item
   * 3) saturate too, and the total weight stops at {@code Long.MAX_VALUE}.
   */
  static void assertSaturatesPastMax(FrequencySketch s, long max, long... moderateWeights) {
    s.update(1L, Long.MAX_VALUE);
    assertEquals(max, s.estimate(1L));
    long sum = 0;
    for (long w : moderateWeights) {
      s.update(2L, w);
      sum += w;
    }
    assertEquals(Math.min(sum, max), s.estimate(2L));
    // a single weight past the counter maximum
    s.update(3L, Long.MAX_VALUE);
    assertEquals(max, s.estimate(3L));
    // the total weight saturates at Long.MAX_VALUE
    assertEquals(Long.MAX_VALUE, s.totalWeight());
    s.update(4L, 5);
    assertEquals(Long.MAX_VALUE, s.totalWeight());
  }

  /** A negative weight is rejected and changes nothing, pending updates included. */
  static void assertNegativeWeightRejected(AnySketch s) {
    s.update(5L, 3);
    s.update("x".getBytes(UTF_8), 2);
    long pending = s.pendingUpdates();
    assertThrows(IllegalArgumentException.class, () -> s.update(5L, -1));
    assertThrows(IllegalArgumentException.class, () -> s.update(5L, Long.MIN_VALUE));
    assertThrows(IllegalArgumentException.class, () -> s.update("x".getBytes(UTF_8), -7));
    assertEquals(pending, s.pendingUpdates());
    assertEquals(5, s.totalWeight());
    assertEquals(3, s.estimate(5L));
    assertEquals(2, s.estimate("x".getBytes(UTF_8)));
  }

  /** Two weighted streams of long items, {@code a} and {@code b}, and the exact counts of both. */
  static final class TwoStreams {
    final long[] a;
    final long[] wa;
    final long[] b;
    final long[] wb;
    final LongModel union = new LongModel();

    private TwoStreams(Random r) {
      a = SketchChecks.randomLongItems(r, 1500, 6000);
      b = SketchChecks.randomLongItems(r, 1500, 6000);
      wa = new long[a.length];
      wb = new long[b.length];
      for (int i = 0; i < a.length; i++) {
        wa[i] = randomWeight(r);
        wb[i] = randomWeight(r);
      }
    }
  }

  /**
   * {@code merge} merges {@code right}, fed stream b, into {@code left}, fed stream a: the result
   * never underestimates the union, and without conservative update (whose result depends on the
   * order of updates) estimates exactly as {@code concatenated}, a sketch fed a then b. The merged-in
   * sketch keeps its counts. Returns the streams, whose union model counts what {@code left} holds.
   */
  static TwoStreams assertMergeEqualsConcatenation(Random r, AnySketch left, AnySketch right,
      AnySketch concatenated, Runnable merge) {
    TwoStreams streams = new TwoStreams(r);
    feed(left, streams.union, streams.a, streams.wa);
    feed(right, streams.union, streams.b, streams.wb);
    feed(concatenated, new LongModel(), streams.a, streams.wa);
    feed(concatenated, new LongModel(), streams.b, streams.wb);
    merge.run();
    assertNoUnderestimate(left, streams.union);
    if (!left.parameters().conservativeUpdate()) {
      // adding counters commutes with adding updates (saturation included)
      for (long item : streams.union.exact.keySet()) {
        assertEquals(concatenated.estimate(item), left.estimate(item));
      }
      for (int i = 0; i < 1000; i++) {
        long absent = r.nextLong();
        assertEquals(concatenated.estimate(absent), left.estimate(absent));
      }
    }
    // the merged-in sketch is unchanged
    LongModel onlyB = new LongModel();
    for (int i = 0; i < streams.b.length; i++) {
      onlyB.add(streams.b[i], streams.wb[i]);
    }
    assertNoUnderestimate(right, onlyB);
    return streams;
  }

  /** Parameters that differ from {@code p} in one way that makes sketches unmergeable. */
  static List<SketchParameters> unmergeable(SketchParameters p) {
    return List.of(p.withSeed(p.seed() + 1),
        SketchParameters.ofDimensions(p.width() + 1, p.depth()).withSeed(p.seed()).withPageSize(p.pageSize()),
        SketchParameters.ofDimensions(p.width(), p.depth() + 1).withSeed(p.seed()).withPageSize(p.pageSize()),
        p.withCounterBits(32), p.withConservativeUpdate(true));
  }

  /**
   * Merging refuses a sketch of each of {@code others}, made by {@code make} (either way round), and
   * a sketch itself, changing nothing; then merges {@code b} into {@code a}. {@code a} and {@code b}
   * are empty sketches of equal parameters (64-bit, plain update); {@code merge} merges its second
   * argument into its first.
   */
  static <S extends FrequencySketch> void assertMergeRejectsOthersAndItself(S a, S b, List<SketchParameters> others,
      Function<SketchParameters, S> make, BiConsumer<S, S> merge) {
    a.update(1L);
    b.update(2L);
    for (SketchParameters other : others) {
      try (S c = make.apply(other)) {
        c.update(3L);
        assertThrows(IllegalArgumentException.class, () -> merge.accept(a, c), other.toString());
        assertThrows(IllegalArgumentException.class, () -> merge.accept(c, a), other.toString());
        assertEquals(1, c.totalWeight());
      }
    }
    assertThrows(IllegalArgumentException.class, () -> merge.accept(a, a));
    assertThrows(IllegalArgumentException.class, () -> merge.accept(b, b));
    assertEquals(1, a.totalWeight());
    assertEquals(1, a.estimate(1L));
    assertEquals(0, a.estimate(3L));
    merge.accept(a, b);
    assertEquals(2, a.totalWeight());
    assertEquals(1, a.estimate(2L));
  }

  /** Every call of a closed sketch that counts or estimates is an illegal state. */
  static void assertEveryCallIsAnIllegalState(FrequencySketch s) {
    assertThrows(IllegalStateException.class, () -> s.update(1L));
    assertThrows(IllegalStateException.class, () -> s.update(1L, 2));
    assertThrows(IllegalStateException.class, () -> s.update(new byte[] {1}));
    assertThrows(IllegalStateException.class, () -> s.update(new byte[] {1}, 2));
    assertThrows(IllegalStateException.class, () -> s.estimate(1L));
    assertThrows(IllegalStateException.class, () -> s.estimate(new byte[] {1}));
    assertThrows(IllegalStateException.class, s::flush);
    assertThrows(IllegalStateException.class, s::totalWeight);
  }
}
