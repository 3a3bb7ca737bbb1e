package io.varve.core.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.core.format.CorruptStoreException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a serving host's refresh meets in a hostile root: {@code CURRENT} is read only as far as a
 * pointer goes (it was read whole, so that a 32 MiB file put 32 million characters into each
 * refresh's exception message, and a larger one exhausted the heap), a {@code CURRENT} that is no
 * file is named in the error (a FIFO: {@code SpecialFilesTest}), and a reader's root is never created.
 */
class StoreRootPointerTest {
  @TempDir Path dir;

  @Test
  void aHugePointerFileIsRefusedWithAShortMessage() throws IOException {
    StoreRoot root = StoreRoot.open(dir.resolve("root"));
    Path pointer = root.directory().resolve(StoreRoot.CURRENT);
    byte[] huge = new byte[32 << 20];
    byte[] name = "v0000000001\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    System.arraycopy(name, 0, huge, 0, name.length);
    Files.write(pointer, huge);
    CorruptStoreException e = assertThrows(CorruptStoreException.class, root::current);
    assertTrue(e.getMessage().startsWith(pointer + ": not a version name"), e.getMessage());
    assertTrue(e.getMessage().length() < pointer.toString().length() + 100, "a message of " + e.getMessage().length() + " characters");

    Files.writeString(pointer, "v0000000001\nv0000000002\n");
    assertThrows(CorruptStoreException.class, root::current);
    Files.writeString(pointer, "v0000000001\n");
    assertEquals(Optional.of("v0000000001"), root.current());
  }

  @Test
  void aPointerThatIsNoFileIsNamed() throws IOException {
    StoreRoot root = StoreRoot.open(dir.resolve("root"));
    Path pointer = Files.createDirectory(root.directory().resolve(StoreRoot.CURRENT));
    CorruptStoreException e = assertThrows(CorruptStoreException.class, root::current);
    assertTrue(e.getMessage().startsWith(pointer + ": not a regular file"), e.getMessage());
  }

  @Test
  void anExistingRootIsNeverCreated() throws IOException {
    Path missing = dir.resolve("a/root");
    NoSuchFileException e = assertThrows(NoSuchFileException.class, () -> StoreRoot.existing(missing));
    assertEquals(missing.toString(), e.getFile());
    assertFalse(Files.exists(dir.resolve("a")), "a reader created the root's parent");
    Path file = Files.writeString(dir.resolve("file"), "x");
    assertThrows(NoSuchFileException.class, () -> StoreRoot.existing(file));
    StoreRoot.open(missing);
    assertEquals(Optional.empty(), StoreRoot.existing(missing).current());
  }
}
