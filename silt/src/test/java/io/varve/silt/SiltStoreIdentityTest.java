package io.varve.silt;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.varve.core.files.FileTrees;
import io.varve.core.format.CorruptStoreException;
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

/**
 * A file of another store, copied in under a number this store uses, is refused on open, never
 * served. Two stores A and B run the same workload shape (same keys, same value lengths, same
 * freezes, conversions and merges, so the same file numbers) with different values; one of B's
 * files put into a copy of A must fail A's open with a {@link CorruptStoreException} naming it.
 * Before store ids, every such copy opened and served B's values as A's.
 */
class SiltStoreIdentityTest {
  @TempDir Path temp;

  static final SiltOptions OPTIONS = SiltOptions.builder().logStoreEntries(1024).maxLogBytes(1 << 20).backgroundMerges(false).build();
  static final int KEYS = 600;

  private static byte[] key(int i) {
    return ("identity-" + i).getBytes(StandardCharsets.UTF_8);
  }

  /**
   * Writes the workload into a new store in {@code dir}: a sorted store, two hash stores, a frozen
   * log and the newest log, deletes in each tier. Values come from {@code seed}; their lengths, and
   * so every file's number, do not.
   */
  static Map<ByteBuffer, byte[]> write(Path dir, long seed) throws IOException {
    Random random = new Random(seed);
    Map<ByteBuffer, byte[]> model = new HashMap<>();
    try (SiltStore store = SiltStore.open(dir, OPTIONS)) {
      for (int round = 0; round < 5; round++) {
        for (int i = round * 37 % 50; i < KEYS; i += round + 1) {
          if ((i + round) % 7 == 3 && round > 0) {
            store.delete(key(i));
            model.remove(ByteBuffer.wrap(key(i)));
          } else {
            byte[] value = new byte[1 + (i * 31 + round) % 40];
            random.nextBytes(value);
            store.put(key(i), value);
            model.put(ByteBuffer.wrap(key(i)), value);
          }
        }
        switch (round) {
          case 0 -> {
            store.freezeLog();
            store.mergeNow();
          }
          case 1, 2 -> {
            store.freezeLog();
            store.convertNow();
          }
          case 3 -> store.freezeLog();
          default -> store.sync();
        }
      }
      SiltStats stats = store.stats();
      assertEquals(2, stats.hashStores(), stats.toString());
      assertEquals(2, stats.logStores(), stats.toString());
    }
    return model;
  }

  @Test
  void anotherStoresFileIsRefusedNeverServed() throws IOException {
    long seedA = 0x1D_A000_0001L;
    long seedB = 0x1D_B000_0002L;
    System.out.println("SiltStoreIdentityTest seeds A " + Long.toHexString(seedA) + " B " + Long.toHexString(seedB));
    Path a = temp.resolve("a");
    Path b = temp.resolve("b");
    Map<ByteBuffer, byte[]> modelA = write(a, seedA);
    Map<ByteBuffer, byte[]> modelB = write(b, seedB);
    List<String> namesA = storeFiles(a);
    assertEquals(namesA, storeFiles(b), "the same workload shape gives the same file names");
    check(a, modelA);
    check(b, modelB);

    SiltManifest manifest = SiltManifest.read(a);
    List<String> swaps = new ArrayList<>();
    manifest.hashNumbers().forEach(n -> swaps.add(SiltManifest.hashName(n)));
    manifest.logNumbers().forEach(n -> swaps.add(SiltManifest.logName(n))); // the frozen one and the newest
    swaps.add(SiltManifest.sortedName(manifest.sortedNumber()));
    swaps.add(SiltManifest.FILE); // B's manifest over A's files: every file A's, none B's
    List<String> served = new ArrayList<>();
    for (String name : swaps) {
      Path work = temp.resolve("a-with-" + name);
      FileTrees.copyTree(a, work);
      FileTrees.deleteTree(work.resolve(name));
      if (Files.isDirectory(b.resolve(name))) {
        FileTrees.copyTree(b.resolve(name), work.resolve(name));
      } else {
        Files.copy(b.resolve(name), work.resolve(name));
      }
      SiltStore store;
      try {
        store = SiltStore.open(work, OPTIONS);
      } catch (CorruptStoreException e) {
        System.out.println("SiltStoreIdentityTest " + name + " of B in A: " + e.getMessage());
        // B's manifest names A's files: the first one opened is refused, whichever it is.
        assertTrue(name.equals(SiltManifest.FILE) || e.getMessage().contains(work.resolve(name).toString()),
            name + ": the error names another file: " + e.getMessage());
        continue;
      }
      try (store) {
        served.add(name + " of B in A opened: " + differences(store, modelA));
      }
    }
    if (!served.isEmpty()) {
      fail(String.join("\n", served));
    }
  }

