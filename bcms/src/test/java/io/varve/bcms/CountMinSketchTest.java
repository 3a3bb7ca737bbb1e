package io.varve.bcms;

import static io.varve.bcms.SketchChecks.assertMostlyExact;
import static io.varve.bcms.SketchChecks.assertNoUnderestimate;
import static io.varve.bcms.SketchChecks.feed;
import static io.varve.bcms.SketchChecks.overestimateSum;
import static io.varve.bcms.SketchChecks.random;
import static io.varve.bcms.SketchChecks.randomWeight;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.varve.bcms.SketchChecks.BytesModel;
import io.varve.bcms.SketchChecks.LongModel;
import io.varve.core.format.CorruptStoreException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/** The plain count-min sketch, on the heap and memory-mapped, against exact counts. */
class CountMinSketchTest {
  @TempDir Path dir;

  private int files;

  enum Kind { IN_MEMORY, FILE }

  private AnySketch make(Kind kind, SketchParameters p) {
    return AnySketch.of(makePlain(kind, p));
  }

  private CountMinSketch makePlain(Kind kind, SketchParameters p) {
    return kind == Kind.IN_MEMORY ? CountMinSketch.inMemory(p) : CountMinSketch.create(newPath(), p);
  }

  private Path newPath() {
    return dir.resolve("sketch-" + (files++) + ".cms");
  }

  static Stream<Arguments> kindsBitsConservative() {
    List<Arguments> out = new ArrayList<>();
    for (Kind kind : Kind.values()) {
      for (int bits : new int[] {32, 64}) {
        for (boolean conservative : new boolean[] {false, true}) {
          out.add(Arguments.of(kind, bits, conservative));
        }
      }
    }
    return out.stream();
  }

  // ---------------------------------------------------------------- properties

  @ParameterizedTest
  @MethodSource("kindsBitsConservative")
  void longStreamsAreNeverUnderestimated(Kind kind, int bits, boolean conservative) {
    long seed = 1000 + bits + (conservative ? 1 : 0) + 10L * kind.ordinal();
    Random r = random(seed);
    SketchParameters p = SketchParameters.ofDimensions(2000, 4).withCounterBits(bits)
        .withConservativeUpdate(conservative).withSeed(seed);
    for (boolean unitWeights : new boolean[] {true, false}) {
      long[] items = SketchChecks.randomLongItems(r, 3000, 20_000);
      long[] weights = new long[items.length];
      for (int i = 0; i < weights.length; i++) {
        weights[i] = unitWeights ? 1 : randomWeight(r);
      }
      try (AnySketch s = make(kind, p)) {
        LongModel model = new LongModel();
        feed(s, model, items, weights);
        assertNoUnderestimate(s, model);
      }
    }
  }

