package io.varve.reader;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.builder.StoreBuilder;
import io.varve.builder.StoreMerger;
import io.varve.builder.StoreReindexer;
import io.varve.core.blocked.BlockedIndexParameters;
import io.varve.core.ect.EctParameters;
import io.varve.core.format.CorruptStoreException;
import io.varve.core.index.IndexParameters;
import io.varve.core.store.StoreFile;
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
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Stores with either index kind: built, read, merged and re-indexed, each checked against a
 * {@code HashMap}; the kind is recorded in the meta file (version 3 for a blocked index) and
 * refused where it cannot serve (a sparse index is an ECT index).
 */
class IndexKindTest {
  private static final long SEED = 0x1DE7C1DL;

  @TempDir Path temp;

  private static IndexParameters parameters(String kind) {
    return kind.equals("blocked") ? new BlockedIndexParameters(64) : new EctParameters(32, 64, 2);
  }

  private Path build(String name, Map<ByteBuffer, byte[]> records, IndexParameters index) throws IOException {
    Path dir = temp.resolve(name);
    try (StoreBuilder builder = StoreBuilder.create(dir).memoryBudget(StoreBuilder.MIN_MEMORY_BUDGET).indexParameters(index)) {
      for (Map.Entry<ByteBuffer, byte[]> e : records.entrySet()) {
        builder.put(e.getKey().array(), e.getValue());
      }
      builder.build();
    }
    return dir;
  }

  private static void assertServes(Path dir, Map<ByteBuffer, byte[]> records, IndexParameters index, long seed) throws IOException {
    try (Store store = Store.open(dir)) {
      assertEquals(index, store.meta().indexParameters());
      assertEquals(index.kind(), store.stats().indexKind());
      assertEquals(7, store.stats().formatVersion(), "salted CRC32C record checksums need meta version 7: " + store.stats().toJson());
      assertEquals(records.size(), store.size());
      for (Map.Entry<ByteBuffer, byte[]> e : records.entrySet()) {
        assertArrayEquals(e.getValue(), store.get(e.getKey().array()));
      }
      SplittableRandom random = new SplittableRandom(seed);
      for (int i = 0; i < 2_000; i++) {
        byte[] key = TestRecords.bytes(random, 1 + random.nextInt(20));
        if (!records.containsKey(ByteBuffer.wrap(key))) {
          assertNull(store.get(key), "absent key " + i);
          assertEquals(-1, store.indexOf(key));
        }
      }
      store.verify();
    }
  }

  @ParameterizedTest(name = "{0} index, {1} records, fixed size {2}")
  @CsvSource({
    "blocked, 0, false", "blocked, 1, false", "blocked, 2, true", "blocked, 5000, false", "blocked, 5000, true",
    "ect, 0, false", "ect, 1, true", "ect, 5000, false"
  })
  void eitherKindServesEveryRecord(String kind, int n, boolean fixedSize) throws IOException {
    long seed = SEED + n + (fixedSize ? 7 : 0) + kind.length();
    System.out.println("IndexKindTest " + kind + " n=" + n + " fixed=" + fixedSize + " seed=" + seed);
    Map<ByteBuffer, byte[]> records =
        fixedSize ? TestRecords.fixed(n, seed, 12, 6) : TestRecords.variable(n, seed, 20, 30);
    IndexParameters index = parameters(kind);
    assertServes(build(kind, records, index), records, index, seed + 1);
  }

