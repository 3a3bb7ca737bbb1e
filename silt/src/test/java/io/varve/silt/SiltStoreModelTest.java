package io.varve.silt;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.reader.StoreClosedException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Random operation mixes against a {@link HashMap}, with freezes, merges and reopens at random points. */
class SiltStoreModelTest {
  @TempDir Path temp;

  static final SiltOptions SMALL = SiltOptions.builder().logStoreEntries(64).maxLogBytes(64 << 10).backgroundMerges(false).build();

  /** Keys of every kind the tests want: empty, one byte, non-ASCII, long, and plain ones. */
  static List<byte[]> keyUniverse(Random random, int n) {
    List<byte[]> keys = new ArrayList<>();
    keys.add(new byte[0]);
    keys.add(new byte[] {0});
    keys.add("schlüssel-ü-日本".getBytes(StandardCharsets.UTF_8));
    byte[] longKey = new byte[3000];
    random.nextBytes(longKey);
    keys.add(longKey);
    while (keys.size() < n) {
      byte[] key = new byte[1 + random.nextInt(24)];
      random.nextBytes(key);
      keys.add(key);
    }
    return keys;
  }

  static byte[] randomValue(Random random) {
    int kind = random.nextInt(20);
    byte[] value = new byte[kind == 0 ? 0 : kind == 1 ? 20_000 + random.nextInt(20_000) : random.nextInt(100)];
    random.nextBytes(value);
    return value;
  }

  @Test
  void matchesAHashMapThroughFreezesMergesAndReopens() throws IOException {
    long seed = 0x5117_0001L;
    System.out.println("SiltStoreModelTest seed " + seed);
    Random random = new Random(seed);
    List<byte[]> keys = keyUniverse(random, 600);
    Map<ByteBuffer, byte[]> model = new HashMap<>();
    Path dir = temp.resolve("store");
    SiltStore store = SiltStore.open(dir, SMALL);
    try {
      for (int op = 0; op < 30_000; op++) {
        byte[] key = keys.get(random.nextInt(keys.size()));
        int action = random.nextInt(1000);
        if (action < 450) {
          byte[] value = randomValue(random);
          store.put(key, value);
          model.put(ByteBuffer.wrap(key), value);
        } else if (action < 550) {
          store.delete(key);
          model.remove(ByteBuffer.wrap(key));
        } else if (action < 990) {
          byte[] expected = model.get(ByteBuffer.wrap(key));
          byte[] found = store.get(key);
          if (expected == null) {
            assertNull(found, "op " + op);
          } else {
            assertArrayEquals(expected, found, "op " + op);
          }
        } else if (action < 993) {
          store.freezeLog();
        } else if (action < 995) {
          store.convertNow();
        } else if (action < 997) {
          store.mergeNow();
        } else {
          store.close();
          store = SiltStore.open(dir, SMALL);
        }
      }
      checkAll(store, keys, model);
      store.freezeLog();
      store.mergeNow();
      checkAll(store, keys, model);
      assertEquals(model.size(), store.stats().sortedRecords(), "after a merge of every log, " + store.stats());
      assertEquals(0, store.stats().logEntries());
    } finally {
      store.close();
    }
    try (SiltStore reopened = SiltStore.open(dir, SMALL)) {
      checkAll(reopened, keys, model);
    }
    assertOnlyNamedFiles(dir);
  }

  static void checkAll(SiltStore store, List<byte[]> keys, Map<ByteBuffer, byte[]> model) {
    for (byte[] key : keys) {
      byte[] expected = model.get(ByteBuffer.wrap(key));
      byte[] found = store.get(key);
      if (expected == null) {
        assertNull(found);
      } else {
        assertArrayEquals(expected, found);
      }
    }
  }

  /** No leftovers: the manifest's sorted store and logs, nothing else of ours. */
  static void assertOnlyNamedFiles(Path dir) throws IOException {
    List<String> expected = new ArrayList<>(SiltManifest.read(dir).fileNames());
    try (Stream<Path> files = Files.list(dir)) {
      List<String> found = files.map(p -> p.getFileName().toString()).filter(n -> !n.startsWith(".") && !n.equals(SiltManifest.LOCK_FILE)).sorted().toList();
      assertEquals(expected.stream().sorted().toList(), found);
    }
  }

  /** Values past a hash store's single bucket read (64 KiB) and up to megabytes, through every tier and a reopen. */
  @Test
  void hugeValuesGoThroughEveryTier() throws IOException {
    long seed = 0x5117_0002L;
    System.out.println("SiltStoreModelTest huge values seed " + seed);
    Random random = new Random(seed);
    SiltOptions options = SiltOptions.builder().logStoreEntries(16).maxLogBytes(32 << 20).backgroundMerges(false).build();
    Map<ByteBuffer, byte[]> model = new HashMap<>();
    List<byte[]> keys = keyUniverse(random, 12);
    int[] sizes = {5 << 20, 1 << 20, 200_000, 65_536, 65_537, 0, 1, 100_000, 70_000, 3 << 20, 10, 64};
    Path dir = temp.resolve("huge");
    try (SiltStore store = SiltStore.open(dir, options)) {
      for (int i = 0; i < keys.size(); i++) {
        byte[] value = new byte[sizes[i]];
        random.nextBytes(value);
        store.put(keys.get(i), value);
        model.put(ByteBuffer.wrap(keys.get(i)), value);
      }
      checkAll(store, keys, model);
      store.freezeLog();
      store.convertNow();
      assertEquals(keys.size(), store.stats().hashEntries());
      checkAll(store, keys, model);
      store.mergeNow();
      assertEquals(keys.size(), store.stats().sortedRecords());
      checkAll(store, keys, model);
    }
    try (SiltStore store = SiltStore.open(dir, options)) {
      checkAll(store, keys, model);
    }
  }

