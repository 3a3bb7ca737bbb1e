package io.varve.reader;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.varve.builder.StoreBuilder;
import io.varve.core.ect.EctParameters;
import io.varve.core.store.StoreFile;
import io.varve.core.testing.TestRecords;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link Store#load}: a store copied into memory answers exactly as the mapped one, holds no
 * mapping or file handle once open, frees its copy on close, and rejects use after close.
 */
class LoadedStoreTest {
  private static final long SEED = 0x10ADEDL;

  @TempDir Path temp;

  private static Path build(Map<ByteBuffer, byte[]> records, Path dir) throws IOException {
    return build(records, dir, StoreBuilder.create(dir));
  }

  private static Path build(Map<ByteBuffer, byte[]> records, Path dir, StoreBuilder configured) throws IOException {
    try (StoreBuilder builder = configured) {
      for (Map.Entry<ByteBuffer, byte[]> e : records.entrySet()) {
        builder.put(e.getKey().array(), e.getValue());
      }
      builder.build();
    }
    return dir;
  }

  @ParameterizedTest
  @ValueSource(ints = {0, 1, 2, 3, 100, 10_000})
  void answersLikeAMappedStore(int n) throws IOException {
    long seed = SEED + n;
    System.out.println("LoadedStoreTest n=" + n + " seed=" + seed);
    // Keys and values of 0..64 random bytes: empty ones and non-ASCII bytes among them.
    Map<ByteBuffer, byte[]> records = TestRecords.variable(n, seed, 64, 64);
    Path dir = build(records, temp.resolve("store"));
    try (Store loaded = Store.load(dir); Store mapped = Store.open(dir)) {
      assertEquals(DataAccess.LOADED, loaded.dataAccess());
      assertEquals(DataAccess.MAPPED, mapped.dataAccess());
      StoreRoundTripTest.checkAgainst(loaded, records, seed + 1, 1000);
      loaded.verify();
      long dataFile = Files.size(dir.resolve(StoreFile.DATA.fileName()));
      assertEquals(dataFile, loaded.stats().loadedBytes(), "the whole data file is loaded");
      assertEquals(0, mapped.stats().loadedBytes());
      assertEquals(mapped.stats().memoryBytes(), loaded.stats().memoryBytes(), "the heap holds the same either way");
      assertTrue(loaded.stats().toJson().contains("\"loadedBytes\":" + dataFile));
      for (long i = 0; i < n; i++) {
        assertArrayEquals(mapped.keyAt(i), loaded.keyAt(i));
        assertArrayEquals(mapped.valueAt(i), loaded.valueAt(i));
      }
    }
  }

  @Test
  void fixedSizeRecordsAndHugeValues() throws IOException {
    SplittableRandom random = new SplittableRandom(SEED);
    System.out.println("LoadedStoreTest fixed/huge seed=" + SEED);
    Map<ByteBuffer, byte[]> fixed = new HashMap<>();
    while (fixed.size() < 50_000) {
      byte[] key = new byte[8];
      byte[] value = new byte[8];
      random.nextBytes(key);
      random.nextBytes(value);
      fixed.put(ByteBuffer.wrap(key), value);
    }
    Path fixedDir = build(fixed, temp.resolve("fixed"), StoreBuilder.create(temp.resolve("fixed")).indexParameters(new EctParameters(64, 64, 3)));
    try (Store store = Store.load(fixedDir)) {
      assertTrue(store.meta().isFixedSize());
      StoreRoundTripTest.checkAgainst(store, fixed, SEED + 1, 1000);
    }
    // Values of several MiB cross the copy's 2 MiB pages and its copy steps.
    Map<ByteBuffer, byte[]> huge = new HashMap<>();
    for (int i = 0; i < 12; i++) {
      byte[] value = new byte[(3 << 20) + random.nextInt(1 << 20)];
      random.nextBytes(value);
      huge.put(ByteBuffer.wrap(("big-é-" + i).getBytes(StandardCharsets.UTF_8)), value);
    }
    huge.put(ByteBuffer.wrap(new byte[0]), new byte[0]);
    Path hugeDir = build(huge, temp.resolve("huge"));
    try (Store store = Store.load(hugeDir)) {
      StoreRoundTripTest.checkAgainst(store, huge, SEED + 2, 100);
      store.verify();
    }
  }

