package io.varve.bcms;

import static io.varve.bcms.SketchChecks.assertMostlyExact;
import static io.varve.bcms.SketchChecks.assertNoUnderestimate;
import static io.varve.bcms.SketchChecks.budgetForCapacity;
import static io.varve.bcms.SketchChecks.feed;
import static io.varve.bcms.SketchChecks.overestimateSum;
import static io.varve.bcms.SketchChecks.random;
import static io.varve.bcms.SketchChecks.randomWeight;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.bcms.SketchChecks.BytesModel;
import io.varve.bcms.SketchChecks.LongModel;
import io.varve.core.format.CorruptStoreException;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import net.openhft.hashing.LongHashFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The Buffered Count-Min Sketch against exact counts and against itself unbuffered (RAM budget 0):
 * buffering only delays updates, so a buffered sketch must answer exactly like an unbuffered one fed
 * the same calls, conservative update included (a page's buffer is applied in update order).
 */
class BufferedCountMinSketchTest {
  @TempDir Path dir;

  private int files;

  private Path newPath() {
    return dir.resolve("sketch-" + (files++) + ".bcms");
  }

  /** A buffered sketch whose buffers hold {@code capacity} updates per page (0: unbuffered). */
  private BufferedCountMinSketch make(SketchParameters p, int capacity) {
    BufferedCountMinSketch s = BufferedCountMinSketch.create(newPath(), p,
        capacity == 0 ? 0 : budgetForCapacity(p, capacity));
    assertEquals(capacity, s.bufferCapacityPerPage(), "buffer capacity from the RAM budget");
    return s;
  }

  static Stream<Arguments> capacitiesBitsConservative() {
    List<Arguments> out = new ArrayList<>();
    for (int capacity : new int[] {0, 1, 4, 64}) {
      for (int bits : new int[] {32, 64}) {
        for (boolean conservative : new boolean[] {false, true}) {
          out.add(Arguments.of(capacity, bits, conservative));
        }
      }
    }
    return out.stream();
  }

  // ---------------------------------------------------------------- properties

  @ParameterizedTest
  @MethodSource("capacitiesBitsConservative")
  void longStreamsAreNeverUnderestimatedAndBufferingChangesNoEstimate(
      int capacity, int bits, boolean conservative) {
    long seed = 11_000 + capacity * 10L + bits + (conservative ? 1 : 0);
    Random r = random(seed);
    SketchParameters p = SketchParameters.ofDimensions(2000, 4).withCounterBits(bits)
        .withConservativeUpdate(conservative).withSeed(seed).withPageSize(512);
    for (boolean unitWeights : new boolean[] {true, false}) {
      long[] items = SketchChecks.randomLongItems(r, 3000, 20_000);
      try (BufferedCountMinSketch buffered = make(p, capacity); BufferedCountMinSketch unbuffered = make(p, 0)) {
        AnySketch s = AnySketch.of(buffered);
        LongModel model = new LongModel();
        long maxPending = 0;
        for (int i = 0; i < items.length; i++) {
          long w = unitWeights ? 1 : randomWeight(r);
          buffered.update(items[i], w);
          unbuffered.update(items[i], w);
          model.add(items[i], w);
          maxPending = Math.max(maxPending, buffered.pendingUpdates());
          if (r.nextInt(8) == 0) {
            // an estimate counts pending updates: the item just updated, and any other
            long probe = r.nextBoolean() ? items[i] : items[r.nextInt(i + 1)];
            long estimate = buffered.estimate(probe);
            assertTrue(estimate >= Math.min(model.count(probe), p.counterMax()),
                "step " + i + ": estimate " + estimate + " below true count " + model.count(probe));
            assertEquals(unbuffered.estimate(probe), estimate, "step " + i);
          }
        }
        assertNoUnderestimate(s, model);
        for (long item : model.exact.keySet()) {
          assertEquals(unbuffered.estimate(item), buffered.estimate(item));
        }
        assertEquals(0, unbuffered.pendingUpdates());
        if (capacity >= 2) {
          assertTrue(maxPending > 0, "nothing was ever buffered");
        }
        assertTrue(buffered.pendingUpdates() <= (long) capacity * buffered.pageCount());
      }
    }
  }

  @ParameterizedTest
  @MethodSource("capacitiesBitsConservative")
  void byteStreamsAreNeverUnderestimated(int capacity, int bits, boolean conservative) {
    long seed = 12_000 + capacity * 10L + bits + (conservative ? 1 : 0);
    Random r = random(seed);
    SketchParameters p = SketchParameters.ofDimensions(1500, 3).withCounterBits(bits)
        .withConservativeUpdate(conservative).withSeed(seed).withPageSize(512);
    List<byte[]> distinct = SketchChecks.distinctByteItems(r, 2000);
    try (BufferedCountMinSketch buffered = make(p, capacity); BufferedCountMinSketch unbuffered = make(p, 0)) {
      BytesModel model = new BytesModel();
      for (int i = 0; i < 15_000; i++) {
        byte[] item = distinct.get(r.nextInt(distinct.size()));
        long w = i % 2 == 0 ? 1 : randomWeight(r);
        buffered.update(item, w);
        unbuffered.update(item, w);
        model.add(item, w);
        if (i % 13 == 0) {
          assertEquals(unbuffered.estimate(item), buffered.estimate(item));
        }
      }
      assertNoUnderestimate(AnySketch.of(buffered), model);
      for (String key : model.exact.keySet()) {
        byte[] item = SketchChecks.bytesOf(key);
        assertEquals(unbuffered.estimate(item), buffered.estimate(item));
      }
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {0, 1, 4})
  void emptyAndOneItemStreams(int capacity) {
    SketchParameters p = SketchParameters.ofDimensions(100, 3).withPageSize(512);
    try (BufferedCountMinSketch s = make(p, capacity)) {
      assertEquals(0, s.totalWeight());
      assertEquals(0, s.pendingUpdates());
      for (long item = -50; item < 50; item++) {
        assertEquals(0, s.estimate(item));
      }
      assertEquals(0, s.estimate(new byte[0]));
    }
    try (BufferedCountMinSketch s = make(p, capacity)) {
      s.update(new byte[0], 7);
      assertEquals(7, s.estimate(new byte[0]));
      assertEquals(7, s.totalWeight());
    }
    try (BufferedCountMinSketch s = make(p, capacity)) {
      s.update(42L);
      s.update(42L, 0);
      assertEquals(capacity > 1 ? 1 : 0, s.pendingUpdates());
      assertEquals(1, s.estimate(42L));
      assertEquals(0, s.pendingUpdates());
      assertEquals(1, s.totalWeight());
    }
  }

  @ParameterizedTest
  @MethodSource("capacitiesBitsConservative")
  void wideSketchIsExactForAlmostAllItems(int capacity, int bits, boolean conservative) {
    long seed = 13_000 + capacity * 10L + bits + (conservative ? 1 : 0);
    Random r = random(seed);
    SketchParameters p = SketchParameters.ofDimensions(1 << 18, 4).withCounterBits(bits)
        .withConservativeUpdate(conservative).withSeed(seed);
    try (BufferedCountMinSketch b = make(p, capacity)) {
      AnySketch s = AnySketch.of(b);
      LongModel model = new LongModel();
      long[] items = SketchChecks.randomLongItems(r, 5000, 20_000);
      long[] weights = new long[items.length];
      for (int i = 0; i < weights.length; i++) {
        weights[i] = randomWeight(r);
      }
      feed(s, model, items, weights);
      assertNoUnderestimate(s, model);
      assertMostlyExact(s, model, 0.99);
      int zeros = 0;
      for (int i = 0; i < 5000; i++) {
        long absent = r.nextLong();
        if (!model.exact.containsKey(absent) && s.estimate(absent) == 0) {
          zeros++;
        }
      }
      assertTrue(zeros >= 4950, "only " + zeros + " of 5000 absent items estimated 0");
    }
    try (BufferedCountMinSketch b = make(p, capacity)) {
      AnySketch s = AnySketch.of(b);
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

  @ParameterizedTest
  @ValueSource(ints = {0, 1, 4, 64})
  void conservativeUpdateOverestimatesLessThanPlainUpdate(int capacity) {
    long seed = 14_000 + capacity;
    Random r = random(seed);
    int distinct = 5000;
    int[] zipf = SketchChecks.zipfIndices(r, distinct, 1.1, 40_000);
    long[] values = new long[distinct];
    for (int i = 0; i < distinct; i++) {
      values[i] = r.nextLong();
    }
    for (int bits : new int[] {32, 64}) {
      SketchParameters p = SketchParameters.ofDimensions(256, 3).withCounterBits(bits).withSeed(seed)
          .withPageSize(512);
      try (BufferedCountMinSketch pb = make(p, capacity);
          BufferedCountMinSketch cb = make(p.withConservativeUpdate(true), capacity)) {
        AnySketch plain = AnySketch.of(pb);
        AnySketch conservative = AnySketch.of(cb);
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
        System.out.println("capacity " + capacity + ", " + bits + "-bit: overestimate sum plain " + plainOver
            + ", conservative " + conservativeOver);
        assertTrue(conservativeOver < plainOver,
            "conservative " + conservativeOver + " not below plain " + plainOver);
      }
    }
  }

  // ---------------------------------------------------------------- saturation and weights

  @ParameterizedTest
  @MethodSource("capacitiesBitsConservative")
  void countersSaturateInsteadOfWrapping(int capacity, int bits, boolean conservative) {
    SketchParameters p = SketchParameters.ofDimensions(64, 3).withCounterBits(bits)
        .withConservativeUpdate(conservative).withPageSize(512);
    long max = bits == 32 ? 4_294_967_295L : Long.MAX_VALUE;
    try (BufferedCountMinSketch s = make(p, capacity)) {
      s.update(1L, max - 10);
      assertEquals(max - 10, s.estimate(1L));
      s.update(1L, 7);
      assertEquals(max - 3, s.estimate(1L));
      s.update(1L, 7);
      s.update(1L, 1);
      assertEquals(max, s.estimate(1L));
      s.update(1L, Long.MAX_VALUE);
      assertEquals(max, s.estimate(1L));
      // buffered weights (each at most 2^32 - 1) summing past 2^32 - 1, applied together
      for (int i = 0; i < 5; i++) {
        s.update(2L, 1L << 30);
      }
      s.update(2L, 0xFFFF_FFFFL);
      assertEquals(Math.min((5L << 30) + 0xFFFF_FFFFL, max), s.estimate(2L));
      s.update(3L, Long.MAX_VALUE);
      assertEquals(max, s.estimate(3L));
      assertEquals(Long.MAX_VALUE, s.totalWeight());
      s.update(4L, 5);
      assertEquals(Long.MAX_VALUE, s.totalWeight());
    }
    if (bits == 32) {
      Path path = newPath();
      try (BufferedCountMinSketch s = BufferedCountMinSketch.create(path, p,
          capacity == 0 ? 0 : budgetForCapacity(p, capacity))) {
        for (int i = 0; i < 3; i++) {
          s.update(9L, 0xFFFF_FFFFL); // buffered unless capacity 0
        }
        s.update(10L, 3L << 31); // past 2^32: applied directly
      }
      try (BufferedCountMinSketch s = BufferedCountMinSketch.open(path, 0)) {
        assertEquals(4_294_967_295L, s.estimate(9L));
        assertEquals(4_294_967_295L, s.estimate(10L));
        assertEquals(3 * 0xFFFF_FFFFL + (3L << 31), s.totalWeight());
      }
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {0, 1, 4})
  void negativeWeightIsRejectedAndChangesNothing(int capacity) throws IOException {
    SketchParameters p = SketchParameters.ofDimensions(64, 3).withPageSize(512);
    Path path = newPath();
    try (BufferedCountMinSketch s = BufferedCountMinSketch.create(path, p,
        capacity == 0 ? 0 : budgetForCapacity(p, capacity))) {
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
    byte[] before = Files.readAllBytes(path);
    try (BufferedCountMinSketch s = BufferedCountMinSketch.open(path, budgetForCapacity(p, 4))) {
      assertThrows(IllegalArgumentException.class, () -> s.update(5L, -1));
    }
    assertArrayEquals(before, Files.readAllBytes(path), "a rejected update changed the file");
    assertThrows(IllegalArgumentException.class, () -> BufferedCountMinSketch.create(newPath(), p, -1));
    assertThrows(IllegalArgumentException.class, () -> BufferedCountMinSketch.open(path, -1));
  }

  // ---------------------------------------------------------------- reopen

  @Test
  void reopenedSketchAnswersAsBefore() {
    long seed = 15_000;
    Random r = random(seed);
    for (boolean conservative : new boolean[] {false, true}) {
      for (int bits : new int[] {32, 64}) {
        Path path = newPath();
        SketchParameters p = SketchParameters.ofDimensions(997, 4).withCounterBits(bits)
            .withConservativeUpdate(conservative).withSeed(seed).withPageSize(1024);
        LongModel model = new LongModel();
        long[] items = SketchChecks.randomLongItems(r, 3000, 8000);
        long[] estimates = new long[items.length];
        try (BufferedCountMinSketch s = BufferedCountMinSketch.create(path, p, budgetForCapacity(p, 16))) {
          for (long item : items) {
            long w = randomWeight(r);
            s.update(item, w);
            model.add(item, w);
          }
          for (int i = 0; i < items.length; i++) {
            estimates[i] = s.estimate(items[i]);
          }
          for (int i = 0; i < 500; i++) {
            s.update(items[i], 1); // left pending for close to apply
            model.add(items[i], 1);
          }
          assertTrue(s.pendingUpdates() > 0);
        }
        try (BufferedCountMinSketch s = BufferedCountMinSketch.open(path, 0)) {
          for (int i = 0; i < items.length; i++) {
            estimates[i] = s.estimate(items[i]);
          }
          assertNoUnderestimate(AnySketch.of(s), model);
        }
        for (boolean verify : new boolean[] {true, false}) {
          for (long budget : new long[] {0, budgetForCapacity(p, 1), 1 << 20}) {
            try (BufferedCountMinSketch s = verify ? BufferedCountMinSketch.open(path, budget)
                : BufferedCountMinSketch.openUnverified(path, budget)) {
              assertEquals(p, s.parameters());
              assertEquals(path, s.path());
              assertEquals(model.total, s.totalWeight());
              for (int i = 0; i < items.length; i++) {
                assertEquals(estimates[i], s.estimate(items[i]));
              }
            }
          }
        }
        try (BufferedCountMinSketch s = BufferedCountMinSketch.open(path, budgetForCapacity(p, 3))) {
          for (int i = 0; i < 3000; i++) {
            long item = items[r.nextInt(items.length)];
            long w = randomWeight(r);
            s.update(item, w);
            model.add(item, w);
          }
          for (int i = 0; i < items.length; i++) {
            estimates[i] = s.estimate(items[i]);
          }
        }
        try (BufferedCountMinSketch s = BufferedCountMinSketch.open(path, budgetForCapacity(p, 3))) {
          assertNoUnderestimate(AnySketch.of(s), model);
          for (int i = 0; i < items.length; i++) {
            assertEquals(estimates[i], s.estimate(items[i]));
          }
        }
      }
    }
  }

  @Test
  void createOnAnExistingPathFailsAndLeavesTheFile() throws IOException {
    SketchParameters p = SketchParameters.ofDimensions(50, 2).withPageSize(512);
    Path path = newPath();
    try (BufferedCountMinSketch s = BufferedCountMinSketch.create(path, p, 1 << 16)) {
      s.update(3L);
    }
    byte[] before = Files.readAllBytes(path);
    assertThrows(IllegalStateException.class, () -> BufferedCountMinSketch.create(path, p, 1 << 16));
    assertThrows(IllegalStateException.class,
        () -> BufferedCountMinSketch.create(path, SketchParameters.ofDimensions(5000, 3), 0));
    assertArrayEquals(before, Files.readAllBytes(path));
    try (BufferedCountMinSketch s = BufferedCountMinSketch.open(path, 0)) {
      assertEquals(1, s.estimate(3L));
    }
  }

  @Test
  void openingAMissingFileIsAnIllegalArgument() {
    Path missing = dir.resolve("missing.bcms");
    assertThrows(IllegalArgumentException.class, () -> BufferedCountMinSketch.open(missing, 0));
    assertThrows(IllegalArgumentException.class, () -> BufferedCountMinSketch.openUnverified(missing, 1 << 20));
    assertFalse(Files.exists(missing));
  }

  @Test
  void openingAPlainSketchFileNamesTheOtherKind() {
    Path path = newPath();
    try (CountMinSketch s = CountMinSketch.create(path, SketchParameters.ofDimensions(100, 3))) {
      s.update(1L);
    }
    for (boolean verify : new boolean[] {true, false}) {
      CorruptStoreException e = assertThrows(CorruptStoreException.class,
          () -> (verify ? BufferedCountMinSketch.open(path, 0) : BufferedCountMinSketch.openUnverified(path, 0))
              .close());
      assertTrue(e.getMessage().contains("holds a CountMinSketch"), e.getMessage());
    }
  }

  // ---------------------------------------------------------------- merge

  @ParameterizedTest
  @MethodSource("capacitiesBitsConservative")
  void mergeEqualsTheSketchOfTheConcatenatedStream(int capacity, int bits, boolean conservative) {
    long seed = 16_000 + capacity * 10L + bits + (conservative ? 1 : 0);
    Random r = random(seed);
    SketchParameters p = SketchParameters.ofDimensions(500, 4).withCounterBits(bits)
        .withConservativeUpdate(conservative).withSeed(seed).withPageSize(512);
    long[] a = SketchChecks.randomLongItems(r, 1500, 6000);
    long[] b = SketchChecks.randomLongItems(r, 1500, 6000);
    long[] wa = new long[a.length];
    long[] wb = new long[b.length];
    for (int i = 0; i < a.length; i++) {
      wa[i] = randomWeight(r);
      wb[i] = randomWeight(r);
    }
    try (BufferedCountMinSketch left = make(p, capacity);
        BufferedCountMinSketch right = BufferedCountMinSketch.create(newPath(), p, budgetForCapacity(p, 7));
        BufferedCountMinSketch concatenated = make(p, capacity)) {
      LongModel union = new LongModel();
      feed(AnySketch.of(left), union, a, wa);
      feed(AnySketch.of(right), union, b, wb);
      feed(AnySketch.of(concatenated), new LongModel(), a, wa);
      feed(AnySketch.of(concatenated), new LongModel(), b, wb);
      assertTrue(right.pendingUpdates() > 0, "the merged-in sketch has buffered updates");
      left.merge(right);
      assertEquals(0, right.pendingUpdates());
      assertNoUnderestimate(AnySketch.of(left), union);
      if (!conservative) {
        for (long item : union.exact.keySet()) {
          assertEquals(concatenated.estimate(item), left.estimate(item));
        }
        for (int i = 0; i < 1000; i++) {
          long absent = r.nextLong();
          assertEquals(concatenated.estimate(absent), left.estimate(absent));
        }
      }
      LongModel onlyB = new LongModel();
      for (int i = 0; i < b.length; i++) {
        onlyB.add(b[i], wb[i]);
      }
      assertNoUnderestimate(AnySketch.of(right), onlyB);
      // updates after a merge go on counting
      left.update(a[0], 5);
      union.add(a[0], 5);
      assertNoUnderestimate(AnySketch.of(left), union);
    }
  }

  @Test
  void mergeSurvivesReopening() {
    long seed = 16_500;
    Random r = random(seed);
    SketchParameters p = SketchParameters.ofDimensions(300, 3).withSeed(seed).withPageSize(512);
    Path path = newPath();
    LongModel union = new LongModel();
    long[] items = SketchChecks.randomLongItems(r, 400, 2000);
    try (BufferedCountMinSketch x = BufferedCountMinSketch.create(path, p, budgetForCapacity(p, 5));
        BufferedCountMinSketch y = make(p, 5)) {
      for (int i = 0; i < items.length; i++) {
        (i % 2 == 0 ? x : y).update(items[i], 1 + i % 3);
        union.add(items[i], 1 + i % 3);
      }
      x.merge(y);
    }
    try (BufferedCountMinSketch x = BufferedCountMinSketch.open(path, 0)) {
      assertNoUnderestimate(AnySketch.of(x), union);
    }
  }

  @Test
  void mergeRejectsOtherParametersAndItself() {
    SketchParameters p = SketchParameters.ofDimensions(100, 3).withSeed(1).withPageSize(512);
    try (BufferedCountMinSketch a = make(p, 4); BufferedCountMinSketch b = make(p, 0)) {
      a.update(1L);
      b.update(2L);
      for (SketchParameters other : List.of(p.withSeed(2),
          SketchParameters.ofDimensions(101, 3).withSeed(1).withPageSize(512),
          SketchParameters.ofDimensions(100, 4).withSeed(1).withPageSize(512), p.withCounterBits(32),
          p.withConservativeUpdate(true), p.withPageSize(1024))) {
        try (BufferedCountMinSketch c = make(other, 0)) {
          c.update(3L);
          assertThrows(IllegalArgumentException.class, () -> a.merge(c), other.toString());
          assertThrows(IllegalArgumentException.class, () -> c.merge(a), other.toString());
          assertEquals(1, c.totalWeight());
        }
      }
      assertThrows(IllegalArgumentException.class, () -> a.merge(a));
      assertThrows(IllegalArgumentException.class, () -> b.merge(b));
      assertEquals(1, a.totalWeight());
      assertEquals(1, a.estimate(1L));
      assertEquals(0, a.estimate(3L));
      a.merge(b);
      assertEquals(2, a.totalWeight());
      assertEquals(1, a.estimate(2L));
    }
  }

  // ---------------------------------------------------------------- close

  @ParameterizedTest
  @ValueSource(ints = {0, 4})
  void everyCallAfterCloseIsAnIllegalState(int capacity) {
    SketchParameters p = SketchParameters.ofDimensions(100, 3).withPageSize(512);
    BufferedCountMinSketch s = make(p, capacity);
    s.update(1L);
    s.close();
    s.close(); // idempotent
    try (BufferedCountMinSketch open = make(p, capacity)) {
      assertThrows(IllegalStateException.class, () -> s.update(1L));
      assertThrows(IllegalStateException.class, () -> s.update(1L, 2));
      assertThrows(IllegalStateException.class, () -> s.update(1L, 1L << 40));
      assertThrows(IllegalStateException.class, () -> s.update(new byte[] {1}));
      assertThrows(IllegalStateException.class, () -> s.update(new byte[] {1}, 2));
      assertThrows(IllegalStateException.class, () -> s.estimate(1L));
      assertThrows(IllegalStateException.class, () -> s.estimate(new byte[] {1}));
      assertThrows(IllegalStateException.class, () -> s.merge(open));
      assertThrows(IllegalStateException.class, () -> open.merge(s));
      assertThrows(IllegalStateException.class, s::flush);
      assertThrows(IllegalStateException.class, s::totalWeight);
      assertThrows(IllegalStateException.class, s::pendingUpdates);
      assertEquals(0, open.totalWeight());
    }
    s.close();
  }

  // ---------------------------------------------------------------- I/O accounting

  /** The page of an item, as the file format specifies it: floor(xxh3(item, seed) * pageCount / 2^64). */
  private static int pageOf(long item, long seed, long pageCount) {
    long h = LongHashFunction.xx3(seed).hashLong(item);
    BigInteger unsigned = new BigInteger(Long.toUnsignedString(h));
    return unsigned.multiply(BigInteger.valueOf(pageCount)).shiftRight(64).intValueExact();
  }

  /** The I/O the design prescribes: a model of the per-page buffers. */
  private static final class IoModel {
    final int capacity;
    final int[] fill;
    long reads;
    long writes;
    long pending;

    IoModel(int capacity, long pageCount) {
      this.capacity = capacity;
      this.fill = new int[(int) pageCount];
    }

    void update(int page, long weight) {
      if (weight == 0) {
        return;
      }
      if (capacity == 0 || weight > 0xFFFF_FFFFL) {
        reads++;
        writes++;
        pending -= fill[page];
        fill[page] = 0;
      } else if (++fill[page] == capacity) {
        reads++;
        writes++;
        pending -= capacity - 1;
        fill[page] = 0;
      } else {
        pending++;
      }
    }

    void estimate(int page) {
      reads++;
      if (fill[page] > 0) {
        writes++;
        pending -= fill[page];
        fill[page] = 0;
      }
    }

    void flush() {
      for (int p = 0; p < fill.length; p++) {
        if (fill[p] > 0) {
          reads++;
          writes++;
          fill[p] = 0;
        }
      }
      pending = 0;
    }

    void check(BufferedCountMinSketch s, String when) {
      assertEquals(reads, s.pageReads(), "page reads " + when);
      assertEquals(writes, s.pageWrites(), "page writes " + when);
      assertEquals(pending, s.pendingUpdates(), "pending updates " + when);
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {0, 1, 2, 5, 33})
  void pageReadsAndWritesFollowTheDesign(int capacity) {
    long seed = 17_000 + capacity;
    Random r = random(seed);
    SketchParameters p = SketchParameters.ofDimensions(3000, 4).withSeed(seed).withPageSize(512);
    try (BufferedCountMinSketch s = make(p, capacity)) {
      long pageCount = s.pageCount();
      assertEquals(SketchChecks.pageCount(p), pageCount);
      IoModel model = new IoModel(capacity, pageCount);
      // updates only: reads = sum over pages of floor(n_p / C), then flush adds one per non-empty page
      int n = 10_000;
      long[] perPage = new long[(int) pageCount];
      for (int i = 0; i < n; i++) {
        long item = r.nextLong();
        int page = pageOf(item, seed, pageCount);
        perPage[page]++;
        s.update(item);
        model.update(page, 1);
      }
      long fullBuffers = 0;
      long remainders = 0;
      for (long count : perPage) {
        fullBuffers += capacity == 0 ? count : count / capacity;
        remainders += capacity == 0 || count % capacity == 0 ? 0 : 1;
      }
      assertEquals(fullBuffers, s.pageReads());
      assertEquals(fullBuffers, s.pageWrites());
      assertEquals(n - (capacity == 0 ? n : fullBuffers * capacity), s.pendingUpdates());
      model.check(s, "after updates");
      s.flush();
      assertEquals(fullBuffers + remainders, s.pageReads());
      assertEquals(fullBuffers + remainders, s.pageWrites());
      assertEquals(0, s.pendingUpdates());
      model.flush();
      model.check(s, "after flush");

      // an estimate on a page with nothing pending: one read, no write
      long item = r.nextLong();
      long reads = s.pageReads();
      long writes = s.pageWrites();
      s.estimate(item);
      assertEquals(reads + 1, s.pageReads());
      assertEquals(writes, s.pageWrites());
      model.estimate(pageOf(item, seed, pageCount));
      if (capacity >= 2) {
        // an estimate on a page with a pending update: one read, one write
        s.update(item);
        model.update(pageOf(item, seed, pageCount), 1);
        assertEquals(1, s.pendingUpdates());
        s.estimate(item);
        assertEquals(reads + 2, s.pageReads());
        assertEquals(writes + 1, s.pageWrites());
        assertEquals(0, s.pendingUpdates());
        model.estimate(pageOf(item, seed, pageCount));
      }
      model.check(s, "after estimates");

      // a mixed sequence of updates (weights 0, buffered, heavy), estimates and flushes
      for (int i = 0; i < 20_000; i++) {
        long x = r.nextInt(4000);
        int page = pageOf(x, seed, pageCount);
        int k = r.nextInt(100);
        if (k < 70) {
          long w = randomWeight(r);
          s.update(x, w);
          model.update(page, w);
        } else if (k < 99) {
          s.estimate(x);
          model.estimate(page);
        } else {
          s.flush();
          model.flush();
        }
        if (i % 97 == 0) {
          model.check(s, "at step " + i);
        }
      }
      model.check(s, "at the end");
    }
  }

  @Test
  void reopenedSketchCountsIoFromZero() {
    SketchParameters p = SketchParameters.ofDimensions(300, 3).withPageSize(512);
    Path path = newPath();
    try (BufferedCountMinSketch s = BufferedCountMinSketch.create(path, p, 0)) {
      s.update(1L);
      assertEquals(1, s.pageReads());
      assertEquals(1, s.pageWrites());
    }
    try (BufferedCountMinSketch s = BufferedCountMinSketch.open(path, 0)) {
      assertEquals(0, s.pageReads());
      assertEquals(0, s.pageWrites());
      assertEquals(1, s.estimate(1L));
      assertEquals(1, s.pageReads());
      assertEquals(0, s.pageWrites());
    }
  }

  @Test
  void ramUseStaysWithinTheBudget() {
    SketchParameters p = SketchParameters.ofDimensions(100_000, 4).withPageSize(1024);
    for (long budget : new long[] {0, 5000, budgetForCapacity(p, 1), budgetForCapacity(p, 10) + 7, 1 << 22}) {
      try (BufferedCountMinSketch s = BufferedCountMinSketch.create(newPath(), p, budget)) {
        if (budget >= 2L * p.pageSize()) {
          assertTrue(s.ramBytesUsed() <= budget, "RAM " + s.ramBytesUsed() + " over budget " + budget);
        }
        assertTrue(s.pageCount() * s.columnsPerPage() >= p.width());
        assertEquals(s.pageCount() * p.pageSize(), s.sizeBytes());
      }
    }
  }
}
