package io.varve.builder;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.core.store.RecordFormat;
import io.varve.core.testing.TestRecords;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Budget accounting, ordering and reuse of {@link RecordBuffer}. */
class RecordBufferTest {
  private static final long SEED = 0xB0FFE2L;

  /** One record as the test put it. */
  record Rec(long hi, long lo, byte[] key, byte[] value, int order) {
    int length() {
      return RecordFormat.headerLength(key.length, value.length) + key.length + value.length;
    }
  }

  private static byte[] bytes(SplittableRandom random, int length) {
    byte[] b = new byte[length];
    random.nextBytes(b);
    return b;
  }

  private static Rec randomRecord(SplittableRandom random, int order, int maxKey, int maxValue) {
    long hi;
    long lo;
    if (random.nextInt(8) == 0) {
      hi = random.nextInt(3) - 1; // repeated hashes, some with the top bit set
      lo = random.nextInt(2);
    } else {
      hi = random.nextLong();
      lo = random.nextLong();
    }
    return new Rec(hi, lo, bytes(random, random.nextInt(maxKey + 1)), bytes(random, random.nextInt(maxValue + 1)), order);
  }

  private static boolean add(RecordBuffer buffer, Rec r) {
    // Pass the arrays with slack around them, to exercise offsets.
    byte[] key = new byte[r.key.length + 3];
    System.arraycopy(r.key, 0, key, 2, r.key.length);
    byte[] value = new byte[r.value.length + 5];
    System.arraycopy(r.value, 0, value, 4, r.value.length);
    return buffer.add(r.hi, r.lo, key, 2, r.key.length, value, 4, r.value.length);
  }

  /** Sorts the buffer and checks it against the stable hash order of {@code added}. */
  private static void checkSorted(RecordBuffer buffer, List<Rec> added) {
    buffer.sort();
    assertTrue(buffer.isSorted());
    List<Rec> expected = new ArrayList<>(added);
    expected.sort(
        Comparator.<Rec, Long>comparing(Rec::hi, Long::compareUnsigned).thenComparing(Rec::lo, Long::compareUnsigned)); // stable
    assertEquals(expected.size(), buffer.size());
    RecordSlice slice = new RecordSlice();
    for (int i = 0; i < expected.size(); i++) {
      Rec r = expected.get(i);
      assertEquals(r.hi, buffer.hi(i), "hi at " + i);
      assertEquals(r.lo, buffer.lo(i), "lo at " + i);
      buffer.record(i, slice);
      assertEquals(r.length(), slice.length());
      assertArrayEquals(r.key, slice.key(), "key at " + i + " (input order " + r.order + ")");
      assertArrayEquals(
          r.value, Arrays.copyOfRange(slice.bytes, slice.valueOffset(), slice.valueOffset() + slice.valueLength), "value at " + i);
    }
    // Also through the RecordCursor view used by the merge.
    RecordCursor view = RecordCursor.of(buffer);
    int i = 0;
    try {
      while (view.next()) {
        assertEquals(expected.get(i).hi, view.hi);
        assertArrayEquals(expected.get(i).key, view.record.key());
        i++;
      }
    } catch (java.io.IOException e) {
      throw new AssertionError(e);
    }
    assertEquals(expected.size(), i);
  }

