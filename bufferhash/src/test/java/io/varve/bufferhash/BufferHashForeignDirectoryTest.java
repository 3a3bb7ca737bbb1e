package io.varve.bufferhash;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.core.format.CorruptStoreException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A new table is created only in a new or empty directory: one holding other files (another
 * store's, a user's, a parent directory given by mistake) is refused and left as it was, and one
 * holding a BufferHash's files without its state and log is damage. Before, the table's log,
 * state and lock went in among the other files.
 */
class BufferHashForeignDirectoryTest {
  @TempDir Path temp;

  private static List<String> names(Path dir) throws Exception {
    try (Stream<Path> files = Files.list(dir)) {
      return files.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }

  @Test
  void aDirectoryOfOtherFilesIsRefusedAndLeftAsItWas() throws Exception {
    Path dir = temp.resolve("someone-elses");
    Files.createDirectories(dir.resolve("sorted-0000000001"));
    Files.writeString(dir.resolve("MANIFEST"), "a SILT store's, say");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> RandomWrites.smallTable(dir, Durability.BUFFERS_IN_RAM, 4096).open());
    assertTrue(e.getMessage().contains("holds no BufferHash but other files, such as MANIFEST"), e.getMessage());
    assertEquals(List.of("MANIFEST", "sorted-0000000001"), names(dir));
  }

  @Test
  void aBufferHashsFilesWithoutItsStateAndLogAreDamage() throws Exception {
    Path dir = temp.resolve("lost-state");
    Files.createDirectories(dir);
    Files.write(dir.resolve("wal-0000000000000001"), new byte[100]);
    CorruptStoreException e = assertThrows(CorruptStoreException.class, () -> RandomWrites.smallTable(dir, Durability.SYNC_ON_CALL, 4096).open());
    assertTrue(e.getMessage().contains("state and log are missing"), e.getMessage());
    assertEquals(List.of("wal-0000000000000001"), names(dir));
  }

  @Test
  void aDirectoryWithOnlyHiddenFilesAndALockIsNew() throws Exception {
    Path dir = temp.resolve("empty-enough");
    Files.createDirectories(dir);
    Files.writeString(dir.resolve(".keep"), "");
    Files.writeString(dir.resolve("lock"), "");
    byte[] key = "k".getBytes(StandardCharsets.UTF_8);
    try (BufferHash table = RandomWrites.smallTable(dir, Durability.BUFFERS_IN_RAM, 4096).open()) {
      table.put(key, key);
    }
    try (BufferHash table = RandomWrites.smallTable(dir, Durability.BUFFERS_IN_RAM, 4096).open()) {
      assertArrayEquals(key, table.get(key));
    }
  }
}
