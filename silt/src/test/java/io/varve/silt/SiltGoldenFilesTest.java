package io.varve.silt;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.varve.core.files.FileTrees;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SILT directories of released format versions stay readable. {@code v1}: a sorted store, two hash
 * stores, a frozen log and the newest log, with deletes in each. Regenerate with {@link #main}
 * (only for a new format version, into a new folder).
 */
class SiltGoldenFilesTest {
  @TempDir Path temp;

  static final SiltOptions OPTIONS = SiltOptions.builder().logStoreEntries(16).maxLogBytes(64 << 10).backgroundMerges(false).build();

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** The operations, and the model they leave. */
  static Map<String, String> write(Path dir) throws IOException {
    Map<String, String> model = new TreeMap<>();
    try (SiltStore store = SiltStore.open(dir, OPTIONS)) {
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

  private static Path golden() {
    return Path.of("src/test/resources/golden/v1");
  }

  @Test
  void version1ReadsAndTodaysCodeWritesTheSameFiles() throws IOException {
    Path copy = temp.resolve("copy");
    FileTrees.copyTree(golden(), copy);
    Map<String, String> model = write(temp.resolve("today"));
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
    for (String name : fileNames(golden())) {
      if (!name.startsWith("sorted-")) {
        assertArrayEquals(Files.readAllBytes(golden().resolve(name)), Files.readAllBytes(temp.resolve("today").resolve(name)), name);
      }
    }
    assertEquals(fileNames(golden()), fileNames(temp.resolve("today")));
  }

  private static List<String> fileNames(Path dir) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files.map(p -> p.getFileName().toString()).filter(n -> !n.startsWith(".") && !n.equals(SiltManifest.LOCK_FILE)).sorted().toList();
    }
  }

  /** Writes the golden directory: {@code args[0]} is the folder to create. */
  public static void main(String[] args) throws IOException {
    write(Path.of(args[0]));
  }
}