  /**
   * Fills the buffer until it refuses a record, checking the budget after every add; returns the
   * records added.
   */
  private static List<Rec> fill(RecordBuffer buffer, long budget, SplittableRandom random, int maxKey, int maxValue, int bigEvery) {
    // Larger than any page (pages are at most an eighth of the budget): the own-page path.
    int bigSize = (int) Math.max(4096, budget / 8) + 1000;
    List<Rec> added = new ArrayList<>();
    int order = 0;
    while (true) {
      Rec r =
          bigEvery > 0 && order % bigEvery == bigEvery - 1
              ? new Rec(random.nextLong(), random.nextLong(), bytes(random, 10), bytes(random, bigSize + random.nextInt(50_000)), order)
              : randomRecord(random, order, maxKey, maxValue);
      long before = buffer.memoryBytes();
      boolean accepted = add(buffer, r);
      if (!accepted) {
        assertTrue(buffer.size() > 0, "an empty buffer must accept any record");
        assertEquals(before, buffer.memoryBytes(), "a refused record changes nothing");
        assertEquals(added.size(), buffer.size());
        // Refusal is not premature: the records and their per-record arrays use a good part of it.
        long used = 0;
        for (Rec a : added) {
          used += a.length() + 48;
        }
        assertTrue(used + r.length() + 48 > budget / 3, "refused at " + used + " of " + budget);
        return added;
      }
      added.add(r);
      order++;
      assertEquals(added.size(), buffer.size());
      long memory = buffer.memoryBytes();
      if (buffer.size() >= 2) {
        assertTrue(memory <= budget, "memory " + memory + " over budget " + budget + " with " + buffer.size() + " records");
      } else {
        assertTrue(memory <= budget + r.length(), "memory " + memory + " more than one record over budget " + budget);
      }
    }
  }

  @ParameterizedTest(name = "budget={0}")
  @ValueSource(longs = {128 << 10, 1 << 20, 3_000_000, 8 << 20})
  void addsUntilRefusedWithinBudget(long budget) {
    long seed = SEED + budget;
    SplittableRandom random = TestRecords.seeded("RecordBufferTest.addsUntilRefusedWithinBudget budget=" + budget, seed);
    RecordBuffer buffer = new RecordBuffer(budget);
    assertEquals(0, buffer.size());
    assertTrue(buffer.isSorted());
    List<Rec> added = fill(buffer, budget, random, 40, 300, 0);
    assertTrue(added.size() > 100, "added " + added.size());
    // Sorting allocates the scratch arrays, which the footprint already counted.
    buffer.sort();
    assertTrue(buffer.memoryBytes() <= budget, "sort stays within budget");
    checkSorted(buffer, added);
  }

  @ParameterizedTest(name = "budget={0}")
  @ValueSource(longs = {1 << 20, 4 << 20})
  void mixesRecordsLargerThanAPage(long budget) {
    long seed = SEED + 3 * budget;
    SplittableRandom random = TestRecords.seeded("RecordBufferTest.mixesRecordsLargerThanAPage budget=" + budget, seed);
    RecordBuffer buffer = new RecordBuffer(budget);
    for (int round = 0; round < 4; round++) {
      List<Rec> added = fill(buffer, budget, random, 30, 200, 7);
      checkSorted(buffer, added);
      buffer.clear();
      assertEquals(0, buffer.size());
      assertTrue(buffer.memoryBytes() <= budget, "clear keeps at most the budget");
    }
  }

  @Test
  void recordLargerThanTheBudgetIsAcceptedWhenEmpty() {
    long budget = 1 << 20;
    SplittableRandom random = new SplittableRandom(SEED + 5);
    System.out.println("RecordBufferTest.recordLargerThanTheBudgetIsAcceptedWhenEmpty seed=" + (SEED + 5));
    RecordBuffer buffer = new RecordBuffer(budget);
    Rec huge = new Rec(7, 8, bytes(random, 100), bytes(random, 3 << 20), 0);
    assertTrue(add(buffer, huge), "an empty buffer takes a record larger than the budget");
    assertTrue(buffer.memoryBytes() <= budget + huge.length(), "at most one record over: " + buffer.memoryBytes());
    Rec small = new Rec(1, 2, bytes(random, 5), bytes(random, 5), 1);
    assertFalse(add(buffer, small), "nothing more fits after it");
    checkSorted(buffer, List.of(huge));

    // Once cleared, the huge page is dropped and the buffer is back within budget.
    buffer.clear();
    assertTrue(buffer.memoryBytes() <= budget, "the large page is released by clear(): " + buffer.memoryBytes());
    List<Rec> again = fill(buffer, budget, random, 20, 100, 0);
    checkSorted(buffer, again);

    // A record larger than the budget is refused by a non-empty buffer.
    buffer.clear();
    assertTrue(add(buffer, small));
    assertFalse(add(buffer, new Rec(3, 4, bytes(random, 1), bytes(random, 2 << 20), 2)));
    // ... and accepted again after a clear, next to the kept pages.
    buffer.clear();
    Rec huge2 = new Rec(9, 9, bytes(random, 3), bytes(random, (1 << 20) + 17), 0);
    assertTrue(add(buffer, huge2));
    assertTrue(buffer.memoryBytes() <= budget + huge2.length(), "at most one record over: " + buffer.memoryBytes());
    checkSorted(buffer, List.of(huge2));
  }

