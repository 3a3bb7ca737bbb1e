package io.varve.bcms;

import static io.varve.bcms.SketchChecks.assertNoUnderestimate;
import static io.varve.bcms.SketchChecks.estimates;
import static io.varve.bcms.SketchChecks.feed;
import static io.varve.bcms.SketchChecks.feedRandomItems;
import static io.varve.bcms.SketchChecks.feedRandomWeights;
import static io.varve.bcms.SketchChecks.parameters;
import static io.varve.bcms.SketchChecks.random;
import static io.varve.bcms.SketchChecks.randomWeight;
import static io.varve.bcms.SketchChecks.seed;
import static io.varve.bcms.SketchChecks.withBitsAndUpdateRules;
import static io.varve.bcms.SketchScenarios.approachMax;
import static io.varve.bcms.SketchScenarios.assertConservativeOverestimatesLess;
import static io.varve.bcms.SketchScenarios.assertEmpty;
import static io.varve.bcms.SketchScenarios.assertEmptyItemCounts;
import static io.varve.bcms.SketchScenarios.assertEveryCallIsAnIllegalState;
import static io.varve.bcms.SketchScenarios.assertMergeEqualsConcatenation;
import static io.varve.bcms.SketchScenarios.assertMergeRejectsOthersAndItself;
import static io.varve.bcms.SketchScenarios.assertNegativeWeightRejected;
import static io.varve.bcms.SketchScenarios.assertSaturatesPastMax;
import static io.varve.bcms.SketchScenarios.assertWideSketchMostlyExact;
import static io.varve.bcms.SketchScenarios.unmergeable;
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
import java.util.List;
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
    return withBitsAndUpdateRules((Object[]) Kind.values());
  }

  // ---------------------------------------------------------------- properties

  @ParameterizedTest
  @MethodSource("kindsBitsConservative")
  void longStreamsAreNeverUnderestimated(Kind kind, int bits, boolean conservative) {
    long seed = seed(1000, kind.ordinal(), bits, conservative);
    Random r = random(seed);
    SketchParameters p = parameters(2000, 4, bits, conservative, seed);
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
    long seed = seed(2000, kind.ordinal(), bits, conservative);
    Random r = random(seed);
    SketchParameters p = parameters(1500, 3, bits, conservative, seed);
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
    try (AnySketch s = make(kind, p)) {
      assertEmpty(s);
    }
    try (AnySketch s = make(kind, p)) {
      assertEmptyItemCounts(s);
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
    long seed = seed(3000, kind.ordinal(), bits, conservative);
    SketchParameters p = parameters(1 << 18, 4, bits, conservative, seed);
    assertWideSketchMostlyExact(random(seed), () -> make(kind, p));
  }

  @ParameterizedTest
  @MethodSource("kindsBitsConservative")
  void fileAndHeapSketchesHoldTheSameCounts(Kind ignored, int bits, boolean conservative) {
    long seed = seed(4000, 0, bits, conservative);
    Random r = random(seed);
    SketchParameters p = parameters(700, 5, bits, conservative, seed);
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
    assertConservativeOverestimatesLess(seed, SketchParameters.ofDimensions(256, 3).withSeed(seed), kind.toString(),
        p -> make(kind, p));
  }

  // ---------------------------------------------------------------- saturation and weights

  @ParameterizedTest
  @MethodSource("kindsBitsConservative")
  void countersSaturateInsteadOfWrapping(Kind kind, int bits, boolean conservative) {
    SketchParameters p = parameters(64, 3, bits, conservative, 0);
    long max = bits == 32 ? 4_294_967_295L : Long.MAX_VALUE;
    try (AnySketch s = make(kind, p)) {
      // approach the maximum in steps, then pass it
      approachMax(s, max);
      s.update(1L, 7);
      assertEquals(max, s.estimate(1L));
      s.update(1L, 1);
      assertEquals(max, s.estimate(1L));
      // far past it, then other items: many moderate weights summing past 2^32 - 1
      assertSaturatesPastMax(s, max, 1L << 30, 1L << 30, 1L << 30, 1L << 30, 1L << 30);
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
    try (AnySketch s = make(kind, p)) {
      assertNegativeWeightRejected(s);
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
        SketchParameters p = parameters(997, 4, bits, conservative, seed);
        LongModel model = new LongModel();
        long[] items = SketchChecks.randomLongItems(r, 3000, 8000);
        long[] estimates;
        try (CountMinSketch s = CountMinSketch.create(path, p)) {
          feedRandomWeights(s, model, items, r);
          estimates = estimates(s, items);
          assertEquals(model.total, s.totalWeight());
        }
        for (boolean verify : new boolean[] {true, false}) {
          try (CountMinSketch s = verify ? CountMinSketch.open(path) : CountMinSketch.openUnverified(path)) {
            assertEquals(p, s.parameters());
            assertEquals(path, s.path());
            assertEquals(model.total, s.totalWeight());
            assertArrayEquals(estimates, estimates(s, items));
          }
        }
        // more updates after reopening, then again
        try (CountMinSketch s = CountMinSketch.open(path)) {
          feedRandomItems(s, model, items, 3000, r);
          estimates = estimates(s, items);
        }
        try (CountMinSketch s = CountMinSketch.open(path)) {
          assertNoUnderestimate(AnySketch.of(s), model);
          assertArrayEquals(estimates, estimates(s, items));
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
    long seed = seed(7000, kind.ordinal(), bits, conservative);
    Random r = random(seed);
    SketchParameters p = parameters(500, 4, bits, conservative, seed);
    try (CountMinSketch left = makePlain(kind, p); CountMinSketch right = makePlain(kind, p);
        CountMinSketch plainConcatenated = CountMinSketch.inMemory(p.withConservativeUpdate(false))) {
      assertMergeEqualsConcatenation(r, AnySketch.of(left), AnySketch.of(right), AnySketch.of(plainConcatenated),
          () -> left.merge(right));
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
      assertMergeRejectsOthersAndItself(a, b, unmergeable(p), CountMinSketch::inMemory, CountMinSketch::merge);
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
      assertEveryCallIsAnIllegalState(s);
      assertThrows(IllegalStateException.class, s::ramBytesUsed);
      assertEquals(300 * 8, s.sizeBytes(), "what describes the sketch stays readable");
      assertThrows(IllegalStateException.class, () -> s.merge(open));
      assertThrows(IllegalStateException.class, () -> open.merge(s));
      assertEquals(0, open.totalWeight());
    }
    s.close();
    if (kind == Kind.IN_MEMORY) {
      assertNull(s.path());
    }
  }

  /**
   * An in-memory sketch larger than the heap can ever be is refused with its size named. Before,
   * one of 2^58 + 12345 counters failed with NegativeArraySizeException (the count of its chunk
   * arrays overflowed an int), and one of 2^40 allocated 512 MiB chunks until the heap ran out.
   */
  @Test
  void anInMemorySketchLargerThanTheHeapIsRefused() {
    for (long width : new long[] {(1L << 58) + 12345, 1L << 40}) {
      IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
          () -> CountMinSketch.inMemory(SketchParameters.ofDimensions(width, 1)), "width " + width);
      assertTrue(refused.getMessage().contains("more than the heap can hold"), refused.getMessage());
    }
    try (CountMinSketch small = CountMinSketch.inMemory(SketchParameters.ofDimensions(1 << 20, 4))) {
      small.update(5L, 1);
      assertEquals(1, small.estimate(5L));
    }
  }
}
