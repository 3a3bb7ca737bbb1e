package io.varve.reader;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.builder.DuplicatePolicy;
import io.varve.builder.MergeSummary;
import io.varve.builder.StoreBuilder;
import io.varve.builder.StoreMerger;
import io.varve.builder.StoreReindexer;
import io.varve.core.blocked.BlockedIndexParameters;
import io.varve.core.format.CorruptStoreException;
import io.varve.core.store.RecordChecksum;
import io.varve.core.store.StoreFile;
import io.varve.core.store.KeyMode;
import io.varve.core.testing.FileDamage;
import io.varve.core.testing.TestRecords;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Stores that keep signatures or no keys: members answer right, absent keys as documented. */
class KeyModeTest {
  @TempDir Path temp;

  private Path build(String name, Map<ByteBuffer, byte[]> records, KeyMode mode) throws IOException {
    Path dir = temp.resolve(name);
    try (StoreBuilder builder = StoreBuilder.create(dir).keyMode(mode)) {
      for (Map.Entry<ByteBuffer, byte[]> e : records.entrySet()) {
        builder.put(e.getKey().array(), e.getValue());
      }
      builder.build();
    }
    return dir;
  }

  private static void assertMembersRight(Store store, Map<ByteBuffer, byte[]> records) {
    assertEquals(records.size(), store.size());
    byte[][] keys = new byte[records.size()][];
    int i = 0;
    for (Map.Entry<ByteBuffer, byte[]> e : records.entrySet()) {
      byte[] key = e.getKey().array();
      keys[i++] = key;
      assertArrayEquals(e.getValue(), store.get(key));
      long rank = store.indexOf(key);
      assertTrue(rank >= 0);
      assertArrayEquals(e.getValue(), store.valueAt(rank));
    }
    byte[][] values = new byte[keys.length][];
    store.getAll(keys, values);
    for (int k = 0; k < keys.length; k++) {
      assertArrayEquals(records.get(TestRecords.key(keys[k])), values[k]);
    }
  }

  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void signaturesFindMembersAndRarelyAbsentKeys(boolean fixedSize) throws IOException {
    long seed = 0x516A7L + (fixedSize ? 1 : 0);
    System.out.println("KeyModeTest signature fixedSize=" + fixedSize + " seed=" + seed);
    Map<ByteBuffer, byte[]> records =
        fixedSize ? TestRecords.fixed(50_000, seed, 16, 8) : TestRecords.variable(50_000, seed, 30, 30);
    Path dir = build("signature", records, KeyMode.signature(8));
    try (Store store = Store.open(dir)) {
      assertEquals(KeyMode.signature(8), store.meta().keyMode());
      assertEquals(fixedSize, store.meta().isFixedSize());
      assertMembersRight(store, records);
      store.verify();
      assertThrows(UnsupportedOperationException.class, () -> store.keyAt(0));
      // 2·10^6 absent keys: present with probability 2^-8 times the chance that the index sends an
      // absent key to a record at all. The default blocked index turns it away when its sub-range
      // is empty: with n keys over 256 sub-ranges per block, probability exp(-n / (256 * blocks)),
      // 0.31 here (so about 5,400 expected; one standard deviation 73).
      BlockedIndexParameters index = (BlockedIndexParameters) store.meta().indexParameters();
      double sentToARecord = 1 - Math.exp(-records.size() / (256.0 * index.blockCount(records.size())));
      SplittableRandom random = new SplittableRandom(seed + 1);
      int absent = 2_000_000;
      int falsePositives = 0;
      byte[] key = new byte[16];
      for (int i = 0; i < absent; i++) {
        random.nextBytes(key);
        if (store.get(key) != null) {
          falsePositives++;
        }
      }
      double rate = falsePositives / (double) absent;
      double expected = sentToARecord / 256;
      System.out.printf("KeyModeTest signature:8 false positives %d of %d = %.6f (2^-8 = %.6f, times %.4f sent to a record = %.6f)%n",
          falsePositives, absent, rate, 1 / 256.0, sentToARecord, expected);
      assertEquals(expected, rate, 0.1 * expected, "false-positive rate within 10 % of 2^-8 times the share sent to a record");
    }
    assertThrows(UnsupportedOperationException.class, () -> Store.openWithoutIndex(dir));
  }

  @Test
  void noKeysSavesTheirBytesAndStillServesMembers() throws IOException {
    Map<ByteBuffer, byte[]> records = TestRecords.fixed(20_000, 0x0E0EL, 16, 8);
    Path full = build("full", records, KeyMode.FULL);
    Path none = build("none", records, KeyMode.NONE);
    try (Store store = Store.open(none)) {
      assertMembersRight(store, records);
      store.verify();
      assertEquals(
          io.varve.core.store.RecordFormat.fixedPayloadBytes(records.size(), 8 + RecordChecksum.BYTES, 4096),
          store.stats().dataBytes(),
          "8-byte values and their checksums, nothing else");
      StoreCursor cursor = store.cursor();
      assertTrue(cursor.next());
      assertThrows(UnsupportedOperationException.class, cursor::key);
    }
    long fullData = Files.size(full.resolve("data"));
    long noneData = Files.size(none.resolve("data"));
    long hashes = Files.size(none.resolve("hashes"));
    System.out.printf("KeyModeTest none: data %,d bytes vs %,d with full keys; hash file %,d bytes (on disk only)%n", noneData, fullData, hashes);
    assertTrue(noneData < fullData / 2);
  }

