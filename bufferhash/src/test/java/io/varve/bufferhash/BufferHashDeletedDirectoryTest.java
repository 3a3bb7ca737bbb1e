package io.varve.bufferhash;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.core.files.FileTrees;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A table whose directory is deleted, or whose log is replaced, while it is open: a sync (or a
 * put with {@link Durability#SYNC_EVERY_WRITE}) must not vouch for writes that a reopen cannot
 * find. Before, the open channels went on writing and forcing the unlinked files, and sync
 * returned normally (every mode; with a write-ahead log, as long as no new segment was needed),
 * though the directory, and so every write, was gone.
 */
class BufferHashDeletedDirectoryTest {
  @TempDir Path temp;

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @ParameterizedTest
  @EnumSource(Durability.class)
  void aSyncAfterTheDirectoryWasDeletedFails(Durability durability) throws Exception {
    Path dir = temp.resolve("table");
    BufferHash table = RandomWrites.smallTable(dir, durability, 4096).open();
    try {
      for (int i = 0; i < 100; i++) {
        table.put(bytes("k" + i), bytes("v" + i));
      }
      table.sync();
      FileTrees.deleteTree(dir);
      assertArrayEquals(bytes("v5"), table.get(bytes("k5")), "reads go on");
      UncheckedIOException refused = assertThrows(UncheckedIOException.class, () -> {
        table.put(bytes("late"), bytes("write"));
        table.sync();
      }, durability + ": a sync after the directory was deleted");
      assertTrue(String.valueOf(refused.getCause()).contains("deleted while open"), durability + ": " + refused.getCause());
      assertThrows(UncheckedIOException.class, () -> table.put(bytes("later"), bytes("write")), "writes are refused from then on");
    } finally {
      try {
        table.close();
      } catch (UncheckedIOException expected) {
        // the directory is gone: nothing can be written to it
      }
    }
  }

  @ParameterizedTest
  @EnumSource(value = Durability.class, names = {"BUFFERS_IN_RAM", "SYNC_ON_CALL"})
  void aSyncAfterTheLogWasReplacedFails(Durability durability) throws Exception {
    Path dir = temp.resolve("table");
    BufferHash table = RandomWrites.smallTable(dir, durability, 4096).open();
    try {
      table.put(bytes("k"), bytes("v"));
      table.sync();
      Path copy = temp.resolve("log-copy");
      Files.copy(dir.resolve("log"), copy);
      Files.move(copy, dir.resolve("log"), StandardCopyOption.REPLACE_EXISTING);
      UncheckedIOException refused = assertThrows(UncheckedIOException.class, table::sync, durability.toString());
      assertTrue(String.valueOf(refused.getCause()).contains("replaced by another file"), durability + ": " + refused.getCause());
    } finally {
      try {
        table.close();
      } catch (UncheckedIOException expected) {
        // refused since the failed sync
      }
    }
  }
}
