package io.varve.bufferhash;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.core.format.CorruptStoreException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The first write-ahead segment that must exist (state version 5, {@link WalSyncMark} version 2).
 * Before, the mark knew only the newest segment: with the oldest of several live segments deleted
 * (operator error, a partial restore), open replayed the rest and lost what the deleted one held
 * without a word.
 */
class BufferHashWriteAheadFirstSegmentTest {
  @TempDir Path temp;

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** Small segments (one or two syncs each), so that a table holds several and retires some. */
  static BufferHashBuilder builder(Path dir) {
    return RandomWrites.smallTable(dir, Durability.SYNC_ON_CALL, 4096).walSegmentBytes(2048);
  }

  static List<Path> segments(Path dir) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files.filter(p -> p.getFileName().toString().startsWith("wal-")).sorted().toList();
    }
  }

  /** The newest valid slot of {@code dir}'s mark: {generation, segment, syncedBytes, firstSegment}. */
  static long[] mark(Path dir) throws IOException {
    byte[] mark = Files.readAllBytes(dir.resolve(WalSyncMark.FILE));
    assertEquals(WalSyncMark.fileBytes(WalSyncMark.VERSION), mark.length);
    long[] best = null;
    for (int at = 0; at <= WalSyncMark.SLOT_SPACING; at += WalSyncMark.SLOT_SPACING) {
      if (mark[at + 4] == WalSyncMark.VERSION && LogFormat.isSealed(TableIds.of(dir), mark, at, at + 40)) {
        long[] slot = {LogFormat.getLong(mark, at + 8), LogFormat.getLong(mark, at + 16), LogFormat.getLong(mark, at + 24), LogFormat.getLong(mark, at + 32)};
        if (best == null || slot[0] > best[0]) {
          best = slot;
        }
      }
    }
    assertTrue(best != null, dir + ": no valid slot");
    return best;
  }

  private static long number(Path segment) {
    return Long.parseLong(segment.getFileName().toString().substring(4));
  }

  /**
   * Writes and syncs until the table holds at least {@code live} segments, some retired before;
   * after every sync the mark's first segment is the oldest on disk. Returns what was synced.
   */
  private static TreeMap<String, String> writeUntilSegments(BufferHash table, Path dir, int live, Random random) throws IOException {
    TreeMap<String, String> synced = new TreeMap<>();
    boolean retired = false;
    long firstEver = -1;
    for (int round = 0; round < 10_000 && !(retired && segments(dir).size() >= live); round++) {
      for (int k = 0; k < 20; k++) {
        String key = "k" + random.nextInt(2_000);
        String value = "v" + round + "-" + k;
        table.put(bytes(key), bytes(value));
        synced.put(key, value);
      }
      table.sync();
      List<Path> segments = segments(dir);
      firstEver = firstEver < 0 ? number(segments.get(0)) : firstEver;
      retired = number(segments.get(0)) > firstEver;
      long[] mark = mark(dir);
      assertEquals(number(segments.get(0)), mark[3], "round " + round + ": the first segment, with " + segments);
      assertEquals(number(segments.get(segments.size() - 1)), mark[1], "round " + round + ": the newest segment");
    }
    assertTrue(retired && segments(dir).size() >= live, "segments: " + segments(dir));
    return synced;
  }

  @Test
  void aMissingOldestOrMiddleSegmentIsRefusedNamingIt() throws Exception {
    long seed = 0xF1_257L;
    System.out.println("BufferHashWriteAheadFirstSegmentTest seed " + seed);
    Path live = temp.resolve("live");
    Path killed = temp.resolve("killed");
    try (BufferHash table = builder(live).open()) {
      writeUntilSegments(table, live, 4, new Random(seed));
      CrashFiles.copyAsKilled(live, killed);
    }
    List<Path> segments = segments(killed);
    for (Path missing : List.of(segments.get(0), segments.get(1), segments.get(segments.size() - 2))) {
      Path dir = temp.resolve("without-" + missing.getFileName());
      BufferHashWriteAheadSyncMarkTest.copyFiles(killed, dir);
      Files.delete(dir.resolve(missing.getFileName()));
      CorruptStoreException refused = assertThrows(CorruptStoreException.class, () -> builder(dir).open().close(), missing.toString());
      assertTrue(refused.getMessage().startsWith(dir.resolve(missing.getFileName()) + " is missing"), refused.getMessage());
      // dropDamagedWriteAheadTail drops a damaged tail of the newest segment, never whole older ones
      assertThrows(CorruptStoreException.class, () -> builder(dir).dropDamagedWriteAheadTail(true).open().close(), missing.toString());
    }
  }

  /**
   * A crash after a retirement forced the mark's new first segment and before it deleted the
   * segments below it (or a power loss that brought their names back): they are left over, not
   * replayed, and deleted on open. The same for a close that handed the segments over to the
   * buffers file: they are older than the first segment its mark names.
   */
  @Test
  void segmentsBelowTheFirstAreLeftOversAndDeleted() throws Exception {
    long seed = 0xF1_258L;
    System.out.println("BufferHashWriteAheadFirstSegmentTest seed " + seed);
    Random random = new Random(seed);
    Path live = temp.resolve("live");
    Path killed = temp.resolve("killed");
    Map<Path, byte[]> retiredCopies = new TreeMap<>();
    TreeMap<String, String> synced;
    try (BufferHash table = builder(live).open()) {
      List<Path> before = segments(live);
      for (Path segment : before) {
        retiredCopies.put(segment.getFileName(), Files.readAllBytes(segment));
      }
      synced = writeUntilSegments(table, live, 3, random);
      CrashFiles.copyAsKilled(live, killed);
      for (Path segment : segments(live)) {
        retiredCopies.remove(segment.getFileName());
      }
    }
    Path closed = temp.resolve("closed-with-leftovers");
    BufferHashWriteAheadSyncMarkTest.copyFiles(live, closed);
    List<Path> killedSegments = segments(killed);
    for (Path segment : killedSegments) {
      Files.copy(segment, closed.resolve(segment.getFileName()));
    }
    assertFalse(retiredCopies.isEmpty(), "no segment was retired");
    for (Map.Entry<Path, byte[]> copy : retiredCopies.entrySet()) {
      Files.write(killed.resolve(copy.getKey()), copy.getValue());
    }
    for (Path dir : List.of(killed, closed)) {
      List<Path> leftOver = new ArrayList<>(segments(dir));
      leftOver.removeIf(p -> {
        try {
          return number(p) >= mark(dir)[3];
        } catch (IOException e) {
          throw new java.io.UncheckedIOException(e);
        }
      });
      assertFalse(leftOver.isEmpty(), dir + ": segments below the first");
      try (BufferHash table = builder(dir).open()) {
        for (Map.Entry<String, String> entry : synced.entrySet()) {
          assertArrayEquals(bytes(entry.getValue()), table.get(bytes(entry.getKey())), dir + ": " + entry.getKey());
        }
        for (Path segment : leftOver) {
          assertFalse(Files.exists(segment), segment + " is left over, and deleted");
        }
      }
    }
  }

  /** A table of state version 4 keeps its version and its version-1 mark (no first segment) across writes, syncs and closes. */
  @Test
  void aVersion4TableKeepsItsVersionAndItsMark() throws Exception {
    Path dir = temp.resolve("v4");
    BufferHashWriteAheadSyncMarkTest.copyFiles(Path.of(getClass().getResource("/golden/v4-crashed").toURI()), dir);
    BufferHashBuilder builder = BufferHash.builder(dir).memoryBytes(64 * 1024).entryBytes(24).bufferBytes(4096).durability(Durability.SYNC_ON_CALL)
        .walSegmentBytes(2048);
    try (BufferHash table = builder.open()) {
      for (int i = 0; i < 2_000; i++) {
        table.put(bytes("new-" + i), bytes("n" + i));
        if (i % 50 == 0) {
          table.sync();
        }
      }
      table.sync();
      assertTrue(segments(dir).size() > 1, "segments: " + segments(dir));
    }
    try (BufferHash table = builder.open()) {
      assertArrayEquals(bytes("n1999"), table.get(bytes("new-1999")));
    }
    byte[] mark = Files.readAllBytes(dir.resolve(WalSyncMark.FILE));
    assertEquals(WalSyncMark.FILE_BYTES, mark.length);
    assertEquals(WalSyncMark.UNNUMBERED_VERSION, mark[4]);
    assertEquals(WalSyncMark.UNNUMBERED_VERSION, mark[WalSyncMark.SLOT_SPACING + 4]);
    assertEquals(LogFormat.UNNUMBERED_MARK_STATE_VERSION, Files.readAllBytes(dir.resolve("state"))[4]);
  }
}
