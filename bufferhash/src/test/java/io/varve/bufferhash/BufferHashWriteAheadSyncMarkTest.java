package io.varve.bufferhash;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The write-ahead sync mark (state version 4, {@link WalSyncMark}): a newest segment cut at a
 * record boundary, or missing, is refused on open instead of serving older values. Before, such a
 * table opened and silently lost the synced writes past the cut (40 of 50 in the probe).
 */
class BufferHashWriteAheadSyncMarkTest {
  @TempDir Path temp;

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static BufferHashBuilder builder(Path dir) {
    return RandomWrites.smallTable(dir, Durability.SYNC_ON_CALL, 4096);
  }

  /** Copies the files of {@code from} but its lock: the image a kill -9 leaves of an open table. */
  static void copyFiles(Path from, Path to) throws IOException {
    Files.createDirectories(to);
    try (Stream<Path> files = Files.list(from)) {
      for (Path file : (Iterable<Path>) files::iterator) {
        if (!file.getFileName().toString().equals("lock")) {
          Files.copy(file, to.resolve(file.getFileName()), StandardCopyOption.REPLACE_EXISTING);
        }
      }
    }
  }

  private static Path newestSegment(Path dir) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files.filter(p -> p.getFileName().toString().startsWith("wal-")).sorted().reduce((a, b) -> b).orElseThrow();
    }
  }

  /** Where each record of {@code segment} ends. */
  private static List<Integer> recordEnds(byte[] segment) {
    List<Integer> ends = new ArrayList<>();
    int at = WriteAheadLog.SEGMENT_HEADER_BYTES;
    while (at + WriteAheadLog.RECORD_HEADER_BYTES <= segment.length) {
      int length = LogFormat.getInt(segment, at);
      if (length <= 0) {
        break;
      }
      at += WriteAheadLog.RECORD_HEADER_BYTES + length;
      ends.add(at);
    }
    return ends;
  }

  /** A crashed table with 50 keys, each synced on its own, in one segment. */
  private Path crashedWithFiftySyncedKeys() throws IOException {
    Path live = temp.resolve("live");
    Path crashed = temp.resolve("crashed");
    try (BufferHash table = builder(live).walSegmentBytes(1 << 20).open()) {
      for (int i = 0; i < 50; i++) {
        table.put(bytes("key-" + i), bytes("value-" + i));
        table.sync();
      }
      copyFiles(live, crashed);
    }
    return crashed;
  }

  @Test
  void aNewestSegmentCutAtARecordBoundaryIsRefused() throws Exception {
    Path crashed = crashedWithFiftySyncedKeys();
    Path segment = newestSegment(crashed);
    byte[] whole = Files.readAllBytes(segment);
    List<Integer> ends = recordEnds(whole);
    assertEquals(50, ends.size(), "one record per put");
    int cut = ends.get(9); // 10 of 50 synced puts left
    Files.write(segment, java.util.Arrays.copyOf(whole, cut));
    Path copy = temp.resolve("copy");
    copyFiles(crashed, copy);
    WriteAheadShorterThanSyncException e = assertThrows(WriteAheadShorterThanSyncException.class, () -> builder(crashed).open().close());
    System.out.println("BufferHashWriteAheadSyncMarkTest: " + e.getMessage());
    assertEquals(segment, e.file());
    assertEquals(cut, e.segmentBytes());
    assertEquals(whole.length, e.syncedBytes());
    assertTrue(e.getMessage().contains(segment.toString()) && e.getMessage().contains(cut + " bytes") && e.getMessage().contains(whole.length + " bytes"));
    // Asked to, the table opens with what the segment holds; the next open does not ask again.
    try (BufferHash table = builder(copy).dropDamagedWriteAheadTail(true).open()) {
      for (int i = 0; i < 50; i++) {
        assertArrayEquals(i < 10 ? bytes("value-" + i) : null, table.get(bytes("key-" + i)), "key-" + i);
      }
      table.put(bytes("after"), bytes("a"));
      table.sync();
      copyFiles(copy, temp.resolve("again"));
    }
    try (BufferHash table = builder(temp.resolve("again")).open()) {
      assertArrayEquals(bytes("a"), table.get(bytes("after")));
      assertArrayEquals(bytes("value-9"), table.get(bytes("key-9")));
    }
  }

  @Test
  void aMissingNewestSegmentIsRefused() throws Exception {
    Path crashed = crashedWithFiftySyncedKeys();
    Files.delete(newestSegment(crashed));
    WriteAheadShorterThanSyncException e = assertThrows(WriteAheadShorterThanSyncException.class, () -> builder(crashed).open().close());
    System.out.println("BufferHashWriteAheadSyncMarkTest: " + e.getMessage());
    assertEquals(0, e.segmentBytes());
  }

  @Test
  void oneDamagedSlotFallsBackToTheOtherAndACleanCloseNeedsNoSegment() throws Exception {
    Path crashed = crashedWithFiftySyncedKeys();
    Path mark = crashed.resolve(WalSyncMark.FILE);
    byte[] bytes = Files.readAllBytes(mark);
    int newest = LogFormat.getLong(bytes, 8) > LogFormat.getLong(bytes, WalSyncMark.SLOT_SPACING + 8) ? 0 : WalSyncMark.SLOT_SPACING;
    bytes[newest + 20] ^= 1;
    Files.write(mark, bytes);
    try (BufferHash table = builder(crashed).open()) {
      assertArrayEquals(bytes("value-49"), table.get(bytes("key-49")));
    }
    try (Stream<Path> files = Files.list(crashed)) {
      assertFalse(files.anyMatch(p -> p.getFileName().toString().startsWith("wal-")), "a clean close hands the segments over");
    }
    try (BufferHash table = builder(crashed).open()) {
      assertArrayEquals(bytes("value-49"), table.get(bytes("key-49")));
    }
  }

  /**
   * A power loss right after syncs: the unforced writes of every file lost ("", the mark's among
   * them, which then lags the log), or of the segments only (the mark's kept: it must not name
   * bytes the segments could lose). The table opens, never refused, with every synced write.
   */
  @org.junit.jupiter.params.ParameterizedTest(name = "lost: \"{0}\"")
  @org.junit.jupiter.params.provider.ValueSource(strings = {"", "wal-", WalSyncMark.FILE})
  void aPowerLossLosesNoSyncedWriteAndIsNotRefused(String lost) throws Exception {
    long seed = 0xC2A5_1L + lost.length();
    System.out.println("BufferHashWriteAheadSyncMarkTest seed " + seed + ", lost " + lost);
    Random random = new Random(seed);
    Path live = temp.resolve("live");
    Path crashed = temp.resolve("crashed");
    TreeMap<String, String> synced = new TreeMap<>();
    try (CrashFiles files = CrashFiles.install()) {
      BufferHash table = builder(live).open();
      try {
        for (int i = 0; i < 3000; i++) {
          String key = "k" + random.nextInt(800);
          String value = "v" + i;
          table.put(bytes(key), bytes(value));
          synced.put(key, value);
          if (random.nextInt(10) == 0) {
            table.sync();
          }
        }
        table.sync();
        for (int i = 0; i < 50; i++) {
          table.put(bytes("unsynced-" + i), bytes("u")); // may be lost
        }
        CrashFiles.copyAsKilled(live, crashed);
        files.loseUnforced(live, crashed, lost);
      } finally {
        try {
          table.close();
        } catch (RuntimeException e) {
          // the live table is not what is checked
        }
      }
    }
    try (BufferHash table = builder(crashed).open()) {
      for (var entry : synced.entrySet()) {
        assertArrayEquals(bytes(entry.getValue()), table.get(bytes(entry.getKey())), entry.getKey() + ", seed " + seed);
      }
    }
  }

  /** A table made before state version 4 keeps its version and writes no mark. */
  @Test
  void aVersion3TableStaysVersion3WithoutAMark() throws Exception {
    Path dir = temp.resolve("v3");
    copyFiles(Path.of(getClass().getResource("/golden/v3-crashed").toURI()), dir);
    try (BufferHash table = BufferHash.builder(dir).memoryBytes(64 * 1024).entryBytes(24).bufferBytes(4096).durability(Durability.SYNC_ON_CALL).open()) {
      table.put(bytes("new"), bytes("n"));
      table.sync();
    }
    assertEquals(3, Files.readAllBytes(dir.resolve("state"))[4]);
    assertFalse(Files.exists(dir.resolve(WalSyncMark.FILE)));
  }

  /**
   * Images of a table after each of its syncs (as a kill -9 leaves it), each put back with the
   * sync mark of another image: a mark from a later sync than the segments must be refused; else
   * the table opens with exactly what was synced when its segments were copied.
   */
  @Test
  void olderCopiesOfTheSegmentsAreRefusedOrOpenWithWhatTheyHold() throws Exception {
    long seed = 0x5_1C_3A_2CL;
    System.out.println("BufferHashWriteAheadSyncMarkTest seed " + seed);
    Random random = new Random(seed);
    int rounds = 16;
    List<TreeMap<String, String>> models = new ArrayList<>();
    TreeMap<String, String> model = new TreeMap<>();
    Path live = temp.resolve("live");
    try (BufferHash table = builder(live).open()) {
      for (int r = 0; r < rounds; r++) {
        int ops = 1 + random.nextInt(random.nextBoolean() ? 40 : 400);
        for (int k = 0; k < ops; k++) {
          String key = "k" + random.nextInt(500);
          if (random.nextInt(5) == 0) {
            table.delete(bytes(key));
            model.remove(key);
          } else {
            String value = "v" + r + "-" + k + "-" + "x".repeat(random.nextInt(20));
            table.put(bytes(key), bytes(value));
            model.put(key, value);
          }
        }
        table.sync();
        models.add(new TreeMap<>(model));
        copyFiles(live, temp.resolve("snap-" + r));
      }
    }
    int refused = 0;
    int opened = 0;
    for (int i = 0; i < rounds; i++) {
      for (int j = 0; j < rounds; j++) {
        if (Math.abs(i - j) > 3 && random.nextInt(4) != 0) {
          continue; // a sample of the far pairs: each open reads the whole log
        }
        Path dir = temp.resolve("copy-" + i + "-" + j);
        copyFiles(temp.resolve("snap-" + i), dir);
        if (Files.exists(temp.resolve("snap-" + j).resolve(WalSyncMark.FILE))) { // none before state version 4
          Files.copy(temp.resolve("snap-" + j).resolve(WalSyncMark.FILE), dir.resolve(WalSyncMark.FILE), StandardCopyOption.REPLACE_EXISTING);
        }
        String context = "segments of sync " + i + ", mark of sync " + j + ", seed " + seed;
        if (j > i) {
          assertThrows(WriteAheadShorterThanSyncException.class, () -> builder(dir).open().close(), context);
          refused++;
        } else {
          try (BufferHash table = builder(dir).open()) {
            for (int k = 0; k < 500; k++) {
              String key = "k" + k;
              String expected = models.get(i).get(key);
              byte[] found = table.get(bytes(key));
              if (expected == null) {
                assertNull(found, context + ": " + key);
              } else {
                assertArrayEquals(bytes(expected), found, context + ": " + key);
              }
            }
          }
          opened++;
        }
        io.varve.core.files.FileTrees.deleteTree(dir);
      }
    }
    System.out.println("BufferHashWriteAheadSyncMarkTest older copies: " + refused + " refused, " + opened + " opened with what they hold");
  }
}
