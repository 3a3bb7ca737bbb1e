package io.varve.reader;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.builder.DuplicatePolicy;
import io.varve.builder.MergeSummary;
import io.varve.builder.StoreBuilder;
import io.varve.builder.StoreMerger;
import io.varve.core.files.FileTrees;
import io.varve.core.store.PageCacheWrites;
import io.varve.core.format.CorruptStoreException;
import io.varve.core.store.StoreFile;
import io.varve.core.testing.FileDamage;
import io.varve.core.testing.MergeModel;
import io.varve.core.testing.TestRecords;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link StoreMerger} against a {@code HashMap} model, read back through {@link Store}. */
class StoreMergerTest {
  private static final long BUDGET = StoreBuilder.MIN_MEMORY_BUDGET;

  @TempDir Path temp;

  /** One operation of a batch: a put (value non-null) or a delete. */
  private record Operation(byte[] key, byte[] value) {}

  @Test
  void twentyRoundsOfUpsertsAndDeletesMatchAHashMap() throws IOException {
    long seed = 0x3E5CE7L;
    SplittableRandom random = TestRecords.seeded("StoreMergerTest rounds", seed);
    List<byte[]> pool = keyPool(random, 60_000);
    Map<ByteBuffer, byte[]> model = new HashMap<>();
    Path current = temp.resolve("round-0");
    try (StoreBuilder builder = StoreBuilder.create(current).memoryBudget(BUDGET).duplicates(DuplicatePolicy.LAST_WINS)) {
      for (int i = 0; i < 3_000; i++) {
        byte[] key = pool.get(random.nextInt(pool.size()));
        byte[] value = TestRecords.upTo(random, 40);
        model.put(TestRecords.key(key), value);
        builder.put(key, value);
      }
      builder.build();
    }
    int spilledRounds = 0;
    for (int round = 1; round <= 20; round++) {
      // Rounds 4, 11 and 17 are larger than the memory budget: the batch spills.
      boolean large = round % 7 == 4;
      int operations = large ? 45_000 : 200 + random.nextInt(4_000);
      List<Operation> batch = new ArrayList<>();
      List<byte[]> present = new ArrayList<>();
      model.keySet().forEach(k -> present.add(k.array()));
      for (int i = 0; i < operations; i++) {
        int kind = random.nextInt(10);
        byte[] key =
            kind < 3 && !present.isEmpty() ? present.get(random.nextInt(present.size())) : pool.get(random.nextInt(pool.size()));
        byte[] value = kind < 6 ? TestRecords.upTo(random, large ? 120 : 60) : null;
        batch.add(new Operation(key, value));
      }
      Path next = temp.resolve("round-" + round);
      MergeSummary summary = merge(current, next, batch);
      MergeModel.Counts expected = apply(model, batch);
      assertEquals(expected.inserted(), summary.inserted(), "round " + round + " inserted");
      assertEquals(expected.replaced(), summary.replaced(), "round " + round + " replaced");
      assertEquals(expected.deleted(), summary.deleted(), "round " + round + " deleted");
      assertEquals(expected.absentDeletes(), summary.absentDeletes(), "round " + round + " absent deletes");
      assertEquals(model.size(), summary.meta().recordCount());
      if (large) {
        spilledRounds++;
        assertTrue(operations * 100L > BUDGET, "a large batch exceeds the budget");
      }
      try (Store store = Store.open(next)) {
        StoreRoundTripTest.checkAgainst(store, model, seed + round, 500);
        store.verify();
      }
      FileTrees.deleteTree(current);
      current = next;
    }
    assertEquals(3, spilledRounds);
    assertNoLeftovers();
  }

