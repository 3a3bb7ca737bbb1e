package io.varve.reader;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.builder.BuildSummary;
import io.varve.builder.DuplicateKeyException;
import io.varve.builder.DuplicatePolicy;
import io.varve.builder.StoreBuilder;
import io.varve.core.testing.TestRecords;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Builds stores from random records and checks every lookup against a {@link HashMap}. */
class StoreRoundTripTest {
  private static final long SEED = 0x5707EL;

  @TempDir Path temp;

  BuildSummary build(Path dir, Map<ByteBuffer, byte[]> records, long memory) throws IOException {
    try (StoreBuilder builder = StoreBuilder.create(dir).memoryBudget(memory)) {
      for (Map.Entry<ByteBuffer, byte[]> e : records.entrySet()) {
        builder.put(e.getKey().array(), e.getValue());
      }
      return builder.build();
    }
  }

  static void checkAgainst(Store store, Map<ByteBuffer, byte[]> expected, long absentSeed, int absentCount) {
    assertEquals(expected.size(), store.size());
    HashSet<Long> ranks = new HashSet<>();
    byte[] target = new byte[80];
    for (Map.Entry<ByteBuffer, byte[]> e : expected.entrySet()) {
      byte[] key = e.getKey().array();
      assertArrayEquals(e.getValue(), store.get(key), "value of a stored key");
      long i = store.indexOf(key);
      assertTrue(i >= 0 && i < expected.size() && ranks.add(i), "indexOf gives a distinct position");
      assertArrayEquals(key, store.keyAt(i));
      assertArrayEquals(e.getValue(), store.valueAt(i));
      int length = store.get(key, 0, key.length, target, 3);
      assertEquals(e.getValue().length, length);
      if (length <= target.length - 3) {
        assertArrayEquals(e.getValue(), java.util.Arrays.copyOfRange(target, 3, 3 + length));
      }
    }
    List<byte[]> all = new java.util.ArrayList<>();
    expected.keySet().forEach(k -> all.add(k.array()));
    SplittableRandom mix = new SplittableRandom(absentSeed - 1);
    for (int i = 0; i < Math.min(absentCount, 100); i++) {
      all.add(TestRecords.upTo(mix, 70));
    }
    byte[][] batch = all.toArray(new byte[0][]);
    byte[][] values = new byte[batch.length][];
    store.getAll(batch, values);
    for (int i = 0; i < batch.length; i++) {
      assertArrayEquals(expected.get(TestRecords.key(batch[i])), values[i], "getAll of key " + i);
    }
    SplittableRandom random = new SplittableRandom(absentSeed);
    for (int i = 0; i < absentCount; i++) {
      byte[] key = TestRecords.upTo(random, 70);
      if (!expected.containsKey(TestRecords.key(key))) {
        assertNull(store.get(key));
        assertEquals(-1, store.indexOf(key));
        assertFalse(store.contains(key));
        assertEquals(-1, store.get(key, 0, key.length, target, 0));
      }
    }
    StoreCursor cursor = store.cursor();
    long seen = 0;
    while (cursor.next()) {
      assertEquals(seen, cursor.index());
      assertArrayEquals(expected.get(TestRecords.key(cursor.key())), cursor.value());
      seen++;
    }
    assertEquals(expected.size(), seen);
  }

  @ParameterizedTest
  @ValueSource(ints = {0, 1, 2, 3, 100, 10_000})
  void randomRecordsRoundTrip(int n) throws IOException {
    long seed = SEED + n;
    System.out.println("StoreRoundTripTest n=" + n + " seed=" + seed);
    Map<ByteBuffer, byte[]> records = TestRecords.variable(n, seed, 64, 64);
    Path dir = temp.resolve("store");
    BuildSummary summary = build(dir, records, StoreBuilder.DEFAULT_MEMORY_BUDGET);
    assertEquals(0, summary.spills());
    try (Store store = Store.open(dir)) {
      checkAgainst(store, records, seed + 1, 1000);
      store.verify();
    }
    assertNoLeftovers();
  }

  /**
   * A data file past its first 64 MiB goes to the device past the page cache by default (where the
   * file system takes that): what is read back is what was put, with every file's checksum right.
   */
  @ParameterizedTest(name = "fixedSize={0}")
  @ValueSource(booleans = {false, true})
  void dataFileLargerThanItsCachedHead(boolean fixedSize) throws IOException {
    long seed = SEED + (fixedSize ? 11 : 12);
    System.out.println("dataFileLargerThanItsCachedHead fixedSize=" + fixedSize + " seed=" + seed);
    int n = 80_000;
    Map<ByteBuffer, byte[]> records = fixedSize ? TestRecords.fixed(n, seed, 16, 1_000) : TestRecords.variable(n, seed, 40, 2_000);
    Path dir = temp.resolve("store");
    BuildSummary summary = build(dir, records, 8 << 20);
    assertTrue(summary.spills() > 0, "spilled " + summary.spills() + " runs");
    assertTrue(Files.size(dir.resolve("data")) > (72 << 20), "a data file past the cached head: " + Files.size(dir.resolve("data")));
    try (Store store = Store.open(dir)) {
      checkAgainst(store, records, seed + 1, 10_000);
      store.verify();
    }
    assertNoLeftovers();
  }

  @Test
  void spillsAndMergesInSmallMemory() throws IOException {
    long seed = SEED + 7;
    System.out.println("spillsAndMergesInSmallMemory seed=" + seed);
    Map<ByteBuffer, byte[]> records = TestRecords.variable(200_000, seed, 64, 64);
    Path dir = temp.resolve("store");
    BuildSummary summary = build(dir, records, StoreBuilder.MIN_MEMORY_BUDGET);
    assertTrue(summary.spills() > 10, "spilled " + summary.spills() + " runs");
    try (Store store = Store.open(dir)) {
      checkAgainst(store, records, seed + 1, 10_000);
    }
    assertNoLeftovers();
  }