  @Test
  void anEmptyStoreAndOneRecord() throws IOException {
    Path dir = temp.resolve("one");
    try (SiltStore store = SiltStore.open(dir, SMALL)) {
      assertNull(store.get(new byte[0]));
      assertNull(store.get("x".getBytes(StandardCharsets.UTF_8)));
      store.delete("absent".getBytes(StandardCharsets.UTF_8));
      store.put(new byte[0], new byte[0]);
      assertArrayEquals(new byte[0], store.get(new byte[0]));
      store.mergeNow();
      assertArrayEquals(new byte[0], store.get(new byte[0]));
    }
    try (SiltStore store = SiltStore.open(dir, SMALL)) {
      assertEquals(2, store.stats().logEntries(), "the put, and the delete of an absent key, replayed");
      assertArrayEquals(new byte[0], store.get(new byte[0]));
    }
  }

  @Test
  void deletesHideOlderValuesInEveryTierAndMergesDropThem() throws IOException {
    byte[] key = "k".getBytes(StandardCharsets.UTF_8);
    try (SiltStore store = SiltStore.open(temp.resolve("tiers"), SMALL)) {
      store.put(key, new byte[] {1});
      store.mergeNow(); // nothing frozen yet: the value stays in the log store
      assertEquals(0, store.stats().sortedRecords());
      store.freezeLog();
      assertArrayEquals(new byte[] {1}, store.get(key), "served by a frozen log store");
      store.convertNow();
      assertEquals(1, store.stats().hashStores());
      assertArrayEquals(new byte[] {1}, store.get(key), "served by a hash store");
      store.mergeNow(); // now in the sorted store
      assertEquals(1, store.stats().sortedRecords());
      assertEquals(0, store.stats().hashStores());
      store.delete(key);
      assertNull(store.get(key), "a delete in the log store hides the sorted store's value");
      store.freezeLog();
      assertNull(store.get(key), "and in a frozen log store");
      store.convertNow();
      assertNull(store.get(key), "and in a hash store");
      store.put(key, new byte[] {2});
      assertArrayEquals(new byte[] {2}, store.get(key), "the newest log store wins");
      store.freezeLog();
      assertArrayEquals(new byte[] {2}, store.get(key), "a newer frozen log store wins over a hash store");
      store.mergeNow();
      assertArrayEquals(new byte[] {2}, store.get(key));
      store.delete(key);
      store.freezeLog();
      store.mergeNow();
      assertNull(store.get(key));
      assertEquals(0, store.stats().sortedRecords(), "the merge applied the delete and dropped it");
    }
  }

  @Test
  void aFullLogStoreIsFrozenByItself() throws IOException {
    try (SiltStore store = SiltStore.open(temp.resolve("full"), SMALL)) {
      for (int i = 0; i < 1000; i++) {
        store.put(("key-" + i).getBytes(StandardCharsets.UTF_8), new byte[8]);
      }
      SiltStats stats = store.stats();
      assertTrue(stats.logStores() > 10, "1000 keys in 64-entry log stores: " + stats);
      assertEquals(1000, stats.logEntries());
      store.convertNow();
      assertEquals(1, store.stats().logStores());
      assertEquals(stats.logStores() - 1, store.stats().hashStores());
      assertEquals(1000, store.stats().hashEntries() + store.stats().logEntries());
      for (int i = 0; i < 1000; i++) {
        assertArrayEquals(new byte[8], store.get(("key-" + i).getBytes(StandardCharsets.UTF_8)));
      }
      store.mergeNow();
      assertEquals(1000, store.stats().sortedRecords() + store.stats().logEntries());
      assertEquals(1, store.stats().logStores(), "all but the log store taking writes merged");
      assertEquals(0, store.stats().hashStores());
    }
  }

  @Test
  void useAfterCloseIsRefusedClearly() throws IOException {
    SiltStore store = SiltStore.open(temp.resolve("closed"), SMALL);
    store.close();
    store.close();
    byte[] key = {1};
    assertThrows(StoreClosedException.class, () -> store.get(key));
    assertThrows(StoreClosedException.class, () -> store.put(key, key));
    assertThrows(StoreClosedException.class, () -> store.delete(key));
    assertThrows(StoreClosedException.class, store::sync);
    assertThrows(StoreClosedException.class, store::mergeNow);
  }

  @Test
  void refusesADirectoryOfOtherFilesAndRecordsLargerThanALog() throws IOException {
    Path foreign = Files.createDirectories(temp.resolve("foreign"));
    Files.writeString(foreign.resolve("notes.txt"), "mine");
    assertThrows(IllegalArgumentException.class, () -> SiltStore.open(foreign, SMALL));
    assertEquals(List.of("notes.txt"), Files.list(foreign).map(p -> p.getFileName().toString()).toList());
    try (SiltStore store = SiltStore.open(temp.resolve("big"), SMALL)) {
      assertThrows(IllegalArgumentException.class, () -> store.put(new byte[1], new byte[70 << 10]));
      store.put(new byte[1], new byte[60 << 10]);
      assertEquals(60 << 10, store.get(new byte[1]).length);
    }
  }
}