  @Test
  void storesWithoutKeysMergeAndReindexByTheirHashes() throws IOException {
    long seed = 0x3E26EL;
    System.out.println("KeyModeTest merge seed=" + seed);
    Map<ByteBuffer, byte[]> model = TestRecords.variable(5_000, seed, 20, 20);
    Path base = build("base", model, KeyMode.signature(16));
    SplittableRandom random = new SplittableRandom(seed + 1);
    Path merged = temp.resolve("merged");
    MergeSummary summary;
    Map<ByteBuffer, byte[]> upserts = new HashMap<>();
    try (StoreMerger merger = StoreMerger.create(merged).base(base).memoryBudget(StoreBuilder.MIN_MEMORY_BUDGET)) {
      int i = 0;
      for (ByteBuffer key : model.keySet()) {
        if (i++ % 5 == 0) {
          byte[] value = TestRecords.upTo(random, 10);
          merger.put(key.array(), value);
          upserts.put(key, value);
        } else if (i % 7 == 0) {
          merger.delete(key.array());
        }
      }
      for (int k = 0; k < 1_000; k++) {
        byte[] key = TestRecords.upTo(random, 40);
        byte[] value = TestRecords.upTo(random, 10);
        merger.put(key, value);
        upserts.put(TestRecords.key(key), value);
      }
      summary = merger.merge();
    }
    int i = 0;
    for (ByteBuffer key : new java.util.ArrayList<>(model.keySet())) {
      if (i++ % 5 != 0 && i % 7 == 0) {
        model.remove(key);
      }
    }
    model.putAll(upserts);
    assertEquals(model.size(), summary.meta().recordCount());
    assertEquals(KeyMode.signature(16), summary.meta().keyMode());
    try (Store store = Store.open(merged)) {
      assertMembersRight(store, model);
      store.verify();
    }
    Path reindexed = temp.resolve("reindexed");
    StoreReindexer.reindex(merged, reindexed, StoreReindexer.DENSE, new io.varve.core.ect.EctParameters(256, 64, 1));
    try (Store store = Store.open(reindexed)) {
      assertMembersRight(store, model);
      store.verify();
    }
    assertThrows(IllegalArgumentException.class, () -> StoreReindexer.reindex(merged, temp.resolve("sparse"), 4096, null));
  }

  @Test
  void aMergeMayThrowAwayKeysButNotBringThemBack() throws IOException {
    Map<ByteBuffer, byte[]> model = TestRecords.fixed(4_000, 0xD20BL, 16, 8);
    Path full = build("full", model, KeyMode.FULL);
    Path signatures = temp.resolve("signatures");
    try (StoreMerger merger = StoreMerger.create(signatures).base(full).keyMode(KeyMode.signature(12))) {
      byte[] key = new byte[16];
      key[0] = 1;
      merger.put(key, new byte[8]);
      model.put(TestRecords.key(key), new byte[8]);
      MergeSummary summary = merger.merge();
      assertEquals(KeyMode.signature(12), summary.meta().keyMode());
      assertTrue(summary.meta().isFixedSize());
    }
    try (Store store = Store.open(signatures)) {
      assertMembersRight(store, model);
      store.verify();
    }
    assertThrows(IllegalArgumentException.class, () -> StoreMerger.create(temp.resolve("back")).base(signatures).keyMode(KeyMode.FULL).merge());
  }

  @Test
  void misuseAndDamageAreReported() throws IOException {
    assertThrows(IllegalArgumentException.class, () -> StoreBuilder.create(temp.resolve("a")).keyMode(KeyMode.NONE).sparseIndex(4096).build());
    assertThrows(IllegalArgumentException.class, () -> StoreBuilder.create(temp.resolve("b")).sparseIndex(4096).keyMode(KeyMode.signature(8)).build());
    assertThrows(IllegalArgumentException.class, () -> KeyMode.signature(0));
    assertThrows(IllegalArgumentException.class, () -> KeyMode.signature(65));
    Path none = build("none", TestRecords.variable(3_000, 5, 10, 10), KeyMode.NONE);
    Path full = build("full", TestRecords.variable(100, 6, 10, 10), KeyMode.FULL);
    assertThrows(IllegalArgumentException.class, () -> StoreMerger.create(temp.resolve("m")).base(none).base(full));
    Path hashes = none.resolve(StoreFile.HASHES.fileName());
    FileDamage.flipBits(hashes, Files.size(hashes) / 2, 4);
    try (Store store = Store.open(none)) {
      assertThrows(CorruptStoreException.class, store::verify);
    }
    try (StoreMerger merger = StoreMerger.create(temp.resolve("m2")).base(none)) {
      merger.put(new byte[] {1}, new byte[] {1});
      assertThrows(CorruptStoreException.class, merger::merge);
    }
  }

  @Test
  void duplicatesUnderLastWinsKeepTheLastValueWithoutKeys() throws IOException {
    Path dir = temp.resolve("dups");
    Map<ByteBuffer, byte[]> model = new HashMap<>();
    try (StoreBuilder builder = StoreBuilder.create(dir).keyMode(KeyMode.NONE).duplicates(DuplicatePolicy.LAST_WINS)) {
      for (int i = 0; i < 3_000; i++) {
        byte[] key = ("k" + (i % 1_000)).getBytes(java.nio.charset.StandardCharsets.UTF_8);
        byte[] value = {(byte) i, (byte) (i >> 8)};
        builder.put(key, value);
        model.put(TestRecords.key(key), value);
      }
      builder.build();
    }
    try (Store store = Store.open(dir)) {
      assertMembersRight(store, model);
      store.verify();
    }
  }

}
