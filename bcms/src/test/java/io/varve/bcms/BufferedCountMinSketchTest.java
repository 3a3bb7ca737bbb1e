package io.varve.bcms;

import static io.varve.bcms.SketchChecks.assertNoUnderestimate;
import static io.varve.bcms.SketchChecks.budgetForCapacity;
import static io.varve.bcms.SketchChecks.estimates;
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
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.bcms.SketchChecks.BytesModel;
import io.varve.bcms.SketchChecks.LongModel;
import io.varve.bcms.SketchScenarios.TwoStreams;
import io.varve.core.format.CorruptStoreException;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
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
    return withBitsAndUpdateRules(0, 1, 4, 64);
  }

  // ---------------------------------------------------------------- properties

  @ParameterizedTest
  @MethodSource("capacitiesBitsConservative")
  void longStreamsAreNeverUnderestimatedAndBufferingChangesNoEstimate(
      int capacity, int bits, boolean conservative) {
    long seed = seed(11_000, capacity, bits, conservative);
    Random r = random(seed);
    SketchParameters p = parameters(2000, 4, bits, conservative, seed).withPageSize(512);
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
    long seed = seed(12_000, capacity, bits, conservative);
    Random r = random(seed);
    SketchParameters p = parameters(1500, 3, bits, conservative, seed).withPageSize(512);
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
    try (AnySketch s = AnySketch.of(make(p, capacity))) {
      assertEmpty(s);
    }
    try (BufferedCountMinSketch s = make(p, capacity)) {
      assertEmptyItemCounts(s);
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
    long seed = seed(13_000, capacity, bits, conservative);
    SketchParameters p = parameters(1 << 18, 4, bits, conservative, seed);
    assertWideSketchMostlyExact(random(seed), () -> AnySketch.of(make(p, capacity)));
  }

  @ParameterizedTest
  @ValueSource(ints = {0, 1, 4, 64})
  void conservativeUpdateOverestimatesLessThanPlainUpdate(int capacity) {
    long seed = 14_000 + capacity;
    assertConservativeOverestimatesLess(seed, SketchParameters.ofDimensions(256, 3).withSeed(seed).withPageSize(512),
        "capacity " + capacity, p -> AnySketch.of(make(p, capacity)));
  }

  // ---------------------------------------------------------------- saturation and weights

  @ParameterizedTest
  @MethodSource("capacitiesBitsConservative")
  void countersSaturateInsteadOfWrapping(int capacity, int bits, boolean conservative) {
    SketchParameters p = parameters(64, 3, bits, conservative, 0).withPageSize(512);
    long max = bits == 32 ? 4_294_967_295L : Long.MAX_VALUE;
    try (BufferedCountMinSketch s = make(p, capacity)) {
      approachMax(s, max);
      s.update(1L, 7);
      s.update(1L, 1);
      assertEquals(max, s.estimate(1L));
      // buffered weights (each at most 2^32 - 1) summing past 2^32 - 1, applied together
      assertSaturatesPastMax(s, max, 1L << 30, 1L << 30, 1L << 30, 1L << 30, 1L << 30, 0xFFFF_FFFFL);
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
    try (AnySketch s = AnySketch.of(BufferedCountMinSketch.create(path, p,
        capacity == 0 ? 0 : budgetForCapacity(p, capacity)))) {
      assertNegativeWeightRejected(s);
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
        SketchParameters p = parameters(997, 4, bits, conservative, seed).withPageSize(1024);
        LongModel model = new LongModel();
        long[] items = SketchChecks.randomLongItems(r, 3000, 8000);
        long[] estimates;
        try (BufferedCountMinSketch s = BufferedCountMinSketch.create(path, p, budgetForCapacity(p, 16))) {
          feedRandomWeights(s, model, items, r);
          estimates(s, items); // applies the pending updates of every item's page
          for (int i = 0; i < 500; i++) {
            s.update(items[i], 1); // left pending for close to apply
            model.add(items[i], 1);
          }
          assertTrue(s.pendingUpdates() > 0);
        }
        try (BufferedCountMinSketch s = BufferedCountMinSketch.open(path, 0)) {
          estimates = estimates(s, items);
          assertNoUnderestimate(AnySketch.of(s), model);
        }
        for (boolean verify : new boolean[] {true, false}) {
          for (long budget : new long[] {0, budgetForCapacity(p, 1), 1 << 20}) {
            try (BufferedCountMinSketch s = verify ? BufferedCountMinSketch.open(path, budget)
                : BufferedCountMinSketch.openUnverified(path, budget)) {
              assertEquals(p, s.parameters());
              assertEquals(path, s.path());
              assertEquals(model.total, s.totalWeight());
              assertArrayEquals(estimates, estimates(s, items));
            }
          }
        }
        try (BufferedCountMinSketch s = BufferedCountMinSketch.open(path, budgetForCapacity(p, 3))) {
          feedRandomItems(s, model, items, 3000, r);
          estimates = estimates(s, items);
        }
        try (BufferedCountMinSketch s = BufferedCountMinSketch.open(path, budgetForCapacity(p, 3))) {
          assertNoUnderestimate(AnySketch.of(s), model);
          assertArrayEquals(estimates, estimates(s, items));
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
    long seed = seed(16_000, capacity, bits, conservative);
    Random r = random(seed);
    SketchParameters p = parameters(500, 4, bits, conservative, seed).withPageSize(512);
    try (BufferedCountMinSketch left = make(p, capacity);
        BufferedCountMinSketch right = BufferedCountMinSketch.create(newPath(), p, budgetForCapacity(p, 7));
        BufferedCountMinSketch concatenated = make(p, capacity)) {
      TwoStreams streams = assertMergeEqualsConcatenation(r, AnySketch.of(left), AnySketch.of(right),
          AnySketch.of(concatenated), () -> {
            assertTrue(right.pendingUpdates() > 0, "the merged-in sketch has buffered updates");
            left.merge(right);
            assertEquals(0, right.pendingUpdates());
          });
      // updates after a merge go on counting
      left.update(streams.a[0], 5);
      streams.union.add(streams.a[0], 5);
      assertNoUnderestimate(AnySketch.of(left), streams.union);
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
    List<SketchParameters> others = new ArrayList<>(unmergeable(p));
    others.add(p.withPageSize(1024));
    try (BufferedCountMinSketch a = make(p, 4); BufferedCountMinSketch b = make(p, 0)) {
      assertMergeRejectsOthersAndItself(a, b, others, other -> make(other, 0), BufferedCountMinSketch::merge);
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
      assertEveryCallIsAnIllegalState(s);
      assertThrows(IllegalStateException.class, () -> s.update(1L, 1L << 40));
      assertThrows(IllegalStateException.class, () -> s.merge(open));
      assertThrows(IllegalStateException.class, () -> open.merge(s));
      assertThrows(IllegalStateException.class, s::pendingUpdates);
      assertThrows(IllegalStateException.class, s::pageReads);
      assertThrows(IllegalStateException.class, s::pageWrites);
      assertThrows(IllegalStateException.class, s::ramBytesUsed);
      assertEquals(p.width(), s.parameters().width(), "what describes the sketch stays readable");
      assertTrue(s.sizeBytes() > 0 && s.pageCount() > 0);
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

  /**
   * A RAM budget whose update buffers the heap cannot hold is refused, and no file is left. Before,
   * a one-page sketch given 64 GiB allocated 16 GiB of buffers at once: OutOfMemoryError (with a
   * 3 GiB heap), which any other thread of the process could have met instead.
   */
  @Test
  void aBudgetWhoseBuffersTheHeapCannotHoldIsRefused() throws Exception {
    Path path = dir.resolve("too-much-memory.cms");
    IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
        () -> BufferedCountMinSketch.create(path, SketchParameters.ofDimensions(100, 4), 64L << 30).close());
    assertTrue(refused.getMessage().contains("more than the heap can hold"), refused.getMessage());
    assertFalse(Files.exists(path), "nothing is created");
  }
}
