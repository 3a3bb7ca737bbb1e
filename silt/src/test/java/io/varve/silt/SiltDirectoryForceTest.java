package io.varve.silt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A name created or renamed in a directory survives a crash only once the directory is forced (on
 * Linux, {@code fsync} of the file does not make its name durable). Checked through the hook: the
 * directory of a new store, in its parent; each manifest a freeze, a conversion or a merge renames
 * into place.
 */
class SiltDirectoryForceTest {
  @TempDir Path temp;

  @Test
  void openingANewStoreForcesTheParentsOfTheDirectoriesItCreates() throws IOException {
    Path grandparent = temp.resolve("grandparent");
    Files.createDirectories(grandparent);
    try (SiltCrashFiles files = SiltCrashFiles.install();
        SiltStore store = SiltStore.open(grandparent.resolve("parent").resolve("store"), CrashWorkload.OPTIONS)) {
      assertTrue(files.forces("grandparent") >= 1, "the new directory parent's name was never forced");
      assertTrue(files.forces("parent") >= 1, "the new store directory's name was never forced");
      assertTrue(files.forces("store") >= 1, "the store's files' names were never forced");
    }
  }

  @Test
  void everyPublishedManifestIsFollowedByAForceOfTheDirectory() throws IOException {
    try (SiltCrashFiles files = SiltCrashFiles.install();
        SiltStore store = SiltStore.open(temp.resolve("store"), CrashWorkload.OPTIONS)) {
      int before = files.forces("store");
      for (int i = 0; i < 8; i++) {
        store.put(("key-" + i).getBytes(StandardCharsets.UTF_8), new byte[] {(byte) i});
        store.freezeLog();
      }
      assertEquals(before + 8, files.forces("store"), "a freeze's manifest");
      store.convertNow();
      assertEquals(before + 16, files.forces("store"), "eight conversions' manifests");
      store.mergeNow();
      assertTrue(files.forces("store") >= before + 17, "a merge's manifest");
    }
  }
}
