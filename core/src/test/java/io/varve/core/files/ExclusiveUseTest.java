package io.varve.core.files;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ExclusiveUseTest {
  @TempDir Path temp;

  @Test
  void oneHolderAtATimeAndFreeAgainAfterClose() throws Exception {
    Path dir = Files.createDirectories(temp.resolve("d"));
    ExclusiveUse first = ExclusiveUse.acquire(dir.resolve("LOCK"), true, "a test store");
    IllegalStateException refused =
        assertThrows(IllegalStateException.class, () -> ExclusiveUse.acquire(dir.resolve("LOCK"), true, "a test store"));
    assertTrue(refused.getMessage().contains("in this process"), refused.getMessage());
    // The same file by another spelling is the same file.
    assertThrows(IllegalStateException.class, () -> ExclusiveUse.acquire(temp.resolve("d/../d/LOCK"), false, "a test store"));
    // Another file is another lock.
    ExclusiveUse other = ExclusiveUse.acquire(dir.resolve("OTHER"), true, "a test store");
    other.close();
    first.close();
    first.close(); // twice: nothing
    ExclusiveUse again = ExclusiveUse.acquire(dir.resolve("LOCK"), false, "a test store");
    again.close();
    assertTrue(Files.exists(dir.resolve("LOCK")), "the lock file stays");
  }

  @Test
  void aMissingFileIsNotCreatedUnlessAskedAndHoldsNothing() throws Exception {
    Path missing = temp.resolve("missing");
    assertThrows(NoSuchFileException.class, () -> ExclusiveUse.acquire(missing, false, "a test store"));
    assertFalse(Files.exists(missing));
    assertThrows(java.io.IOException.class, () -> ExclusiveUse.acquire(temp.resolve("no-dir/LOCK"), true, "a test store"));
    ExclusiveUse.acquire(missing, true, "a test store").close(); // the failures registered nothing
  }
}