  @Test
  void fixedSizeRecordsHaveNoOffsets() throws IOException {
    SplittableRandom random = new SplittableRandom(SEED + 11);
    Map<ByteBuffer, byte[]> records = new HashMap<>();
    while (records.size() < 50_000) {
      byte[] key = new byte[16];
      byte[] value = new byte[8];
      random.nextBytes(key);
      random.nextBytes(value);
      records.put(TestRecords.key(key), value);
    }
    Path dir = temp.resolve("fixed");
    build(dir, records, StoreBuilder.MIN_MEMORY_BUDGET);
    assertFalse(Files.exists(dir.resolve("offsets")));
    try (Store store = Store.open(dir)) {
      assertTrue(store.meta().isFixedSize());
      assertEquals(0, store.stats().offsetsBits());
      checkAgainst(store, records, SEED + 12, 10_000);
      store.verify();
    }
  }

  @Test
  void emptyKeysEmptyValuesNonAsciiAndHugeValues() throws IOException {
    Map<ByteBuffer, byte[]> records = new HashMap<>();
    records.put(TestRecords.key(new byte[0]), new byte[0]);
    records.put(TestRecords.key("schlüssel-κλειδί-鍵-🔑".getBytes(StandardCharsets.UTF_8)), "värde".getBytes(StandardCharsets.UTF_8));
    records.put(TestRecords.key(new byte[] {0, 0, 0}), new byte[] {(byte) 0xFF});
    byte[] huge = new byte[5 << 20];
    new SplittableRandom(SEED + 13).nextBytes(huge);
    records.put(TestRecords.key("huge".getBytes(StandardCharsets.UTF_8)), huge);
    byte[] hugeKey = new byte[3 << 20];
    new SplittableRandom(SEED + 14).nextBytes(hugeKey);
    records.put(TestRecords.key(hugeKey), "small".getBytes(StandardCharsets.UTF_8));
    Path dir = temp.resolve("edge");
    build(dir, records, StoreBuilder.MIN_MEMORY_BUDGET);
    try (Store store = Store.open(dir)) {
      checkAgainst(store, records, SEED + 15, 100);
      byte[] small = new byte[10];
      assertEquals(huge.length, store.get("huge".getBytes(StandardCharsets.UTF_8), 0, 4, small, 0), "length reported when it does not fit");
      store.verify();
    }
  }

  @Test
  void lastWinsKeepsTheLastValueAcrossSpills() throws IOException {
    long seed = SEED + 17;
    SplittableRandom random = TestRecords.seeded("lastWinsKeepsTheLastValueAcrossSpills", seed);
    Map<ByteBuffer, byte[]> expected = new HashMap<>();
    Path dir = temp.resolve("dups");
    long puts = 0;
    try (StoreBuilder builder = StoreBuilder.create(dir).memoryBudget(StoreBuilder.MIN_MEMORY_BUDGET).duplicates(DuplicatePolicy.LAST_WINS)) {
      for (int i = 0; i < 150_000; i++) {
        byte[] key = ("key-" + random.nextInt(40_000)).getBytes(StandardCharsets.UTF_8);
        byte[] value = TestRecords.upTo(random, 40);
        builder.put(key, value);
        expected.put(TestRecords.key(key), value);
        puts++;
      }
      BuildSummary summary = builder.build();
      assertEquals(puts - expected.size(), summary.duplicatesDropped());
      assertTrue(summary.spills() > 1);
    }
    try (Store store = Store.open(dir)) {
      checkAgainst(store, expected, seed + 1, 1000);
    }
    assertNoLeftovers();
  }

  @Test
  void duplicateKeysFailShowingTheKeyAndLeaveNothing() throws IOException {
    Path dir = temp.resolve("fail");
    try (StoreBuilder builder = StoreBuilder.create(dir)) {
      builder.put("alpha".getBytes(StandardCharsets.UTF_8), new byte[] {1});
      builder.put("beta".getBytes(StandardCharsets.UTF_8), new byte[] {2});
      builder.put("alpha".getBytes(StandardCharsets.UTF_8), new byte[] {3});
      DuplicateKeyException e = assertThrows(DuplicateKeyException.class, builder::build);
      assertTrue(e.getMessage().contains("\"alpha\""), e.getMessage());
    }
    assertFalse(Files.exists(dir));
    assertNoLeftovers();
  }

  @Test
  void usingAClosedStoreFailsClearly() throws IOException {
    Path dir = temp.resolve("closed");
    build(dir, TestRecords.variable(10, SEED + 19, 8, 8), StoreBuilder.MIN_MEMORY_BUDGET);
    Store store = Store.open(dir);
    store.close();
    store.close();
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> store.get(new byte[1]));
    assertTrue(e.getMessage().contains("closed"));
    assertThrows(IllegalStateException.class, store::stats);
    assertThrows(IllegalStateException.class, () -> store.keyAt(0));
  }

  @Test
  void existingTargetIsRefused() throws IOException {
    Path dir = Files.createDirectory(temp.resolve("exists"));
    assertThrows(java.nio.file.FileAlreadyExistsException.class, () -> StoreBuilder.create(dir));
  }

  void assertNoLeftovers() throws IOException {
    try (Stream<Path> files = Files.list(temp)) {
      List<String> names = files.map(p -> p.getFileName().toString()).filter(n -> n.startsWith(".")).toList();
      assertEquals(List.of(), names, "temporary files left behind");
    }
  }
}
