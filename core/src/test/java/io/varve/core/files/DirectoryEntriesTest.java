package io.varve.core.files;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.core.testing.DelegatingChannel;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DirectoryEntriesTest {
  @TempDir Path dir;

  /** What a force does: the test's part, before the real force. */
  private interface ForceHook {
    void run(Path directory) throws IOException;
  }

  private static DirectoryEntries.Opener opener(ForceHook hook) {
    return (path, options) ->
        new DelegatingChannel(FileChannel.open(path, options)) {
          @Override
          public void force(boolean metaData) throws IOException {
            hook.run(path);
            real.force(metaData);
          }
        };
  }

  @Test
  void forcesTheDirectoryThroughTheOpener() throws IOException {
    List<String> calls = new ArrayList<>();
    DirectoryEntries.force(dir, opener(path -> calls.add("force " + path)));
    assertEquals(List.of("force " + dir), calls);
    DirectoryEntries.force(dir); // the real thing, on this platform
  }

  @Test
  void aDirectoryThatCannotBeOpenedIsLeftAsItIs() throws IOException {
    DirectoryEntries.force(dir, (path, options) -> {
      throw new IOException("Is a directory (this platform opens no directories)");
    });
  }

  @Test
  void aFailedForceIsThrown() {
    IOException thrown =
        assertThrows(
            IOException.class,
            () -> DirectoryEntries.force(dir, opener(path -> {
              throw new IOException("Input/output error");
            })));
    assertEquals("Input/output error", thrown.getMessage());
  }

  @Test
  void aFileSystemThatDoesNotSyncDirectoriesIsTakenAtItsWord() throws IOException {
    DirectoryEntries.force(dir, opener(path -> {
      throw new IOException("Invalid argument");
    }));
  }

  @Test
  void aMissingDirectoryIsAnError() {
    assertThrows(NoSuchFileException.class, () -> DirectoryEntries.force(dir.resolve("missing")));
  }

  @Test
  void createDirectoriesForcesTheParentOfEachDirectoryItCreates() throws IOException {
    Files.createDirectories(dir.resolve("a"));
    List<String> forced = new ArrayList<>();
    DirectoryEntries.createDirectories(dir.resolve("a/b/c"), opener(path -> forced.add(dir.relativize(path).toString())));
    assertTrue(Files.isDirectory(dir.resolve("a/b/c")));
    assertEquals(List.of("a/b", "a"), forced);
    forced.clear();
    DirectoryEntries.createDirectories(dir.resolve("a/b/c"), opener(path -> forced.add(path.toString())));
    assertEquals(List.of(), forced, "nothing created, nothing forced");
  }
}