  @Test
  void severalStoresMergeNewestFirst() throws IOException {
    long seed = 0x5EBE2A1L;
    SplittableRandom random = TestRecords.seeded("StoreMergerTest several stores", seed);
    List<byte[]> pool = keyPool(random, 3_000);
    Map<ByteBuffer, byte[]> model = new HashMap<>();
    List<Path> stores = new ArrayList<>();
    long overlaps = 0;
    for (int s = 0; s < 3; s++) {
      Map<ByteBuffer, byte[]> records = new LinkedHashMap<>();
      for (int i = 0; i < 1_500; i++) {
        records.put(TestRecords.key(pool.get(random.nextInt(pool.size()))), TestRecords.upTo(random, 30));
      }
      for (ByteBuffer key : records.keySet()) {
        if (model.containsKey(key)) {
          overlaps++;
        }
      }
      model.putAll(records);
      Path dir = temp.resolve("part-" + s);
      build(dir, records);
      stores.add(dir);
    }
    List<Operation> batch = new ArrayList<>();
    for (int i = 0; i < 800; i++) {
      batch.add(new Operation(pool.get(random.nextInt(pool.size())), random.nextBoolean() ? null : new byte[] {(byte) i}));
    }
    MergeSummary summary;
    try (StoreMerger merger = StoreMerger.create(temp.resolve("merged")).memoryBudget(BUDGET)) {
      for (Path store : stores) {
        merger.base(store);
      }
      feed(merger, batch);
      summary = merger.merge();
    }
    apply(model, batch);
    assertEquals(overlaps, summary.superseded(), "older records replaced by newer stores");
    try (Store store = Store.open(temp.resolve("merged"))) {
      StoreRoundTripTest.checkAgainst(store, model, seed + 1, 500);
    }
  }

  @Test
  void fixedSizeStaysFixedUnlessAnUpsertChangesTheSize() throws IOException {
    Map<ByteBuffer, byte[]> model = new HashMap<>();
    Path base = temp.resolve("fixed");
    SplittableRandom random = new SplittableRandom(0xF1C5EDL);
    for (int i = 0; i < 2_000; i++) {
      model.put(TestRecords.key(longBytes(i)), longBytes(random.nextLong()));
    }
    build(base, model);
    List<Operation> sameSize = new ArrayList<>();
    for (int i = 1_500; i < 2_500; i++) {
      sameSize.add(new Operation(longBytes(i), i % 3 == 0 ? null : longBytes(-i)));
    }
    Path fixed = temp.resolve("still-fixed");
    MergeSummary summary = merge(base, fixed, sameSize);
    assertTrue(summary.meta().isFixedSize());
    Map<ByteBuffer, byte[]> fixedModel = new HashMap<>(model);
    apply(fixedModel, sameSize);
    try (Store store = Store.open(fixed)) {
      StoreRoundTripTest.checkAgainst(store, fixedModel, 1, 300);
    }
    List<Operation> otherSize = List.of(new Operation(longBytes(7), new byte[] {1, 2, 3}), new Operation(new byte[0], new byte[0]));
    Path variable = temp.resolve("variable");
    assertFalse(merge(fixed, variable, otherSize).meta().isFixedSize());
    apply(fixedModel, otherSize);
    try (Store store = Store.open(variable)) {
      StoreRoundTripTest.checkAgainst(store, fixedModel, 2, 300);
    }
  }

  /** How the data file reaches the kernel changes no byte of a merged store. */
  @Test
  void hugePageWritesMergeTheSameStore() throws IOException {
    System.out.println("StoreMergerTest huge-page writes seeds 0x2A1E5, 0x2A1E6");
    Map<ByteBuffer, byte[]> model = TestRecords.variable(30_000, 0x2A1E5L, 16, 300);
    Path base = temp.resolve("base");
    build(base, model);
    List<Operation> batch = new ArrayList<>();
    SplittableRandom random = new SplittableRandom(0x2A1E6L);
    for (int i = 0; i < 2_000; i++) {
      batch.add(new Operation(longBytes(random.nextLong()), TestRecords.upTo(random, 300)));
    }
    Path small = temp.resolve("small");
    Path huge = temp.resolve("huge");
    try (StoreMerger merger = StoreMerger.create(small).base(base).memoryBudget(BUDGET).recordCheckSalt(0x2A1E7L)) {
      feed(merger, batch);
      merger.merge();
    }
    try (StoreMerger merger =
        StoreMerger.create(huge).base(base).memoryBudget(BUDGET).recordCheckSalt(0x2A1E7L).dataWrites(PageCacheWrites.HUGE_PAGES)) {
      feed(merger, batch);
      merger.merge();
    }
    assertTrue(Files.size(huge.resolve("data")) > 4 << 20, "spans several 2 MiB writes");
    for (String file : new String[] {"data", "offsets", "index", "pages"}) {
      assertEquals(Files.exists(small.resolve(file)), Files.exists(huge.resolve(file)), file);
      if (Files.exists(small.resolve(file))) {
        assertEquals(-1L, Files.mismatch(small.resolve(file), huge.resolve(file)), file);
      }
    }
    apply(model, batch);
    try (Store store = Store.open(huge)) {
      StoreRoundTripTest.checkAgainst(store, model, 3, 500);
    }
    try (StoreMerger merger = StoreMerger.create(temp.resolve("x"));
        StoreBuilder builder = StoreBuilder.create(temp.resolve("y"))) {
      assertThrows(NullPointerException.class, () -> merger.dataWrites(null));
      assertThrows(NullPointerException.class, () -> builder.dataWrites(null));
    }
  }

