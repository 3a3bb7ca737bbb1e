package io.varve.examples.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which input the Spark example reads, by name and by what this machine holds (no Spark needed). */
class KeyValueInputTest {
  @TempDir Path temp;

  @Test
  void packageListsAreKnownByTheirNamesAndAnythingElseIsWords() {
    Path list = Path.of("/var/lib/apt/lists/deb.debian.org_debian_dists_bookworm_main_binary-amd64_Packages");
    assertEquals("Debian packages of " + list + " (key: the package, value: its version)", KeyValueInput.of(list).description());
    Path compressed = Path.of(list + ".lz4");
    assertEquals("Debian packages of " + compressed + " (key: the package, value: its version)",
        KeyValueInput.of(compressed).description());
    assertEquals("words of /tmp/Packages.txt (key: the word, value: its line number)",
        KeyValueInput.of(Path.of("/tmp/Packages.txt")).description());
    assertEquals(String.format("%,d generated rows (key: row-N, value: value-N)", 1234), KeyValueInput.generated(1234).description());
    assertThrows(IllegalArgumentException.class, () -> KeyValueInput.generated(0));
  }

  @Test
  void theMachinesOwnFilesComeFirst() throws IOException {
    KeyValueInput found = KeyValueInput.findOnThisMachine(10);
    if (Files.isReadable(KeyValueInput.WORDS)) {
      assertEquals(KeyValueInput.WORDS, found.file());
    } else if (found.file() != null) {
      assertEquals(KeyValueInput.APT_LISTS, found.file().getParent());
      assertTrue(found.file().getFileName().toString().matches(".*_Packages(\\.lz4)?"), found.file().toString());
    } else {
      assertEquals(String.format("%,d generated rows (key: row-N, value: value-N)", 10), found.description());
    }
  }

  @Test
  void aMissingFileOrADirectoryIsRefusedBeforeSparkStarts() throws IOException {
    assertThrows(NoSuchFileException.class, () -> KeyValueInput.of(temp.resolve("nope")).checkReadable());
    assertThrows(IllegalArgumentException.class, () -> KeyValueInput.of(temp).checkReadable());
    KeyValueInput.of(Files.writeString(temp.resolve("words"), "a\n")).checkReadable();
    KeyValueInput.generated(1).checkReadable();
  }
}
