package io.varve.silt;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.varve.core.files.FileTrees;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SILT directories of released format versions stay readable. {@code v1}: a sorted store, two hash
 * stores, a frozen log and the newest log, with deletes in each, of a store without an id (manifest
 * version 1). {@code v2}: the same operations in a store of id {@link #V2_ID} (manifest, logs and
 * hash stores of version 2). {@code v3}: the same in a store of id {@link #V3_ID} with a sync mark
 * (manifest version 3, logs and hash stores of version 2, the mark's slots of version 1), written
 * at the close. Regenerate with {@link #main} (only for a new format version, into a
 * new folder).
 */
class SiltGoldenFilesTest {
  @TempDir Path temp;

  /** The store id of the {@code v2} golden. */
  static final long V2_ID = 0x5117_601D_E17A_B1E5L;
  /** The store id of the {@code v3} golden. */
  static final long V3_ID = 0x5117_601D_E17A_B1E3L;

  static final SiltOptions OPTIONS = SiltOptions.builder().logStoreEntries(16).maxLogBytes(64 << 10).backgroundMerges(false).build();

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** The operations, and the model they leave. */
  static Map<String, String> write(Path dir, int version) throws IOException {
    Map<String, String> model = new TreeMap<>();
    long storeId = version == 1 ? 0 : version == 2 ? V2_ID : V3_ID;
    try (SiltStore store = SiltStore.open(dir, OPTIONS, () -> storeId, version >= 3)) {
      for (int batch = 0; batch < 5; batch++) {
        for (int i = 0; i < 10; i++) {
          String key = "golden-" + (batch * 7 + i) % 31;
          if ((batch + i) % 4 == 3) {
            store.delete(bytes(key));
            model.remove(key);
          } else {
            String value = "v" + batch + "-" + i + "-ü".repeat(i % 3);
            store.put(bytes(key), bytes(value));
            model.put(key, value);
          }
        }
        switch (batch) {
          case 0 -> {
            store.freezeLog();
            store.mergeNow();
          }
          case 1, 2 -> {
            store.freezeLog();
            store.convertNow();
          }
          case 3 -> store.freezeLog();
          default -> { }
        }
      }
      SiltStats stats = store.stats();
      assertEquals(2, stats.hashStores(), stats.toString());
      assertEquals(2, stats.logStores(), stats.toString());
    }
    return model;
  }

  private static Path golden(int version) {
    return Path.of("src/test/resources/golden/v" + version);
  }

  @Test
  void version1ReadsAndTodaysCodeWritesTheSameFiles() throws IOException {
    readsAndTodaysCodeWritesTheSameFiles(1, 0);
  }

  @Test
  void version2ReadsAndTodaysCodeWritesTheSameFiles() throws IOException {
    readsAndTodaysCodeWritesTheSameFiles(2, V2_ID);
  }

  @Test
  void version3ReadsAndTodaysCodeWritesTheSameFiles() throws IOException {
    readsAndTodaysCodeWritesTheSameFiles(3, V3_ID);
  }

  /**
   * The golden of {@code version} serves the model, its files are of that version, and today's code
   * writes the same bytes from the same operations (the sorted store aside, whose meta file holds
   * its creation time; so the CRC32C of that meta file in a version-2 manifest, and the manifest's
   * own, are left out).
   */
  private void readsAndTodaysCodeWritesTheSameFiles(int version, long storeId) throws IOException {
    Path golden = golden(version);
    Path copy = temp.resolve("copy");
    FileTrees.copyTree(golden, copy);
    Map<String, String> model = write(temp.resolve("today"), version);
    SiltManifest manifest = SiltManifest.read(golden);
    assertEquals(version, manifest.version());
    assertEquals(storeId, manifest.storeId());
    for (String name : fileNames(golden)) {
      if (!name.startsWith("sorted-")) {
        // Logs and hash stores stay at version 2 in a store of version 3; a sync mark's slots are of version 1.
        int expected = name.equals(SiltManifest.FILE) ? version : name.equals(SiltSyncMark.FILE) ? 1 : Math.min(version, 2);
        assertEquals(expected, Files.readAllBytes(golden.resolve(name))[4], name + "'s version");
      }
    }
    try (SiltStore store = SiltStore.open(copy, OPTIONS)) {
      assertEquals(2, store.stats().hashStores());
      for (int k = 0; k < 31; k++) {
        String key = "golden-" + k;
        byte[] found = store.get(bytes(key));
        if (model.containsKey(key)) {
          assertArrayEquals(bytes(model.get(key)), found, key);
        } else {
          assertNull(found, key);
        }
      }
    }
    for (String name : fileNames(golden)) {
      if (!name.startsWith("sorted-")) {
        byte[] expected = Files.readAllBytes(golden.resolve(name));
        byte[] today = Files.readAllBytes(temp.resolve("today").resolve(name));
        if (name.equals(SiltManifest.FILE) && version >= 2) {
          // storeId at 8, sortedMeta at 16: the sorted store's meta CRC32C, then the footer, differ.
          assertEquals(expected.length, today.length, name);
          assertArrayEquals(Arrays.copyOfRange(expected, 0, 16), Arrays.copyOfRange(today, 0, 16), name);
          assertArrayEquals(Arrays.copyOfRange(expected, 20, expected.length - 4), Arrays.copyOfRange(today, 20, today.length - 4), name);
        } else {
          assertArrayEquals(expected, today, name);
        }
      }
    }
    assertEquals(fileNames(golden), fileNames(temp.resolve("today")));
  }

  private static List<String> fileNames(Path dir) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files.map(p -> p.getFileName().toString()).filter(n -> !n.startsWith(".") && !n.equals(SiltManifest.LOCK_FILE)).sorted().toList();
    }
  }

  /** Writes the golden directory: {@code args[0]} is the folder to create, {@code args[1]} the version (1 to 3). */
  public static void main(String[] args) throws IOException {
    write(Path.of(args[0]), Integer.parseInt(args[1]));
  }
}