  @Test
  void deletingEverythingLeavesAnEmptyStoreThatMergesOn() throws IOException {
    Map<ByteBuffer, byte[]> model = TestRecords.variable(500, 0xE3B7L, 12, 12);
    Path base = temp.resolve("base");
    build(base, model);
    List<Operation> deletes = new ArrayList<>();
    model.keySet().forEach(k -> deletes.add(new Operation(k.array(), null)));
    Path empty = temp.resolve("empty");
    MergeSummary summary = merge(base, empty, deletes);
    assertEquals(0, summary.meta().recordCount());
    assertEquals(500, summary.deleted());
    try (Store store = Store.open(empty)) {
      StoreRoundTripTest.checkAgainst(store, Map.of(), 3, 200);
    }
    Path refilled = temp.resolve("refilled");
    List<Operation> reinserts = new ArrayList<>();
    model.forEach((k, v) -> reinserts.add(new Operation(k.array(), v)));
    merge(empty, refilled, reinserts);
    try (Store store = Store.open(refilled)) {
      StoreRoundTripTest.checkAgainst(store, model, 4, 200);
    }
    Path unchanged = temp.resolve("unchanged");
    MergeSummary nothing = merge(refilled, unchanged, List.of());
    assertEquals(0, nothing.operations());
    try (Store store = Store.open(unchanged)) {
      StoreRoundTripTest.checkAgainst(store, model, 5, 200);
    }
  }

  @Test
  void userMetadataAndParametersCarryOver() throws IOException {
    Path base = temp.resolve("base");
    try (StoreBuilder builder =
        StoreBuilder.create(base).pageAlignment(512).indexParameters(new io.varve.core.ect.EctParameters(16, 16, 1))) {
      builder.metadata("owner", "team-a").metadata("kept", "yes");
      builder.put(new byte[] {1}, new byte[] {2});
      builder.build();
    }
    MergeSummary summary;
    try (StoreMerger merger = StoreMerger.create(temp.resolve("merged")).base(base)) {
      merger.metadata("owner", "team-b");
      merger.put(new byte[] {3}, new byte[] {4});
      summary = merger.merge();
    }
    assertEquals(Map.of("owner", "team-b", "kept", "yes"), summary.meta().userMetadata());
    assertEquals(512, summary.meta().pageBytes());
    assertEquals(new io.varve.core.ect.EctParameters(16, 16, 1), summary.meta().indexParameters());
  }

  @Test
  void aDamagedOldStoreFailsTheMergeAndPublishesNothing() throws IOException {
    Map<ByteBuffer, byte[]> records = TestRecords.variable(2_000, 0xDA3A6EL, 20, 20);
    Path base = temp.resolve("base");
    build(base, records);
    Path data = base.resolve(StoreFile.DATA.fileName());
    FileDamage.flipBits(data, StoreFile.DATA_PAYLOAD_OFFSET + Files.size(data) / 3, 0x20);
    Path target = temp.resolve("merged");
    try (StoreMerger merger = StoreMerger.create(target).base(base)) {
      merger.put(new byte[] {9}, new byte[] {9});
      assertThrows(CorruptStoreException.class, merger::merge);
    }
    assertFalse(Files.exists(target));
    assertNoLeftovers();
  }

