package io.varve.silt;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.core.files.FileTrees;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A store whose directory is deleted while it is open: a sync (or a put with {@code
 * syncEveryWrite}) must not vouch for writes that a reopen cannot find. Before, the open log's
 * channel went on writing and forcing the unlinked file, and sync returned normally though the
 * directory, and so every write, was gone (only a freeze, creating a file, noticed).
 */
class SiltDeletedDirectoryTest {
  @TempDir Path temp;

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void aSyncAfterTheDirectoryWasDeletedFails(boolean syncEveryWrite) throws IOException {
    Path dir = temp.resolve("store");
    SiltOptions options = SiltStoreModelTest.SMALL.toBuilder().syncEveryWrite(syncEveryWrite).build();
    SiltStore store = SiltStore.open(dir, options);
    try {
      for (int i = 0; i < 20; i++) {
        store.put(bytes("k" + i), bytes("v" + i));
      }
      store.sync();
      FileTrees.deleteTree(dir);
      assertArrayEquals(bytes("v5"), store.get(bytes("k5")), "reads go on");
      IOException refused = assertThrows(IOException.class, () -> {
        store.put(bytes("late"), bytes("write"));
        store.sync();
      }, "syncEveryWrite " + syncEveryWrite + ": a sync after the directory was deleted");
      assertTrue(refused.getMessage().contains("deleted while open"), refused.getMessage());
      assertThrows(IOException.class, () -> store.put(bytes("later"), bytes("write")), "writes are refused from then on");
    } finally {
      try {
        store.close();
      } catch (java.io.UncheckedIOException expected) {
        // its force cannot make the log durable either: the directory is gone
      }
    }
  }
}
