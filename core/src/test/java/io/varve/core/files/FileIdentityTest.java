package io.varve.core.files;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileIdentityTest {
  @TempDir Path dir;

  @Test
  void holdsWhileThePathNamesTheSameFileAndNamesWhatChanged() throws IOException {
    Path file = Files.writeString(dir.resolve("log"), "written");
    FileIdentity identity = FileIdentity.of(file);
    identity.check();
    Files.writeString(file, "written again, in place"); // the same file
    identity.check();

    Path copy = Files.copy(file, dir.resolve("copy"));
    Files.move(copy, file, StandardCopyOption.REPLACE_EXISTING);
    IOException replaced = assertThrows(IOException.class, identity::check);
    assertTrue(replaced.getMessage().contains("replaced by another file"), replaced.getMessage());

    Files.delete(file);
    IOException deleted = assertThrows(IOException.class, identity::check);
    assertTrue(deleted.getMessage().contains(file + " was deleted while open"), deleted.getMessage());
  }
}