  @Test
  void misuseIsRejectedClearly() throws IOException {
    Path base = temp.resolve("base");
    build(base, Map.of(TestRecords.key(new byte[] {1}), new byte[] {1}));
    Path otherSeed = temp.resolve("other-seed");
    try (StoreBuilder builder = StoreBuilder.create(otherSeed).seed(42)) {
      builder.put(new byte[] {1}, new byte[] {1});
      builder.build();
    }
    try (StoreMerger merger = StoreMerger.create(temp.resolve("a")).base(base)) {
      IllegalArgumentException seeds = assertThrows(IllegalArgumentException.class, () -> merger.base(otherSeed));
      assertTrue(seeds.getMessage().contains("seed"), seeds.getMessage());
    }
    assertThrows(FileAlreadyExistsException.class, () -> StoreMerger.create(base));
    try (StoreMerger merger = StoreMerger.create(temp.resolve("b"))) {
      assertThrows(IllegalStateException.class, () -> merger.put(new byte[] {1}, new byte[] {1}));
      assertThrows(IllegalStateException.class, merger::merge);
    }
    try (StoreMerger merger = StoreMerger.create(temp.resolve("c")).base(base)) {
      merger.delete(new byte[] {1});
      assertThrows(IllegalStateException.class, () -> merger.memoryBudget(BUDGET));
      merger.merge();
      assertThrows(IllegalStateException.class, () -> merger.put(new byte[] {2}, new byte[] {2}));
      assertThrows(IllegalStateException.class, merger::merge);
    }
    StoreMerger closed = StoreMerger.create(temp.resolve("d")).base(base);
    closed.close();
    assertThrows(IllegalStateException.class, () -> closed.delete(new byte[] {1}));
    assertNoLeftovers();
  }

  /** Applies a batch to the model (last operation per key wins) and counts what it did. */
  private static MergeModel.Counts apply(Map<ByteBuffer, byte[]> model, List<Operation> batch) {
    Map<ByteBuffer, byte[]> last = new LinkedHashMap<>();
    for (Operation op : batch) {
      last.put(TestRecords.key(op.key()), op.value());
    }
    return MergeModel.apply(model, last);
  }

  private MergeSummary merge(Path base, Path target, List<Operation> batch) throws IOException {
    try (StoreMerger merger = StoreMerger.create(target).base(base).memoryBudget(BUDGET)) {
      feed(merger, batch);
      MergeSummary summary = merger.merge();
      assertEquals(batch.size(), summary.operations());
      return summary;
    }
  }

  private static void feed(StoreMerger merger, List<Operation> batch) throws IOException {
    for (Operation op : batch) {
      if (op.value() == null) {
        merger.delete(op.key());
      } else {
        merger.put(op.key(), op.value());
      }
    }
  }

  private void build(Path dir, Map<ByteBuffer, byte[]> records) throws IOException {
    try (StoreBuilder builder = StoreBuilder.create(dir).memoryBudget(BUDGET)) {
      for (Map.Entry<ByteBuffer, byte[]> e : records.entrySet()) {
        builder.put(e.getKey().array(), e.getValue());
      }
      builder.build();
    }
  }

  /** Distinct random keys: the empty key, non-ASCII bytes, lengths 0 to 24. */
  private static List<byte[]> keyPool(SplittableRandom random, int n) {
    Map<ByteBuffer, byte[]> distinct = new LinkedHashMap<>();
    distinct.put(TestRecords.key(new byte[0]), new byte[0]);
    distinct.put(TestRecords.key("ключ-€".getBytes(java.nio.charset.StandardCharsets.UTF_8)), null);
    while (distinct.size() < n) {
      byte[] key = TestRecords.upTo(random, 24);
      distinct.put(TestRecords.key(key), key);
    }
    List<byte[]> keys = new ArrayList<>();
    distinct.keySet().forEach(k -> keys.add(k.array()));
    return keys;
  }

  private static byte[] longBytes(long v) {
    return ByteBuffer.allocate(8).putLong(v).array();
  }

  /** No staging directory or temporary merge directory is left beside the stores. */
  private void assertNoLeftovers() throws IOException {
    try (Stream<Path> files = Files.list(temp)) {
      List<String> hidden = files.map(p -> p.getFileName().toString()).filter(n -> n.startsWith(".")).toList();
      assertEquals(List.of(), hidden);
    }
  }

  @Test
  void theMergedIndexIsReadAndVerified() throws IOException {
    Map<ByteBuffer, byte[]> records = TestRecords.variable(5_000, 0x1D3EL, 16, 16);
    Path base = temp.resolve("base");
    build(base, records);
    List<Operation> replaceAll = new ArrayList<>();
    records.keySet().forEach(k -> replaceAll.add(new Operation(k.array(), new byte[] {7})));
    Path merged = temp.resolve("merged");
    merge(base, merged, replaceAll);
    records.replaceAll((k, v) -> new byte[] {7});
    try (Store store = Store.open(merged)) {
      store.verify();
      StoreRoundTripTest.checkAgainst(store, records, 6, 300);
      assertArrayEquals(new byte[] {7}, store.valueAt(0));
    }
  }
}