  @Test
  void holdsNoMappingOrFileHandleAndRejectsUseAfterClose() throws IOException {
    assumeTrue(Files.isDirectory(Path.of("/proc/self/fd")), "needs /proc (Linux)");
    Map<ByteBuffer, byte[]> records = TestRecords.variable(5_000, SEED + 3, 16, 200);
    Path dir = build(records, temp.resolve("store"));
    Path data = dir.resolve(StoreFile.DATA.fileName()).toRealPath();
    Store store = Store.load(dir);
    StoreCursor cursor = store.cursor();
    assertTrue(cursor.next());
    assertFalse(mapsOf(data), "a loaded store unmaps its data file");
    assertFalse(holdsOpen(data), "a loaded store closes its data file");
    byte[] key = records.keySet().iterator().next().array();
    assertArrayEquals(records.get(ByteBuffer.wrap(key)), store.get(key));
    store.close();
    store.close();
    assertTrue(store.isClosed());
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> store.get(key));
    assertTrue(e.getMessage().contains("closed"), e.getMessage());
    assertThrows(IllegalStateException.class, store::stats);
    // A cursor's every call too (next() and index() answered after close).
    assertThrows(StoreClosedException.class, cursor::next);
    assertThrows(StoreClosedException.class, cursor::index);
    assertThrows(StoreClosedException.class, cursor::value);

    try (Store mapped = Store.open(dir)) {
      assertTrue(mapsOf(data), "a mapped store maps its data file (the check above can fail)");
    }
    assertFalse(mapsOf(data), "closing unmaps");
  }

  @Test
  void loadedDataUsesHugePagesWhereTheKernelOffersThem() throws IOException {
    Path enabled = Path.of("/sys/kernel/mm/transparent_hugepage/enabled");
    assumeTrue(Files.isReadable(enabled) && !Files.readString(enabled).contains("[never]"), "transparent huge pages are off");
    Map<ByteBuffer, byte[]> records = new HashMap<>();
    SplittableRandom random = new SplittableRandom(SEED + 4);
    while (records.size() < 64) {
      byte[] value = new byte[1 << 20];
      random.nextBytes(value);
      records.put(ByteBuffer.wrap(("k" + records.size()).getBytes(StandardCharsets.US_ASCII)), value);
    }
    Path dir = build(records, temp.resolve("store"));
    long before = anonHugePageBytes();
    try (Store store = Store.load(dir)) {
      long gained = anonHugePageBytes() - before;
      System.out.printf("LoadedStoreTest: %d MiB loaded, %d MiB more in anonymous huge pages%n",
          store.stats().loadedBytes() >> 20, gained >> 20);
      // 64 MiB of data span 31 whole huge pages; a fragmented machine may not find all of them.
      assertTrue(gained >= 8 * ChronicleMemory.HUGE_PAGE, "only " + (gained >> 20) + " MiB in huge pages");
    }
  }

  private static boolean mapsOf(Path file) throws IOException {
    try (Stream<String> lines = Files.lines(Path.of("/proc/self/maps"))) {
      return lines.anyMatch(line -> line.endsWith(" " + file));
    }
  }

  private static boolean holdsOpen(Path file) throws IOException {
    try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
      for (Path fd : (Iterable<Path>) fds::iterator) {
        try {
          if (Files.readSymbolicLink(fd).equals(file)) {
            return true;
          }
        } catch (IOException gone) {
          // The listing's own descriptor, closed by now.
        }
      }
    }
    return false;
  }

  private static long anonHugePageBytes() throws IOException {
    List<String> lines = Files.readAllLines(Path.of("/proc/self/smaps_rollup"));
    for (String line : lines) {
      if (line.startsWith("AnonHugePages:")) {
        return Long.parseLong(line.replaceAll("[^0-9]", "")) << 10;
      }
    }
    return 0;
  }
}