  @Test
  void emptyKeysAndValues() {
    RecordBuffer buffer = new RecordBuffer(1 << 20);
    List<Rec> added = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      Rec r = new Rec(i % 3, 0, new byte[i % 2], new byte[0], i);
      assertTrue(add(buffer, r));
      added.add(r);
    }
    checkSorted(buffer, added);
  }

  @Test
  void clearAndReuseManyTimes() {
    long budget = 1 << 20;
    long seed = SEED + 11;
    SplittableRandom random = TestRecords.seeded("RecordBufferTest.clearAndReuseManyTimes", seed);
    RecordBuffer buffer = new RecordBuffer(budget);
    long firstFullMemory = -1;
    for (int round = 0; round < 10; round++) {
      List<Rec> added = fill(buffer, budget, random, 16, 64, 0);
      if (firstFullMemory < 0) {
        firstFullMemory = buffer.memoryBytes();
      }
      checkSorted(buffer, added);
      // Reuse does not grow the footprint.
      assertTrue(buffer.memoryBytes() <= budget);
      buffer.clear();
      assertEquals(0, buffer.size());
      // Half-filled reuse.
      List<Rec> few = new ArrayList<>();
      for (int i = 0; i < 100; i++) {
        Rec r = randomRecord(random, i, 16, 64);
        assertTrue(add(buffer, r));
        few.add(r);
      }
      checkSorted(buffer, few);
      buffer.clear();
    }
    buffer.release();
    assertEquals(0, buffer.memoryBytes());
    assertEquals(0, buffer.size());
    Rec r = randomRecord(random, 0, 16, 64);
    assertTrue(add(buffer, r), "usable after release");
    checkSorted(buffer, List.of(r));
  }

  /** A buffer loading one hash-prefix partition: records share the top bits; sorting still right. */
  @ParameterizedTest(name = "prefix={0}")
  @ValueSource(ints = {8, 16, 48, 56, 64, 72})
  void buffersForRecordsSharingAPrefix(int prefix) {
    long seed = SEED + 17 * prefix;
    SplittableRandom random = TestRecords.seeded("RecordBufferTest.buffersForRecordsSharingAPrefix prefix=" + prefix, seed);
    long budget = 4 << 20;
    long commonHi = random.nextLong();
    long hiMask = prefix >= 64 ? -1L : -1L << (64 - prefix);
    long loMask = prefix <= 64 ? 0 : -1L << (128 - prefix);
    long commonLo = random.nextLong();
    RecordBuffer buffer = new RecordBuffer(budget, prefix);
    for (int round = 0; round < 3; round++) {
      List<Rec> added = new ArrayList<>();
      for (int i = 0; ; i++) {
        Rec r = randomRecord(random, i, 20, 100);
        Rec shared = new Rec((commonHi & hiMask) | (r.hi & ~hiMask), (commonLo & loMask) | (r.lo & ~loMask), r.key, r.value, i);
        if (!add(buffer, shared)) {
          break;
        }
        added.add(shared);
        assertTrue(buffer.size() < 2 || buffer.memoryBytes() <= budget);
      }
      checkSorted(buffer, added);
      // The next round: the same buffer, told about the prefix again (as the builder reuses it).
      buffer.clear(prefix);
    }
  }

  @Test
  void unsortedBufferCannotBeViewed() {
    RecordBuffer buffer = new RecordBuffer(1 << 20);
    add(buffer, new Rec(5, 0, new byte[1], new byte[1], 0));
    add(buffer, new Rec(1, 0, new byte[1], new byte[1], 1));
    assertFalse(buffer.isSorted());
    assertThrows(IllegalStateException.class, () -> RecordCursor.of(buffer));
  }
}
