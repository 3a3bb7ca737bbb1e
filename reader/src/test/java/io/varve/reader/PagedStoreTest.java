package io.varve.reader;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.varve.builder.BuildOptions;
import io.varve.builder.ShardedStoreBuilder;
import io.varve.builder.StoreBuilder;
import io.varve.builder.StoreMerger;
import io.varve.builder.StoreReindexer;
import io.varve.core.format.CorruptStoreException;
import io.varve.core.index.IndexKind;
import io.varve.core.store.KeyMode;
import io.varve.core.store.PageTable;
import io.varve.core.store.PagedParameters;
import io.varve.core.store.StoreFile;
import io.varve.core.testing.TestRecords;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Paged stores (index kind paged: records packed into frames, found through a page table) answer
 * as a map does, at the edges of the layout too (records that cross frames, records larger than a
 * page, frames left empty), merge, and report damage instead of serving it.
 */
class PagedStoreTest {
  @TempDir Path temp;

  private Path build(String name, Map<ByteBuffer, byte[]> records, int pageBytes, boolean checksums) throws IOException {
    Path dir = temp.resolve(name);
    try (StoreBuilder builder =
        StoreBuilder.create(dir)
            .memoryBudget(StoreBuilder.MIN_MEMORY_BUDGET)
            .indexParameters(PagedParameters.INSTANCE)
            .pageAlignment(pageBytes)
            .recordChecksums(checksums)) {
      for (Map.Entry<ByteBuffer, byte[]> e : records.entrySet()) {
        builder.put(e.getKey().array(), e.getValue());
      }
      builder.build();
    }
    return dir;
  }

  /** Values of {@code minValue} to {@code maxValue} bytes, keys of 0 to 24; the empty key and non-ASCII ones among them. */
  static Map<ByteBuffer, byte[]> records(int n, long seed, int minValue, int maxValue) {
    SplittableRandom random = new SplittableRandom(seed);
    Map<ByteBuffer, byte[]> records = new LinkedHashMap<>();
    if (n > 0) {
      records.put(ByteBuffer.wrap(new byte[0]), TestRecords.bytes(random, minValue));
    }
    if (n > 1) {
      records.put(ByteBuffer.wrap("ключ-キー".getBytes(StandardCharsets.UTF_8)), new byte[0]);
    }
    while (records.size() < n) {
      records.put(
          ByteBuffer.wrap(TestRecords.upTo(random, 24)), TestRecords.bytes(random, minValue + random.nextInt(maxValue - minValue + 1)));
    }
    return records;
  }

  @ParameterizedTest
  @CsvSource({
    "small, 4096, 20000, 0, 64, true",
    "small-unchecked, 4096, 20000, 0, 64, false",
    "small-pages, 512, 5000, 0, 64, true",
    "crossing, 4096, 3000, 900, 1200, true",
    "crossing-small-pages, 512, 2000, 100, 400, true",
    "huge, 4096, 300, 0, 20000, true",
    "huge-small-pages, 512, 300, 0, 3000, false",
  })
  void pagedStoresAnswerLikeAMap(String label, int pageBytes, int n, int minValue, int maxValue, boolean checksums) throws IOException {
    long seed = 0xA6EDL + label.hashCode();
    System.out.println("PagedStoreTest " + label + " seed=" + seed);
    Map<ByteBuffer, byte[]> records = records(n, seed, minValue, maxValue);
    Path dir = build(label, records, pageBytes, checksums);
    try (Store store = Store.open(dir)) {
      assertTrue(store.meta().isPaged());
      assertEquals(IndexKind.PAGED, store.stats().indexKind());
      assertEquals(checksums ? 7 : 5, store.stats().formatVersion(), "salted CRC32C record checks need meta version 7");
      StoreRoundTripTest.checkAgainst(store, records, seed + 1, 2_000);
      store.verify();
    }
    try (Store withoutIndex = Store.openWithoutIndex(dir)) {
      StoreRoundTripTest.checkAgainst(withoutIndex, records, seed + 2, 200);
    }
  }

  @Test
  void zeroAndOneRecords() throws IOException {
    for (int n = 0; n <= 1; n++) {
      Map<ByteBuffer, byte[]> records = records(n, 7, 0, 10);
      Path dir = build("n" + n, records, 4096, true);
      try (Store store = Store.open(dir)) {
        assertEquals(n, store.size());
        StoreRoundTripTest.checkAgainst(store, records, 8, 100);
        store.verify();
      }
    }
  }