  @ParameterizedTest
  @MethodSource("kindsBitsConservative")
  void byteStreamsAreNeverUnderestimated(Kind kind, int bits, boolean conservative) {
    long seed = 2000 + bits + (conservative ? 1 : 0) + 10L * kind.ordinal();
    Random r = random(seed);
    SketchParameters p = SketchParameters.ofDimensions(1500, 3).withCounterBits(bits)
        .withConservativeUpdate(conservative).withSeed(seed);
    List<byte[]> distinct = SketchChecks.distinctByteItems(r, 2000);
    try (AnySketch s = make(kind, p)) {
      BytesModel model = new BytesModel();
      for (int i = 0; i < 15_000; i++) {
        byte[] item = distinct.get(r.nextInt(distinct.size()));
        long w = i % 2 == 0 ? 1 : randomWeight(r);
        s.update(item, w);
        model.add(item, w);
      }
      assertNoUnderestimate(s, model);
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void emptyAndOneItemStreams(Kind kind) {
    SketchParameters p = SketchParameters.ofDimensions(100, 3);
    try (CountMinSketch s = makePlain(kind, p)) {
      assertEquals(0, s.totalWeight());
      for (long item = -50; item < 50; item++) {
        assertEquals(0, s.estimate(item));
      }
      assertEquals(0, s.estimate(new byte[0]));
      assertEquals(0, s.estimate("x".getBytes(UTF_8)));
    }
    try (CountMinSketch s = makePlain(kind, p)) {
      s.update(new byte[0], 7);
      assertEquals(7, s.estimate(new byte[0]));
      assertEquals(7, s.totalWeight());
    }
    try (CountMinSketch s = makePlain(kind, p)) {
      s.update(42L);
      assertEquals(1, s.estimate(42L));
      assertEquals(1, s.totalWeight());
      s.update(42L, 0);
      assertEquals(1, s.estimate(42L));
      assertEquals(1, s.totalWeight());
    }
  }

  @ParameterizedTest
  @MethodSource("kindsBitsConservative")
  void wideSketchIsExactForAlmostAllItems(Kind kind, int bits, boolean conservative) {
    long seed = 3000 + bits + (conservative ? 1 : 0) + 10L * kind.ordinal();
    Random r = random(seed);
    SketchParameters p = SketchParameters.ofDimensions(1 << 18, 4).withCounterBits(bits)
        .withConservativeUpdate(conservative).withSeed(seed);
    try (AnySketch s = make(kind, p)) {
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
    try (AnySketch s = make(kind, p)) {
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
  @MethodSource("kindsBitsConservative")
  void fileAndHeapSketchesHoldTheSameCounts(Kind ignored, int bits, boolean conservative) {
    long seed = 4000 + bits + (conservative ? 1 : 0);
    Random r = random(seed);
    SketchParameters p = SketchParameters.ofDimensions(700, 5).withCounterBits(bits)
        .withConservativeUpdate(conservative).withSeed(seed);
    try (CountMinSketch heap = CountMinSketch.inMemory(p); CountMinSketch file = CountMinSketch.create(newPath(), p)) {
      long[] items = SketchChecks.randomLongItems(r, 2000, 10_000);
      for (long item : items) {
        long w = randomWeight(r);
        heap.update(item, w);
        file.update(item, w);
      }
      for (long item : items) {
        assertEquals(heap.estimate(item), file.estimate(item));
      }
      assertEquals(heap.totalWeight(), file.totalWeight());
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void conservativeUpdateOverestimatesLessThanPlainUpdate(Kind kind) {
    long seed = 5000 + kind.ordinal();
    Random r = random(seed);
    int distinct = 5000;
    int[] zipf = SketchChecks.zipfIndices(r, distinct, 1.1, 40_000);
    long[] values = new long[distinct];
    for (int i = 0; i < distinct; i++) {
      values[i] = r.nextLong();
    }
    for (int bits : new int[] {32, 64}) {
      SketchParameters p = SketchParameters.ofDimensions(256, 3).withCounterBits(bits).withSeed(seed);
      try (AnySketch plain = make(kind, p);
          AnySketch conservative = make(kind, p.withConservativeUpdate(true))) {
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
        System.out.println(kind + " " + bits + "-bit: overestimate sum plain " + plainOver + ", conservative "
            + conservativeOver);
        assertTrue(conservativeOver < plainOver,
            "conservative " + conservativeOver + " not below plain " + plainOver);
      }
    }
  }

  // ---------------------------------------------------------------- saturation and weights

  @ParameterizedTest
  @MethodSource("kindsBitsConservative")
  void countersSaturateInsteadOfWrapping(Kind kind, int bits, boolean conservative) {
    SketchParameters p = SketchParameters.ofDimensions(64, 3).withCounterBits(bits)
        .withConservativeUpdate(conservative);
    long max = bits == 32 ? 4_294_967_295L : Long.MAX_VALUE;
    try (AnySketch s = make(kind, p)) {
      // approach the maximum in steps, then pass it
      s.update(1L, max - 10);
      assertEquals(max - 10, s.estimate(1L));
      s.update(1L, 7);
      assertEquals(max - 3, s.estimate(1L));
      s.update(1L, 7);
      assertEquals(max, s.estimate(1L));
      s.update(1L, 1);
      assertEquals(max, s.estimate(1L));
      s.update(1L, Long.MAX_VALUE);
      assertEquals(max, s.estimate(1L));
      // many moderate weights summing past 2^32 - 1
      for (int i = 0; i < 5; i++) {
        s.update(2L, 1L << 30);
      }
      assertEquals(Math.min(5L << 30, max), s.estimate(2L));
      // a single weight past the counter maximum
      s.update(3L, Long.MAX_VALUE);
      assertEquals(max, s.estimate(3L));
      // the total weight saturates at Long.MAX_VALUE
      assertEquals(Long.MAX_VALUE, s.totalWeight());
      s.update(4L, 5);
      assertEquals(Long.MAX_VALUE, s.totalWeight());
    }
    if (bits == 32) {
      try (AnySketch s = make(kind, p)) {
        s.update(9L, 0xFFFF_FFFFL);
        s.update(9L, 0xFFFF_FFFFL);
        assertEquals(4_294_967_295L, s.estimate(9L));
        assertEquals(2 * 0xFFFF_FFFFL, s.totalWeight());
      }
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void negativeWeightIsRejectedAndChangesNothing(Kind kind) {
    SketchParameters p = SketchParameters.ofDimensions(64, 3);
    try (CountMinSketch s = makePlain(kind, p)) {
      s.update(5L, 3);
      s.update("x".getBytes(UTF_8), 2);
      assertThrows(IllegalArgumentException.class, () -> s.update(5L, -1));
      assertThrows(IllegalArgumentException.class, () -> s.update(5L, Long.MIN_VALUE));
      assertThrows(IllegalArgumentException.class, () -> s.update("x".getBytes(UTF_8), -7));
      assertEquals(5, s.totalWeight());
      assertEquals(3, s.estimate(5L));
      assertEquals(2, s.estimate("x".getBytes(UTF_8)));
    }
  }

  @Test
  void negativeWeightLeavesAClosedFileUntouched() throws IOException {
    Path path = newPath();
    try (CountMinSketch s = CountMinSketch.create(path, SketchParameters.ofDimensions(64, 3))) {
      s.update(5L, 3);
    }
    byte[] before = Files.readAllBytes(path);
    try (CountMinSketch s = CountMinSketch.open(path)) {
      assertThrows(IllegalArgumentException.class, () -> s.update(5L, -1));
    }
    assertArrayEquals(before, Files.readAllBytes(path));
  }

  // ---------------------------------------------------------------- reopen

  @Test
  void reopenedSketchAnswersAsBefore() {
    long seed = 6000;
    Random r = random(seed);
    for (boolean conservative : new boolean[] {false, true}) {
      for (int bits : new int[] {32, 64}) {
        Path path = newPath();
        SketchParameters p = SketchParameters.ofDimensions(997, 4).withCounterBits(bits)
            .withConservativeUpdate(conservative).withSeed(seed);
        LongModel model = new LongModel();
        long[] items = SketchChecks.randomLongItems(r, 3000, 8000);
        long[] estimates = new long[items.length];
        try (CountMinSketch s = CountMinSketch.create(path, p)) {
          for (long item : items) {
            long w = randomWeight(r);
            s.update(item, w);
            model.add(item, w);
          }
          for (int i = 0; i < items.length; i++) {
            estimates[i] = s.estimate(items[i]);
          }
          assertEquals(model.total, s.totalWeight());
        }
        for (boolean verify : new boolean[] {true, false}) {
          try (CountMinSketch s = verify ? CountMinSketch.open(path) : CountMinSketch.openUnverified(path)) {
            assertEquals(p, s.parameters());
            assertEquals(path, s.path());
            assertEquals(model.total, s.totalWeight());
            for (int i = 0; i < items.length; i++) {
              assertEquals(estimates[i], s.estimate(items[i]));
            }
          }
        }
        // more updates after reopening, then again
        try (CountMinSketch s = CountMinSketch.open(path)) {
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
        try (CountMinSketch s = CountMinSketch.open(path)) {
          assertNoUnderestimate(AnySketch.of(s), model);
          for (int i = 0; i < items.length; i++) {
            assertEquals(estimates[i], s.estimate(items[i]));
          }
        }
      }
    }
  }

  /**
   * A plain sketch has no pages and its file stores no page size: its parameters carry the default
   * page size whatever was asked, before and after a reopen, so that merging with a sketch made from
   * the same parameters works.
   */
  @Test
  void reopenedSketchKeepsItsParametersWhateverThePageSize() {
    SketchParameters p = SketchParameters.ofDimensions(100, 3).withPageSize(8192);
    SketchParameters plain = p.withPageSize(SketchParameters.DEFAULT_PAGE_SIZE);
    Path path = newPath();
    try (CountMinSketch s = CountMinSketch.create(path, p)) {
      s.update(1L);
      assertEquals(plain, s.parameters());
    }
    try (CountMinSketch reopened = CountMinSketch.open(path); CountMinSketch heap = CountMinSketch.inMemory(p)) {
      heap.update(1L);
      assertEquals(plain, reopened.parameters(), "parameters after reopening");
      assertEquals(plain, heap.parameters());
      heap.merge(reopened);
      assertEquals(2, heap.estimate(1L));
    }
  }

  @Test
  void createOnAnExistingPathFailsAndLeavesTheFile() throws IOException {
    Path path = newPath();
    try (CountMinSketch s = CountMinSketch.create(path, SketchParameters.ofDimensions(50, 2))) {
      s.update(3L);
    }
    byte[] before = Files.readAllBytes(path);
    assertThrows(IllegalStateException.class, () -> CountMinSketch.create(path, SketchParameters.ofDimensions(50, 2)));
    assertThrows(IllegalStateException.class, () -> CountMinSketch.create(path, SketchParameters.ofDimensions(80, 3)));
    assertArrayEquals(before, Files.readAllBytes(path));
    Path other = dir.resolve("not-a-sketch.txt");
    Files.writeString(other, "hello");
    assertThrows(IllegalStateException.class, () -> CountMinSketch.create(other, SketchParameters.ofDimensions(50, 2)));
    assertEquals("hello", Files.readString(other));
    try (CountMinSketch s = CountMinSketch.open(path)) {
      assertEquals(1, s.estimate(3L));
    }
  }

  @Test
  void openingAMissingFileIsAnIllegalArgument() {
    Path missing = dir.resolve("missing.cms");
    assertThrows(IllegalArgumentException.class, () -> CountMinSketch.open(missing));
    assertThrows(IllegalArgumentException.class, () -> CountMinSketch.openUnverified(missing));
    assertFalse(Files.exists(missing));
  }

  @Test
  void openingABufferedSketchFileNamesTheOtherKind() {
    Path path = newPath();
    BufferedCountMinSketch.create(path, SketchParameters.ofDimensions(100, 3).withPageSize(512), 1 << 16).close();
    CorruptStoreException e = assertThrows(CorruptStoreException.class, () -> CountMinSketch.open(path));
    assertTrue(e.getMessage().contains("BufferedCountMinSketch"), e.getMessage());
    e = assertThrows(CorruptStoreException.class, () -> CountMinSketch.openUnverified(path));
    assertTrue(e.getMessage().contains("BufferedCountMinSketch"), e.getMessage());
  }

  @Test
  void closeReleasesTheMappingAndTheFile() throws IOException {
    assumeTrue(SketchChecks.procAvailable(), "needs /proc/self");
    Path path = newPath();
    CountMinSketch s = CountMinSketch.create(path, SketchParameters.ofDimensions(5000, 4));
    s.update(1L);
    assertTrue(SketchChecks.isMapped(path), "a file sketch maps its file");
    assertFalse(SketchChecks.fdsOn(path).isEmpty(), "a file sketch holds its file open");
    s.close();
    assertFalse(SketchChecks.isMapped(path), "mapping left after close");
    assertEquals(List.of(), SketchChecks.fdsOn(path));
    for (int i = 0; i < 20; i++) {
      try (CountMinSketch t = CountMinSketch.open(path)) {
        assertEquals(1, t.estimate(1L));
      }
    }
    assertFalse(SketchChecks.isMapped(path));
    assertEquals(List.of(), SketchChecks.fdsOn(path));
    Files.delete(path);
  }

  // ---------------------------------------------------------------- merge

  @ParameterizedTest
  @MethodSource("kindsBitsConservative")
  void mergeEqualsTheSketchOfTheConcatenatedStream(Kind kind, int bits, boolean conservative) {
    long seed = 7000 + bits + (conservative ? 1 : 0) + 10L * kind.ordinal();
    Random r = random(seed);
    SketchParameters p = SketchParameters.ofDimensions(500, 4).withCounterBits(bits)
        .withConservativeUpdate(conservative).withSeed(seed);
    long[] a = SketchChecks.randomLongItems(r, 1500, 6000);
    long[] b = SketchChecks.randomLongItems(r, 1500, 6000);
    long[] wa = new long[a.length];
    long[] wb = new long[b.length];
    for (int i = 0; i < a.length; i++) {
      wa[i] = randomWeight(r);
      wb[i] = randomWeight(r);
    }
    try (CountMinSketch l = makePlain(kind, p); CountMinSketch rr = makePlain(kind, p);
        CountMinSketch plainConcatenated = CountMinSketch.inMemory(p.withConservativeUpdate(false))) {
      AnySketch left = AnySketch.of(l);
      AnySketch right = AnySketch.of(rr);
      LongModel union = new LongModel();
      feed(left, union, a, wa);
      feed(right, union, b, wb);
      for (int i = 0; i < a.length; i++) {
        plainConcatenated.update(a[i], wa[i]);
      }
      for (int i = 0; i < b.length; i++) {
        plainConcatenated.update(b[i], wb[i]);
      }
      l.merge(rr);
      assertNoUnderestimate(left, union);
      if (!conservative) {
        // adding counters commutes with adding updates (saturation included)
        for (long item : union.exact.keySet()) {
          assertEquals(plainConcatenated.estimate(item), left.estimate(item));
        }
        for (int i = 0; i < 1000; i++) {
          long absent = r.nextLong();
          assertEquals(plainConcatenated.estimate(absent), left.estimate(absent));
        }
      }
      // the merged-in sketch is unchanged
      LongModel onlyB = new LongModel();
      for (int i = 0; i < b.length; i++) {
        onlyB.add(b[i], wb[i]);
      }
      assertNoUnderestimate(right, onlyB);
    }
  }

  @Test
  void mergeOfAFileSketchSurvivesReopening() {
    long seed = 7100;
    Random r = random(seed);
    SketchParameters p = SketchParameters.ofDimensions(300, 3).withSeed(seed);
    Path path = newPath();
    LongModel union = new LongModel();
    long[] items = SketchChecks.randomLongItems(r, 400, 2000);
    try (CountMinSketch file = CountMinSketch.create(path, p); CountMinSketch heap = CountMinSketch.inMemory(p)) {
      for (int i = 0; i < items.length; i++) {
        (i % 2 == 0 ? file : heap).update(items[i], 1 + i % 3);
        union.add(items[i], 1 + i % 3);
      }
      file.merge(heap);
    }
    try (CountMinSketch file = CountMinSketch.open(path)) {
      assertNoUnderestimate(AnySketch.of(file), union);
    }
  }

  @Test
  void mergeRejectsOtherParametersAndItself() {
    SketchParameters p = SketchParameters.ofDimensions(100, 3).withSeed(1);
    try (CountMinSketch a = CountMinSketch.inMemory(p);
        CountMinSketch b = CountMinSketch.create(newPath(), p)) {
      a.update(1L);
      b.update(2L);
      for (SketchParameters other : List.of(p.withSeed(2), SketchParameters.ofDimensions(101, 3).withSeed(1),
          SketchParameters.ofDimensions(100, 4).withSeed(1), p.withCounterBits(32), p.withConservativeUpdate(true))) {
        try (CountMinSketch c = CountMinSketch.inMemory(other)) {
          c.update(3L);
          assertThrows(IllegalArgumentException.class, () -> a.merge(c), other.toString());
          assertThrows(IllegalArgumentException.class, () -> c.merge(a), other.toString());
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
  @EnumSource(Kind.class)
  void everyCallAfterCloseIsAnIllegalState(Kind kind) {
    SketchParameters p = SketchParameters.ofDimensions(100, 3);
    CountMinSketch s = makePlain(kind, p);
    s.update(1L);
    s.close();
    s.close(); // idempotent
    try (CountMinSketch open = CountMinSketch.inMemory(p)) {
      assertThrows(IllegalStateException.class, () -> s.update(1L));
      assertThrows(IllegalStateException.class, () -> s.update(1L, 2));
      assertThrows(IllegalStateException.class, () -> s.update(new byte[] {1}));
      assertThrows(IllegalStateException.class, () -> s.update(new byte[] {1}, 2));
      assertThrows(IllegalStateException.class, () -> s.estimate(1L));
      assertThrows(IllegalStateException.class, () -> s.estimate(new byte[] {1}));
      assertThrows(IllegalStateException.class, () -> s.merge(open));
      assertThrows(IllegalStateException.class, () -> open.merge(s));
      assertThrows(IllegalStateException.class, s::flush);
      assertThrows(IllegalStateException.class, s::totalWeight);
      assertEquals(0, open.totalWeight());
    }
    s.close();
    if (kind == Kind.IN_MEMORY) {
      assertNull(s.path());
    }
  }
}
