package io.varve.core.files;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DirectoryLockTest {
  @TempDir Path temp;

  @Test
  void oneHolderAtATimeAndFreeAgainAfterClose() throws Exception {
    Path dir = Files.createDirectories(temp.resolve("d"));
    DirectoryLock first = DirectoryLock.acquire(dir, "LOCK", "a test store");
    IllegalStateException refused = assertThrows(IllegalStateException.class, () -> DirectoryLock.acquire(dir, "LOCK", "a test store"));
    assertTrue(refused.getMessage().contains("in this process"), refused.getMessage());
    // The same directory by another spelling is the same directory.
    assertThrows(IllegalStateException.class, () -> DirectoryLock.acquire(temp.resolve("d/../d"), "LOCK", "a test store"));
    // Another file is another lock.
    DirectoryLock other = DirectoryLock.acquire(dir, "OTHER", "a test store");
    other.close();
    first.close();
    first.close(); // twice: nothing
    DirectoryLock again = DirectoryLock.acquire(dir, "LOCK", "a test store");
    again.close();
    assertTrue(Files.exists(dir.resolve("LOCK")), "the lock file stays");
  }

  @Test
  void aMissingDirectoryIsAnIOExceptionAndHoldsNothing() {
    assertThrows(java.io.IOException.class, () -> DirectoryLock.acquire(temp.resolve("missing"), "LOCK", "a test store"));
  }
}