  /** A record exactly as large as a page, and ones a byte either side, among small ones. */
  @Test
  void recordsAroundThePageSize() throws IOException {
    Map<ByteBuffer, byte[]> records = records(500, 0x9A6EL, 0, 40);
    for (int delta = -12; delta <= 12; delta++) {
      records.put(ByteBuffer.wrap(("page" + delta).getBytes(StandardCharsets.UTF_8)), new byte[4096 + delta]);
    }
    Path dir = build("around", records, 4096, true);
    try (Store store = Store.open(dir)) {
      StoreRoundTripTest.checkAgainst(store, records, 11, 500);
      store.verify();
    }
  }

  /** In-memory bits per key on small records: the table's 64 bits per page, about one bit per key. */
  @Test
  void thePageTableTakesAboutOneBitPerKey() throws IOException {
    Map<ByteBuffer, byte[]> records = records(50_000, 0xB175L, 20, 80);
    Path dir = build("bits", records, 4096, true);
    try (Store store = Store.open(dir)) {
      StoreStats stats = store.stats();
      System.out.println("PagedStoreTest bits: " + stats.toJson());
      assertTrue(stats.memoryBitsPerKey() < 2.0, stats.toJson());
      assertEquals(0, stats.offsetsBits());
    }
  }

  /** Fixed-size records keep their computed places: asking for pages gives the default index. */
  @Test
  void fixedSizeRecordsKeepTheirLayout() throws IOException {
    Map<ByteBuffer, byte[]> records = TestRecords.fixed(2_000, 0xF1EDL, 8, 8);
    Path dir = build("fixed", records, 4096, true);
    try (Store store = Store.open(dir)) {
      assertTrue(store.meta().isFixedSize());
      assertEquals(IndexKind.BLOCKED, store.meta().indexKind());
      StoreRoundTripTest.checkAgainst(store, records, 12, 200);
    }
  }

  @Test
  void optionsThatCannotBePagedAreRefused() {
    IllegalArgumentException keys =
        assertThrows(
            IllegalArgumentException.class,
            () -> BuildOptions.builder().indexParameters(PagedParameters.INSTANCE).keyMode(KeyMode.signature(16)).build());
    assertTrue(keys.getMessage().contains("full keys"), keys.getMessage());
    IllegalArgumentException pages =
        assertThrows(
            IllegalArgumentException.class,
            () -> BuildOptions.builder().indexParameters(PagedParameters.INSTANCE).pageAlignment(0).build());
    assertTrue(pages.getMessage().contains("page alignment 0"), pages.getMessage());
  }

  /** Re-indexing into or out of pages writes the records anew; every store answers the same. */
  @Test
  void reindexingMovesStoresIntoAndOutOfPages() throws IOException {
    long seed = 0x2E1DL;
    System.out.println("PagedStoreTest reindex seed=" + seed);
    Map<ByteBuffer, byte[]> records = records(6_000, seed, 0, 2_000);
    Path dense = temp.resolve("dense");
    try (StoreBuilder builder = StoreBuilder.create(dense).indexParameters(StoreBuilder.DEFAULT_INDEX)) {
      for (Map.Entry<ByteBuffer, byte[]> e : records.entrySet()) {
        builder.put(e.getKey().array(), e.getValue());
      }
      builder.build();
    }
    Path paged = temp.resolve("paged");
    StoreReindexer.reindex(dense, paged, StoreReindexer.DENSE, PagedParameters.INSTANCE);
    Path denseAgain = temp.resolve("dense-again");
    StoreReindexer.reindex(paged, denseAgain, StoreReindexer.DENSE, null);
    Path sparse = temp.resolve("sparse");
    StoreReindexer.reindex(paged, sparse, 4096, null);
    try (Store a = Store.open(dense);
        Store b = Store.open(paged);
        Store c = Store.open(denseAgain);
        Store d = Store.open(sparse)) {
      assertTrue(b.meta().isPaged());
      assertEquals(IndexKind.BLOCKED, c.meta().indexKind());
      assertTrue(d.meta().isSparse());
      assertEquals(a.meta().seed(), b.meta().seed());
      for (Store store : new Store[] {b, c, d}) {
        StoreRoundTripTest.checkAgainst(store, records, seed + 1, 500);
        store.verify();
      }
    }
    // The dense data comes back byte for byte: the records and their places do not depend on the way there.
    assertArrayEquals(Files.readAllBytes(dense.resolve("data")), Files.readAllBytes(denseAgain.resolve("data")));
    assertArrayEquals(Files.readAllBytes(dense.resolve("offsets")), Files.readAllBytes(denseAgain.resolve("offsets")));
    assertFalse(Files.exists(temp.resolve(".sparse.staging")), "no staging directory left behind");
    try (var left = Files.list(temp)) {
      List<String> names = left.map(p -> p.getFileName().toString()).sorted().toList();
      assertEquals(List.of("dense", "dense-again", "paged", "sparse"), names, "nothing but the stores left behind");
    }
    // Fixed-size records keep their layout: asked for pages, they get the default index.
    Path fixed = temp.resolve("fixed");
    Map<ByteBuffer, byte[]> fixedRecords = TestRecords.fixed(1_000, seed + 2, 8, 8);
    try (StoreBuilder builder = StoreBuilder.create(fixed).indexParameters(StoreBuilder.DEFAULT_ECT_INDEX)) {
      for (Map.Entry<ByteBuffer, byte[]> e : fixedRecords.entrySet()) {
        builder.put(e.getKey().array(), e.getValue());
      }
      builder.build();
    }
    Path fixedPaged = temp.resolve("fixed-paged");
    StoreReindexer.reindex(fixed, fixedPaged, StoreReindexer.DENSE, PagedParameters.INSTANCE);
    try (Store store = Store.open(fixedPaged)) {
      assertTrue(store.meta().isFixedSize());
      assertEquals(IndexKind.BLOCKED, store.meta().indexKind());
      StoreRoundTripTest.checkAgainst(store, fixedRecords, seed + 3, 100);
    }
  }

