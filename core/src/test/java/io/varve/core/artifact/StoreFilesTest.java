package io.varve.core.artifact;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.core.format.CorruptStoreException;
import io.varve.core.format.FileRegion;
import io.varve.core.store.StoreMeta;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link StoreFiles} of a directory: regions of whole files, a missing meta is no store, a listed
 * file missing or of another size is a damaged one; a file that is no artifact is refused as one.
 * (Artifacts are packed by the builder: the reader's and builder's tests read them through here.)
 */
class StoreFilesTest {
  @TempDir Path temp;

  @Test
  void aDirectorysFilesAreWholeRegionsCheckedAgainstTheMeta() throws IOException {
    Path dir = Files.createDirectory(temp.resolve("store"));
    Files.write(dir.resolve("data"), new byte[100]);
    StoreFiles files = StoreFiles.of(dir);
    assertFalse(files.isArtifact());
    assertEquals(dir, files.origin());
    assertEquals(FileRegion.whole(dir.resolve("data"), 100), files.find("data"));
    assertNull(files.find("offsets"));
    assertEquals(dir.resolve("index").toString(), files.nameOf("index"));
    assertEquals(100, files.listed(new StoreMeta.FileEntry("data", 100, 0)).length());

    CorruptStoreException size = assertThrows(CorruptStoreException.class, () -> files.listed(new StoreMeta.FileEntry("data", 101, 0)));
    assertTrue(size.getMessage().startsWith(dir.resolve("data") + ": 100 bytes, but the meta file says 101"), size.getMessage());
    CorruptStoreException missing = assertThrows(CorruptStoreException.class, () -> files.listed(new StoreMeta.FileEntry("index", 1, 0)));
    assertTrue(missing.getMessage().startsWith(dir.resolve("index") + ": missing, but the meta file lists it"), missing.getMessage());
    NoSuchFileException noMeta = assertThrows(NoSuchFileException.class, files::readMeta);
    assertEquals(dir.resolve("meta").toString(), noMeta.getFile());
  }

  @Test
  void neitherADirectoryNorAnArtifact() throws IOException {
    assertThrows(NoSuchFileException.class, () -> StoreFiles.of(temp.resolve("none")));
    Path text = Files.writeString(temp.resolve("notes.varve"), "not a ZIP file at all, and long enough to look for one\n");
    CorruptStoreException e = assertThrows(CorruptStoreException.class, () -> StoreFiles.of(text));
    assertTrue(e.getMessage().startsWith(text.toString()), e.getMessage());
  }
}
