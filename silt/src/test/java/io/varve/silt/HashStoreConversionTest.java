package io.varve.silt;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.core.testing.ReadRecordingChannel;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A conversion reads its log once in order, whether its records fit in memory or spill to
 * partitions, and both ways write the same hash store.
 */
class HashStoreConversionTest {
  @TempDir Path temp;

  /** A conversion of 512 KiB (a quarter of the smallest merge budget) against one of 16 MiB. */
  private static SiltOptions options(long mergeBudget) {
    return SiltOptions.builder().logStoreEntries(4096).maxLogBytes(8 << 20).backgroundMerges(false).mergeMemoryBudget(mergeBudget).build();
  }

  @Test
  void spilledAndInMemoryConversionsReadTheLogInOrderAndAgree() throws IOException {
    long seed = 0xC0417E;
    System.out.println("HashStoreConversionTest seed " + seed);
    Path spilled = temp.resolve("spilled");
    Path inMemory = temp.resolve("in-memory");
    Map<String, byte[]> expected = null;
    for (Path dir : List.of(spilled, inMemory)) {
      SiltOptions options = options(dir == spilled ? 2L << 20 : 64L << 20);
      List<Long> logReads = Collections.synchronizedList(new ArrayList<>());
      try (SiltStore store = SiltTestFiles.open(dir, options)) {
        expected = fill(store, new Random(seed));
        store.freezeLog();
        long logBytes = Files.size(oldestFile(dir, ".vlog"));
        assertTrue(dir == spilled ? logBytes > 4 * options.conversionMemory() : logBytes < options.conversionMemory(), logBytes + " bytes");
        FileAccess.opener = (file, openOptions) -> {
          FileChannel channel = FileChannel.open(file, openOptions);
          return file.getFileName().toString().endsWith(".vlog") ? ReadRecordingChannel.wrap(channel, logReads) : channel;
        };
        try {
          store.convertNow();
        } finally {
          FileAccess.opener = FileChannel::open;
        }
        assertEquals(1, store.stats().hashStores());
        check(store, expected);
      }
      assertFalse(logReads.isEmpty(), "the conversion reads the log through its channel");
      for (int i = 1; i < logReads.size(); i++) {
        assertTrue(logReads.get(i) >= logReads.get(i - 1), "read " + i + " goes back: " + logReads);
      }
      try (Stream<Path> files = Files.list(dir)) {
        assertTrue(files.noneMatch(p -> p.getFileName().toString().startsWith("convert-")), "the scratch directory is deleted");
      }
      try (SiltStore store = SiltTestFiles.open(dir, options)) {
        check(store, expected);
      }
    }
    assertArrayEquals(Files.readAllBytes(oldestFile(spilled, ".vhash")), Files.readAllBytes(oldestFile(inMemory, ".vhash")));
  }

  /** Updates, deletes, empty keys and values, non-ASCII keys and a value larger than the spill memory. */
  private static Map<String, byte[]> fill(SiltStore store, Random random) throws IOException {
    Map<String, byte[]> expected = new HashMap<>();
    for (int i = 0; i < 3800; i++) {
      String key = random.nextInt(8) == 0 ? "ключ-" + random.nextInt(500) : "key-" + random.nextInt(3000);
      if (i == 100) {
        key = "";
      }
      if (random.nextInt(10) == 0) {
        store.delete(bytes(key));
        expected.put(key, null);
      } else {
        byte[] value = new byte[i == 1000 ? 700 << 10 : random.nextInt(8) == 0 ? 0 : random.nextInt(1500)];
        random.nextBytes(value);
        store.put(bytes(key), value);
        expected.put(key, value);
      }
    }
    return expected;
  }

  private static void check(SiltStore store, Map<String, byte[]> expected) {
    for (Map.Entry<String, byte[]> e : expected.entrySet()) {
      if (e.getValue() == null) {
        assertNull(store.get(bytes(e.getKey())), e.getKey());
      } else {
        assertArrayEquals(e.getValue(), store.get(bytes(e.getKey())), e.getKey());
      }
    }
  }

  private static Path oldestFile(Path dir, String suffix) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      List<Path> matching = files.filter(p -> p.getFileName().toString().endsWith(suffix)).sorted().toList();
      assertFalse(matching.isEmpty(), "no " + suffix + " in " + dir);
      return matching.get(0);
    }
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