  /** A merge into a paged base keeps it paged, and answers as the map with the batch applied. */
  @Test
  void mergesKeepAPagedStorePaged() throws IOException {
    long seed = 0x3E26EL;
    System.out.println("PagedStoreTest merge seed=" + seed);
    Map<ByteBuffer, byte[]> records = records(5_000, seed, 0, 300);
    Path base = build("base", records, 4096, true);
    Map<ByteBuffer, byte[]> expected = new HashMap<>(records);
    SplittableRandom random = new SplittableRandom(seed + 1);
    List<ByteBuffer> keys = new ArrayList<>(records.keySet());
    Path merged = temp.resolve("merged");
    try (StoreMerger merger = StoreMerger.create(merged).base(base)) {
      for (int i = 0; i < 1_000; i++) {
        ByteBuffer key = keys.get(random.nextInt(keys.size()));
        if (i % 3 == 0) {
          merger.delete(key.array());
          expected.remove(key);
        } else {
          byte[] value = TestRecords.bytes(random, random.nextInt(2_000));
          merger.put(key.array(), value);
          expected.put(key, value);
        }
        byte[] fresh = ("new-" + i).getBytes(StandardCharsets.UTF_8);
        byte[] value = TestRecords.bytes(random, random.nextInt(100));
        merger.put(fresh, value);
        expected.put(ByteBuffer.wrap(fresh), value);
      }
      merger.merge();
    }
    try (Store store = Store.open(merged)) {
      assertTrue(store.meta().isPaged());
      StoreRoundTripTest.checkAgainst(store, expected, seed + 2, 1_000);
      store.verify();
    }
  }