  @Test
  void aSparseIndexIsAnEctIndex() throws IOException {
    // Options are checked together when the build starts, in whichever order they were set.
    try (StoreBuilder builder = StoreBuilder.create(temp.resolve("a"))) {
      builder.indexParameters(BlockedIndexParameters.DEFAULT).sparseIndex(4096);
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, builder::build);
      assertTrue(e.getMessage().contains("a sparse index is an ECT index"), e.getMessage());
    }
    try (StoreBuilder builder = StoreBuilder.create(temp.resolve("b"))) {
      builder.sparseIndex(4096).indexParameters(BlockedIndexParameters.DEFAULT);
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, builder::build);
      assertTrue(e.getMessage().contains("a sparse index is an ECT index"), e.getMessage());
      builder.indexParameters(new EctParameters(512, 64, 0));
    }
    Map<ByteBuffer, byte[]> records = TestRecords.variable(500, SEED, 20, 30);
    Path dense = build("dense", records, BlockedIndexParameters.DEFAULT);
    assertThrows(
        IllegalArgumentException.class,
        () -> StoreReindexer.reindex(dense, temp.resolve("sparse"), 4096, BlockedIndexParameters.DEFAULT));
    assertFalse(Files.exists(temp.resolve("sparse")));
    assertFalse(Files.exists(temp.resolve("a")) || Files.exists(temp.resolve("b")), "refused builds leave nothing");
  }

  @Test
  void reindexingSwitchesTheKindOverTheSameData() throws IOException {
    Map<ByteBuffer, byte[]> records = TestRecords.variable(3_000, SEED + 1, 20, 30);
    Path blocked = build("blocked", records, BlockedIndexParameters.DEFAULT);
    Path ect = temp.resolve("ect");
    StoreReindexer.reindex(blocked, ect, StoreReindexer.DENSE, StoreBuilder.DEFAULT_ECT_INDEX);
    assertServes(ect, records, StoreBuilder.DEFAULT_ECT_INDEX, SEED + 2);
    Path back = temp.resolve("back");
    StoreReindexer.reindex(ect, back, StoreReindexer.DENSE, BlockedIndexParameters.DEFAULT);
    assertServes(back, records, BlockedIndexParameters.DEFAULT, SEED + 3);
    for (String file : new String[] {"data", "offsets", "index"}) {
      assertEquals(-1L, Files.mismatch(blocked.resolve(file), back.resolve(file)), file + " differs after a round trip");
    }
    // Without parameters a dense store keeps its kind and knobs.
    Path same = temp.resolve("same");
    StoreReindexer.reindex(ect, same, StoreReindexer.DENSE, null);
    assertServes(same, records, StoreBuilder.DEFAULT_ECT_INDEX, SEED + 4);
  }

  @ParameterizedTest(name = "base {0}, merged index {1}")
  @CsvSource({"blocked, default", "ect, default", "ect, blocked", "blocked, ect", "sparse, default"})
  void mergesKeepOrChangeTheKind(String base, String merged) throws IOException {
    long seed = SEED + base.hashCode() + merged.hashCode();
    System.out.println("IndexKindTest merge base=" + base + " merged=" + merged + " seed=" + seed);
    Map<ByteBuffer, byte[]> model = TestRecords.variable(4_000, seed, 20, 30);
    Path baseDir;
    if (base.equals("sparse")) {
      baseDir = temp.resolve("base");
      try (StoreBuilder builder = StoreBuilder.create(baseDir).sparseIndex(4096)) {
        for (Map.Entry<ByteBuffer, byte[]> e : model.entrySet()) {
          builder.put(e.getKey().array(), e.getValue());
        }
        builder.build();
      }
    } else {
      baseDir = build("base", model, parameters(base));
    }
    SplittableRandom random = new SplittableRandom(seed + 1);
    Path target = temp.resolve("merged");
    try (StoreMerger merger = StoreMerger.create(target).base(baseDir)) {
      if (!merged.equals("default")) {
        merger.indexParameters(parameters(merged));
      }
      for (int i = 0; i < 500; i++) {
        byte[] key = TestRecords.bytes(random, 1 + random.nextInt(20));
        byte[] value = TestRecords.bytes(random, random.nextInt(30));
        merger.put(key, value);
        model.put(ByteBuffer.wrap(key), value);
      }
      int deletes = 0;
      for (ByteBuffer key : model.keySet().toArray(ByteBuffer[]::new)) {
        if (deletes++ % 10 == 0) {
          merger.delete(key.array());
          model.remove(key);
        }
      }
      merger.merge();
    }
    IndexParameters expected =
        !merged.equals("default")
            ? parameters(merged)
            : base.equals("sparse") ? StoreBuilder.DEFAULT_INDEX : parameters(base);
    assertServes(target, model, expected, seed + 2);
  }

  /** A meta file that claims an older version than its store needs is damaged, not misread. */
  @Test
  void aBlockedStoreNeedsMetaVersionThree() throws IOException {
    Map<ByteBuffer, byte[]> records = TestRecords.variable(100, SEED + 5, 20, 30);
    Path dir = temp.resolve("old-meta");
    try (StoreBuilder builder = StoreBuilder.create(dir).recordChecksums(false).indexParameters(StoreBuilder.DEFAULT_INDEX)) {
      records.forEach((k, v) -> put(builder, k, v));
      builder.build();
    }
    Path metaPath = dir.resolve(StoreFile.META.fileName());
    byte[] meta = Files.readAllBytes(metaPath);
    int versionAt = StoreFile.META.headerLength() - Integer.BYTES;
    assertEquals(3, ByteBuffer.wrap(meta).getInt(versionAt));
    for (int version : new int[] {1, 2}) {
      byte[] older = meta.clone();
      ByteBuffer.wrap(older).putInt(versionAt, version);
      Files.write(metaPath, StoreCorruptionTest.refooter(older));
      // The meta file's checksum is its own: only its version lies.
      CorruptStoreException e = assertThrows(CorruptStoreException.class, () -> Store.open(dir));
      System.out.println("IndexKindTest meta version " + version + ": " + e.getMessage());
      assertTrue(e.getMessage().contains("meta"), e.getMessage());
    }
  }

  /** Version 1 lays out a sparse store's meta as version 2 does, so only the version check catches the lie. */
  @Test
  void aSparseStoreNeedsMetaVersionTwo() throws IOException {
    Path dir = temp.resolve("sparse-old-meta");
    try (StoreBuilder builder = StoreBuilder.create(dir).recordChecksums(false).sparseIndex(4096)) {
      TestRecords.variable(100, SEED + 6, 20, 30).forEach((k, v) -> put(builder, k, v));
      builder.build();
    }
    Path metaPath = dir.resolve(StoreFile.META.fileName());
    byte[] meta = Files.readAllBytes(metaPath);
    int versionAt = StoreFile.META.headerLength() - Integer.BYTES;
    assertEquals(2, ByteBuffer.wrap(meta).getInt(versionAt));
    ByteBuffer.wrap(meta).putInt(versionAt, 1);
    Files.write(metaPath, StoreCorruptionTest.refooter(meta));
    CorruptStoreException e = assertThrows(CorruptStoreException.class, () -> Store.open(dir));
    assertTrue(e.getMessage().contains("a version-1 meta file cannot describe this store (version 2 can)"), e.getMessage());
  }

  private static void put(StoreBuilder builder, ByteBuffer key, byte[] value) {
    try {
      builder.put(key.array(), value);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

}