  /** A store keeps its id across reopens, and two stores draw different ones. */
  @Test
  void aNewStoreHasAnIdOfItsOwn() throws IOException {
    Path a = temp.resolve("a");
    Path b = temp.resolve("b");
    SiltStore.open(a, OPTIONS).close();
    SiltStore.open(b, OPTIONS).close();
    SiltManifest ma = SiltManifest.read(a);
    assertEquals(3, ma.version()); // an id and a sync mark
    assertNotEquals(0, ma.storeId());
    assertNotEquals(ma.storeId(), SiltManifest.read(b).storeId());
    try (SiltStore store = SiltStore.open(a, OPTIONS)) {
      store.put(key(1), key(1));
      store.freezeLog();
      store.convertNow();
      store.mergeNow();
    }
    assertEquals(ma.storeId(), SiltManifest.read(a).storeId());
  }

  /**
   * A store without an id (manifest version 1, the {@code v1} golden) keeps working as before: it
   * is never given one, and every file it writes after freezes, conversions and merges is of
   * version 1, so that no crash can leave it half converted.
   */
  @Test
  void aStoreWithoutAnIdStaysVersion1() throws IOException {
    Path dir = temp.resolve("v1");
    FileTrees.copyTree(Path.of("src/test/resources/golden/v1"), dir);
    try (SiltStore store = SiltStore.open(dir, SiltGoldenFilesTest.OPTIONS)) {
      for (int i = 0; i < 40; i++) {
        store.put(key(i), key(i + 1));
      }
      store.freezeLog();
      store.convertNow();
      store.put(key(3), key(3));
      store.freezeLog();
      store.convertNow();
      store.mergeNow();
      store.put(key(4), key(5));
    }
    SiltManifest manifest = SiltManifest.read(dir);
    assertEquals(1, manifest.version());
    assertEquals(0, manifest.storeId());
    for (String name : storeFiles(dir)) {
      if (!name.startsWith("sorted-")) {
        assertEquals(1, Files.readAllBytes(dir.resolve(name))[4], name + "'s version");
      }
    }
    try (SiltStore store = SiltStore.open(dir, SiltGoldenFilesTest.OPTIONS)) {
      assertArrayEquals(key(3), store.get(key(3)));
      assertArrayEquals(key(5), store.get(key(4)));
      assertArrayEquals(key(11), store.get(key(10)));
      assertNull(store.get(key(999)));
    }
  }

  private static List<String> storeFiles(Path dir) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files.map(p -> p.getFileName().toString()).filter(n -> !n.equals(SiltManifest.LOCK_FILE)).sorted().toList();
    }
  }

  private static void check(Path dir, Map<ByteBuffer, byte[]> model) throws IOException {
    try (SiltStore store = SiltStore.open(dir, OPTIONS)) {
      String differences = differences(store, model);
      assertTrue(differences.startsWith("0 wrong, 0 missing, 0 resurrected"), differences);
    }
  }

  /** How the store's answers differ from {@code model}, over every key of the workload. */
  private static String differences(SiltStore store, Map<ByteBuffer, byte[]> model) {
    int wrong = 0;
    int missing = 0;
    int resurrected = 0;
    String first = "";
    for (int i = 0; i < KEYS + 10; i++) {
      byte[] expected = model.get(ByteBuffer.wrap(key(i)));
      byte[] found;
      try {
        found = store.get(key(i));
      } catch (RuntimeException e) {
        continue; // refused: not served
      }
      if (expected == null && found != null) {
        resurrected++;
      } else if (expected != null && found == null) {
        missing++;
      } else if (expected != null && !java.util.Arrays.equals(expected, found)) {
        wrong++;
      } else {
        continue;
      }
      if (first.isEmpty()) {
        first = ", first " + new String(key(i), StandardCharsets.UTF_8);
      }
    }
    return wrong + " wrong, " + missing + " missing, " + resurrected + " resurrected of " + (KEYS + 10) + " keys" + first;
  }
}