  /**
   * Shards hold keys of one slice of the hash space: their page tables see hashes mapped by the
   * shard's hash range, and lookups must map theirs the same way.
   */
  @Test
  void shardsOfAPagedStoreAnswerLikeAMap() throws IOException {
    long seed = 0x5A2DL;
    System.out.println("PagedStoreTest shards seed=" + seed);
    Map<ByteBuffer, byte[]> records = records(20_000, seed, 0, 200);
    Path root = temp.resolve("sharded");
    BuildOptions options = BuildOptions.builder().indexParameters(PagedParameters.INSTANCE).build();
    try (ShardedStoreBuilder builder = ShardedStoreBuilder.create(root, 16, options)) {
      for (Map.Entry<ByteBuffer, byte[]> e : records.entrySet()) {
        builder.put(e.getKey().array(), e.getValue());
      }
      builder.build();
    }
    try (ShardedStore store = ShardedStore.open(root)) {
      assertEquals(IndexKind.PAGED, store.stats().indexKind());
      for (Map.Entry<ByteBuffer, byte[]> e : records.entrySet()) {
        assertArrayEquals(e.getValue(), store.get(e.getKey().array()));
      }
      SplittableRandom random = new SplittableRandom(seed + 1);
      for (int i = 0; i < 2_000; i++) {
        byte[] key = TestRecords.upTo(random, 30);
        if (!records.containsKey(ByteBuffer.wrap(key))) {
          assertNull(store.get(key));
        }
      }
      store.verify();
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Damage: every byte of a small store flipped, every file cut at every length.

  /** A small store over several 512-byte frames, one record crossing frames, one larger than a page. */
  private Map<ByteBuffer, byte[]> smallRecords() {
    Map<ByteBuffer, byte[]> records = records(40, 0xDA6EL, 0, 60);
    records.put(ByteBuffer.wrap("crossing".getBytes(StandardCharsets.UTF_8)), new byte[300]);
    records.put(ByteBuffer.wrap("larger than a page".getBytes(StandardCharsets.UTF_8)), TestRecords.bytes(new SplittableRandom(1), 1_500));
    return records;
  }

  @Test
  void everyFlippedByteIsReportedOrHarmless() throws IOException {
    Map<ByteBuffer, byte[]> records = smallRecords();
    Path intact = build("intact", records, 512, true);
    Map<String, byte[]> files = StoreCorruptionTest.readFiles(intact);
    List<byte[]> absent = absentKeys(records);
    int[] outcomes = new int[2]; // reported, harmless
    for (String name : files.keySet()) {
      byte[] file = files.get(name);
      int from = name.equals(StoreFile.DATA.fileName()) ? StoreFile.DATA.payloadOffset() - 64 : 0;
      for (int i = from; i < file.length; i++) {
        for (int flip : new int[] {1 << (i % 8), 0xFF}) {
          byte[] damaged = file.clone();
          damaged[i] ^= (byte) flip;
          check(files, name, damaged, records, absent, name + " byte " + i + " ^ " + flip, false, outcomes);
          if (!name.equals(StoreFile.META.fileName())) {
            // As a hostile writer would: the file's checksums made to match the damage. A lying
            // page table, like a lying index, may hide keys (nothing checks it but its checksum);
            // it must never lead to another key's value.
            check(
                StoreCorruptionTest.replaceAndRecord(files, kindOf(name), StoreCorruptionTest.refooter(damaged)),
                null, null, records, absent, name + " byte " + i + " ^ " + flip + ", checksums recomputed",
                name.equals(StoreFile.PAGES.fileName()), outcomes);
          }
        }
      }
    }
    System.out.println("PagedStoreTest flips: reported " + outcomes[0] + ", harmless " + outcomes[1]);
    assertTrue(outcomes[0] > 0);
  }

  @Test
  void everyTruncationIsReported() throws IOException {
    Map<ByteBuffer, byte[]> records = smallRecords();
    Path intact = build("intact", records, 512, true);
    Map<String, byte[]> files = StoreCorruptionTest.readFiles(intact);
    List<byte[]> absent = absentKeys(records);
    int[] outcomes = new int[2];
    for (String name : files.keySet()) {
      byte[] file = files.get(name);
      for (int length = 0; length < file.length; length++) {
        check(files, name, Arrays.copyOf(file, length), records, absent, name + " cut to " + length, false, outcomes);
      }
    }
    System.out.println("PagedStoreTest truncations: reported " + outcomes[0] + ", harmless " + outcomes[1]);
    assertEquals(0, outcomes[1], "a truncated file cannot open");
  }

  private static StoreFile kindOf(String name) {
    for (StoreFile kind : StoreFile.values()) {
      if (kind.fileName().equals(name)) {
        return kind;
      }
    }
    throw new AssertionError(name);
  }

  private static List<byte[]> absentKeys(Map<ByteBuffer, byte[]> records) {
    SplittableRandom random = new SplittableRandom(0xAB5L);
    List<byte[]> absent = new ArrayList<>();
    while (absent.size() < 60) {
      byte[] key = TestRecords.upTo(random, 24);
      if (!records.containsKey(ByteBuffer.wrap(key))) {
        absent.add(key);
      }
    }
    return absent;
  }

  /**
   * Writes {@code files} (with {@code name} replaced by {@code damaged} when not null) and checks
   * that every call answers right or throws {@link CorruptStoreException}; with {@code mayMiss}, a
   * stored key may also be reported absent.
   */
  private void check(
      Map<String, byte[]> files,
      String name,
      byte[] damaged,
      Map<ByteBuffer, byte[]> records,
      List<byte[]> absent,
      String what,
      boolean mayMiss,
      int[] outcomes)
      throws IOException {
    Path dir = Files.createTempDirectory(temp, "damaged");
    for (Map.Entry<String, byte[]> e : files.entrySet()) {
      Files.write(dir.resolve(e.getKey()), e.getKey().equals(name) ? damaged : e.getValue());
    }
    boolean reported = false;
    try (Store store = Store.open(dir)) {
      for (Map.Entry<ByteBuffer, byte[]> e : records.entrySet()) {
        try {
          byte[] value = store.get(e.getKey().array());
          if (!Arrays.equals(e.getValue(), value) && !(mayMiss && value == null)) {
            fail(what + ": a stored key answered " + (value == null ? "absent" : value.length + " wrong bytes"));
          }
        } catch (CorruptStoreException reportedDamage) {
          reported = true;
        }
      }
      for (byte[] key : absent) {
        try {
          assertNull(store.get(key), what + ": an absent key found");
          assertFalse(store.contains(key), what);
        } catch (CorruptStoreException reportedDamage) {
          reported = true;
        }
      }
      try {
        byte[][] keys = new byte[records.size() + absent.size()][];
        int k = 0;
        for (ByteBuffer key : records.keySet()) {
          keys[k++] = key.array();
        }
        for (byte[] key : absent) {
          keys[k++] = key;
        }
        byte[][] values = new byte[keys.length][];
        store.getAll(keys, values);
        for (int i = 0; i < keys.length; i++) {
          byte[] expected = records.get(ByteBuffer.wrap(keys[i]));
          if (!Arrays.equals(expected, values[i]) && !(mayMiss && values[i] == null)) {
            fail(what + ": getAll answered " + (values[i] == null ? "absent" : values[i].length + " wrong bytes") + " for key " + i);
          }
        }
      } catch (CorruptStoreException reportedDamage) {
        reported = true;
      }
      for (long rank = 0; rank < store.size(); rank++) {
        try {
          byte[] key = store.keyAt(rank);
          assertArrayEquals(records.get(ByteBuffer.wrap(key)), store.valueAt(rank), what + ": rank " + rank);
          long found = store.indexOf(key);
          assertTrue(found == rank || (mayMiss && found == -1), what + ": indexOf of keyAt(" + rank + ") is " + found);
        } catch (CorruptStoreException reportedDamage) {
          reported = true;
        }
      }
      try {
        store.verify();
      } catch (CorruptStoreException reportedDamage) {
        reported = true;
      }
    } catch (CorruptStoreException reportedDamage) {
      reported = true;
    }
    outcomes[reported ? 0 : 1]++;
    try (var paths = Files.list(dir)) {
      for (Path p : paths.toList()) {
        Files.delete(p);
      }
    }
    Files.delete(dir);
  }

  /** The table's lookups of frames by hash and by rank agree with a linear scan. */
  @Test
  void pageTableFindsFramesAsAScanDoes() {
    SplittableRandom random = new SplittableRandom(0x7AB1EL);
    System.out.println("PagedStoreTest table seed=" + 0x7AB1EL);
    PageTable.Builder builder = PageTable.builder(4096);
    List<Integer> firsts = new ArrayList<>();
    List<Integer> counts = new ArrayList<>();
    long top = 1_000_000;
    for (int f = 0; f < 5_000; f++) {
      if (f > 0 && random.nextInt(10) == 0) {
        builder.addEmpty();
        firsts.add(firsts.get(f - 1));
        counts.add(0);
        continue;
      }
      // Skewed: runs of equal firsts, and jumps.
      top = Math.min(0xFFFF_FFFFL, top + (random.nextInt(4) == 0 ? 0 : random.nextInt(random.nextBoolean() ? 100 : 5_000_000)));
      int count = 1 + random.nextInt(60);
      builder.add((int) top, count, 0, 100 + count);
      firsts.add((int) top);
      counts.add(count);
    }
    PageTable table = builder.build(5_000L * 4096);
    for (int probe = 0; probe < 20_000; probe++) {
      // A frame's first, a hash just below one (the gallop down to frame 0 once missed these), or any.
      long key =
          switch (probe % 4) {
            case 0 -> Integer.toUnsignedLong(firsts.get(random.nextInt(firsts.size())));
            case 1 -> Math.max(0, Integer.toUnsignedLong(firsts.get(random.nextInt(Math.min(50, firsts.size())))) - 1);
            case 2 -> random.nextLong(Math.max(1, Integer.toUnsignedLong(firsts.get(10))));
            default -> random.nextLong() >>> 32;
          };
      int expected = -1;
      for (int f = 0; f < firsts.size(); f++) {
        if (counts.get(f) > 0 && Integer.toUnsignedLong(firsts.get(f)) <= key) {
          expected = f;
        }
      }
      assertEquals(expected, table.frameOf(key), "frame of " + key);
    }
    long rank = 0;
    for (int f = 0; f < counts.size(); f++) {
      assertEquals(rank, table.firstRank(f));
      for (int i = 0; i < counts.get(f); i++) {
        assertEquals(f, table.frameOfRank(rank + i));
      }
      rank += counts.get(f);
    }
    assertEquals(rank, table.recordCount());
  }
}
