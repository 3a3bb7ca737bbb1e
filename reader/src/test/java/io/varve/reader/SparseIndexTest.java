package io.varve.reader;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.builder.StoreBuilder;
import io.varve.builder.StoreMerger;
import io.varve.builder.StoreReindexer;
import io.varve.core.format.CorruptStoreException;
import io.varve.core.store.StoreFile;
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
import org.junit.jupiter.params.provider.CsvSource;

/** Stores with a sparse index answer exactly as dense ones; re-indexing keeps the data file. */
class SparseIndexTest {
  @TempDir Path temp;

  /** Records of 0 to 64 bytes, and every 97th of 3 to 9 KiB: larger than a block, crossing blocks. */
  static Map<ByteBuffer, byte[]> records(int n, long seed, boolean someHuge) {
    SplittableRandom random = new SplittableRandom(seed);
    Map<ByteBuffer, byte[]> records = new HashMap<>();
    records.put(TestRecords.key(new byte[0]), new byte[0]);
    while (records.size() < n) {
      byte[] key = TestRecords.upTo(random, 24);
      int length = someHuge && records.size() % 97 == 0 ? 3_000 + random.nextInt(6_000) : random.nextInt(65);
      byte[] value = new byte[length];
      random.nextBytes(value);
      records.put(TestRecords.key(key), value);
    }
    return records;
  }

  private Path build(String name, Map<ByteBuffer, byte[]> records, int pageAlignment, int blockBytes) throws IOException {
    Path dir = temp.resolve(name);
    try (StoreBuilder builder = StoreBuilder.create(dir).pageAlignment(pageAlignment)) {
      if (blockBytes > 0) {
        builder.sparseIndex(blockBytes);
      } else {
        builder.indexParameters(StoreBuilder.DEFAULT_INDEX); // dense over offsets: re-indexing then links its data
      }
      for (Map.Entry<ByteBuffer, byte[]> e : records.entrySet()) {
        builder.put(e.getKey().array(), e.getValue());
      }
      builder.build();
    }
    return dir;
  }

  @ParameterizedTest
  @CsvSource({"4096, 4096, true", "512, 512, false", "0, 512, true", "0, 65536, true", "0, 1048576, false"})
  void sparseStoresAnswerLikeAMap(int pageAlignment, int blockBytes, boolean someHuge) throws IOException {
    long seed = 0x5BA25EL + blockBytes + pageAlignment + (someHuge ? 1 : 0);
    System.out.println("SparseIndexTest page=" + pageAlignment + " block=" + blockBytes + " seed=" + seed);
    Map<ByteBuffer, byte[]> records = records(4_000, seed, someHuge);
    Path dir = build("sparse", records, pageAlignment, blockBytes);
    try (Store store = Store.open(dir)) {
      assertTrue(store.meta().isSparse());
      assertEquals(blockBytes, store.stats().blockBytes());
      StoreRoundTripTest.checkAgainst(store, records, seed + 1, 3_000);
      store.verify();
    }
    try (Store fallback = Store.openWithoutIndex(dir)) {
      StoreRoundTripTest.checkAgainst(fallback, records, seed + 2, 300);
    }
  }

  @Test
  void fixedSizeRecordsInSparseBlocks() throws IOException {
    Map<ByteBuffer, byte[]> records = new HashMap<>();
    SplittableRandom random = new SplittableRandom(0xF12EDL);
    while (records.size() < 20_000) {
      records.put(TestRecords.key(ByteBuffer.allocate(8).putLong(random.nextLong()).array()),
          ByteBuffer.allocate(8).putLong(random.nextLong()).array());
    }
    Path dir = build("fixed", records, 4096, 4096);
    try (Store store = Store.open(dir)) {
      assertTrue(store.meta().isFixedSize());
      StoreRoundTripTest.checkAgainst(store, records, 5, 3_000);
      store.verify();
      StoreStats stats = store.stats();
      System.out.println("SparseIndexTest fixed 8+8 in 4 KiB blocks: " + stats.toJson());
      assertTrue(stats.indexBitsPerKey() + stats.offsetsBitsPerKey() < 0.5, stats.toJson());
    }
  }

