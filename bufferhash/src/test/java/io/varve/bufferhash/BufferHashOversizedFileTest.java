package io.varve.bufferhash;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.core.format.CorruptStoreException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A write-ahead segment or buffers file extended past what an array holds (sparse: no disk is
 * used) is refused on open with {@link CorruptStoreException} naming it; before, reading it whole
 * threw {@link OutOfMemoryError} ("Required array size too large") out of the open.
 */
class BufferHashOversizedFileTest {
  private static final long OVERSIZED = 3L << 30;

  @TempDir Path temp;

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** A copy of a table with a write-ahead log holding synced writes in several segments, as a kill leaves it. */
  private Path killedWithSegments() throws Exception {
    Path dir = temp.resolve("live");
    Path copy = temp.resolve("killed");
    try (BufferHash table = RandomWrites.smallTable(dir, Durability.SYNC_ON_CALL, 4096).open()) {
      for (int i = 0; i < 600; i++) {
        table.put(bytes("k" + i), bytes("v" + i));
        if (i % 50 == 0) {
          table.sync();
        }
      }
      table.sync();
      CrashFiles.copyAsKilled(dir, copy);
    }
    return copy;
  }

  private static List<Path> segments(Path dir) throws Exception {
    try (Stream<Path> files = Files.list(dir)) {
      return files.filter(p -> p.getFileName().toString().startsWith("wal-")).sorted().toList();
    }
  }

  private static void extend(Path file) throws Exception {
    try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
      f.setLength(OVERSIZED);
    }
  }

  private static void assertRefused(BufferHashBuilder builder, Path file) {
    CorruptStoreException refused = assertThrows(CorruptStoreException.class, builder::open);
    assertTrue(refused.getMessage().contains(file.toString()) && refused.getMessage().contains(String.valueOf(OVERSIZED)), refused.getMessage());
  }

  @Test
  void anOversizedWriteAheadSegmentIsRefused() throws Exception {
    Path dir = killedWithSegments();
    List<Path> segments = segments(dir);
    assertTrue(segments.size() >= 2, "segments: " + segments);
    for (Path segment : List.of(segments.get(0), segments.get(segments.size() - 1))) {
      byte[] kept = Files.readAllBytes(segment);
      extend(segment);
      assertRefused(RandomWrites.smallTable(dir, Durability.SYNC_ON_CALL, 4096), segment);
      Files.write(segment, kept);
    }
    try (BufferHash table = RandomWrites.smallTable(dir, Durability.SYNC_ON_CALL, 4096).open()) {
      assertArrayEquals(bytes("v599"), table.get(bytes("k599")), "the table opens once its segments are put back");
    }
  }

  @Test
  void anOversizedBuffersFileIsRefused() throws Exception {
    Path dir = temp.resolve("closed");
    try (BufferHash table = RandomWrites.smallTable(dir, Durability.BUFFERS_IN_RAM, 4096).open()) {
      table.put(bytes("k"), bytes("v"));
    }
    Path buffers = dir.resolve("buffers");
    extend(buffers);
    assertRefused(RandomWrites.smallTable(dir, Durability.BUFFERS_IN_RAM, 4096), buffers);
  }
}