  @Test
  void reindexingSwitchesDenseAndSparseOverTheSameDataFile() throws IOException {
    long seed = 0x2E1D3EL;
    System.out.println("SparseIndexTest reindex seed=" + seed);
    Map<ByteBuffer, byte[]> records = records(6_000, seed, true);
    Path dense = build("dense", records, 4096, 0);
    Path sparse = temp.resolve("sparse");
    StoreReindexer.reindex(dense, sparse, 4096, null);
    Path denseAgain = temp.resolve("dense-again");
    StoreReindexer.reindex(sparse, denseAgain, StoreReindexer.DENSE, null);
    assertTrue(Files.isSameFile(dense.resolve("data"), sparse.resolve("data")), "the data file is linked, not rewritten");
    assertArrayEquals(Files.readAllBytes(dense.resolve("offsets")), Files.readAllBytes(denseAgain.resolve("offsets")));
    assertArrayEquals(Files.readAllBytes(dense.resolve("index")), Files.readAllBytes(denseAgain.resolve("index")));
    // Salted CRC32C record checksums (the default) need meta version 7 whatever the index.
    assertEquals(7, metaVersion(dense));
    assertEquals(7, metaVersion(sparse));
    assertEquals(7, metaVersion(denseAgain));
    try (Store a = Store.open(dense);
        Store b = Store.open(sparse);
        Store c = Store.open(denseAgain)) {
      StoreRoundTripTest.checkAgainst(b, records, seed + 1, 1_000);
      StoreRoundTripTest.checkAgainst(c, records, seed + 2, 1_000);
      assertTrue(b.stats().memoryBytes() < a.stats().memoryBytes());
      for (long i = 0; i < a.size(); i += 7) {
        assertArrayEquals(a.keyAt(i), b.keyAt(i));
        assertEquals(i, b.indexOf(a.keyAt(i)));
      }
    }
    // A sparse store merges like any other (the new store is dense).
    Path merged = temp.resolve("merged");
    try (StoreMerger merger = StoreMerger.create(merged).base(sparse)) {
      merger.put(new byte[] {1, 2, 3}, new byte[] {4});
      merger.merge();
    }
    records.put(TestRecords.key(new byte[] {1, 2, 3}), new byte[] {4});
    try (Store store = Store.open(merged)) {
      StoreRoundTripTest.checkAgainst(store, records, seed + 3, 300);
    }
  }

  @Test
  void emptyAndSingleRecordStores() throws IOException {
    Path empty = build("empty", Map.of(), 4096, 4096);
    try (Store store = Store.open(empty)) {
      StoreRoundTripTest.checkAgainst(store, Map.of(), 1, 100);
    }
    Map<ByteBuffer, byte[]> one = Map.of(TestRecords.key(new byte[] {7}), new byte[] {8});
    Path single = build("single", one, 0, 512);
    try (Store store = Store.open(single)) {
      StoreRoundTripTest.checkAgainst(store, one, 2, 100);
      store.verify();
    }
  }

  @Test
  void blockSizesThatCannotWorkAreRejected() throws IOException {
    assertThrows(IllegalArgumentException.class, () -> StoreBuilder.create(temp.resolve("a")).sparseIndex(8192).build());
    assertThrows(IllegalArgumentException.class, () -> StoreBuilder.create(temp.resolve("b")).pageAlignment(0).sparseIndex(1000).build());
    assertThrows(IllegalArgumentException.class, () -> StoreBuilder.create(temp.resolve("c")).pageAlignment(0).sparseIndex(512).pageAlignment(4096).build());
    Path dense = build("dense", records(100, 3, false), 4096, 0);
    assertThrows(IllegalArgumentException.class, () -> StoreReindexer.reindex(dense, temp.resolve("d"), 512, null));
    assertFalse(Files.exists(temp.resolve("d")));
  }

  @Test
  void aDamagedBlockTableIsRejectedOnOpen() throws IOException {
    Path dir = build("sparse", records(2_000, 11, false), 4096, 4096);
    Path blocks = dir.resolve(StoreFile.BLOCKS.fileName());
    FileDamage.flipBits(blocks, Files.size(blocks) / 2, 1);
    assertThrows(CorruptStoreException.class, () -> Store.open(dir));
  }

  @Test
  void aTruncatedOrMissingBlockTableIsRejectedOnOpen() throws IOException {
    Path dir = build("sparse", records(2_000, 12, false), 4096, 4096);
    Path blocks = dir.resolve(StoreFile.BLOCKS.fileName());
    byte[] bytes = Files.readAllBytes(blocks);
    for (int keep : new int[] {0, 9, bytes.length / 2, bytes.length - 1}) {
      Files.write(blocks, java.util.Arrays.copyOf(bytes, keep));
      assertThrows(CorruptStoreException.class, () -> Store.open(dir), "blocks cut to " + keep + " bytes");
    }
    Files.delete(blocks);
    assertThrows(CorruptStoreException.class, () -> Store.open(dir), "the meta file lists the blocks");
  }

  private static int metaVersion(Path dir) throws IOException {
    byte[] bytes = Files.readAllBytes(dir.resolve(StoreFile.META.fileName()));
    return ByteBuffer.wrap(bytes, StoreFile.META.headerLength() - 4, 4).getInt();
  }
}
