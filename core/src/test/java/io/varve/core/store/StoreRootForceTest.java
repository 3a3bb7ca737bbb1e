package io.varve.core.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.core.testing.DelegatingChannel;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Publishing a version is durable or fails: the root is forced after {@code CURRENT}'s rename,
 * and a failed {@code fsync} of it is thrown (it used to be swallowed, so a publish could report
 * success and a power loss bring the old pointer back). A new root's name is forced too.
 */
class StoreRootForceTest {
  @TempDir Path dir;
  private final List<String> forced = new ArrayList<>();
  private String failWith;

  @AfterEach
  void restoreOpener() {
    StoreRoot.directoryOpener = FileChannel::open;
  }

  private void recordForces() {
    StoreRoot.directoryOpener =
        (path, options) ->
            new DelegatingChannel(FileChannel.open(path, options)) {
              @Override
              public void force(boolean metaData) throws IOException {
                if (failWith != null) {
                  throw new IOException(failWith);
                }
                real.force(metaData);
                forced.add(dir.relativize(path).toString());
              }
            };
  }

  private static String completeVersion(StoreRoot root) throws IOException {
    Path version = root.newVersion();
    Files.createDirectory(version);
    Files.write(version.resolve(StoreFile.META.fileName()), new byte[] {1});
    return version.getFileName().toString();
  }

  @Test
  void openForcesTheNamesOfTheDirectoriesItCreates() throws IOException {
    recordForces();
    StoreRoot.open(dir.resolve("a/root"));
    assertEquals(List.of("a", ""), forced);
  }

  @Test
  void publishForcesTheRootAfterTheRename() throws IOException {
    StoreRoot root = StoreRoot.open(dir.resolve("root"));
    String version = completeVersion(root);
    recordForces();
    root.publish(version);
    assertEquals(List.of("root"), forced);
    assertEquals(Optional.of(version), root.current());
  }

  @Test
  void aFailedForceOfTheRootFailsThePublish() throws IOException {
    StoreRoot root = StoreRoot.open(dir.resolve("root"));
    String version = completeVersion(root);
    recordForces();
    failWith = "Input/output error (injected)";
    IOException thrown = assertThrows(IOException.class, () -> root.publish(version));
    assertTrue(thrown.getMessage().contains("may not survive a power loss"), thrown.getMessage());
    assertTrue(thrown.getMessage().contains(version), thrown.getMessage());
  }

  @Test
  void aFileSystemThatDoesNotSyncDirectoriesStillPublishes() throws IOException {
    StoreRoot root = StoreRoot.open(dir.resolve("root"));
    String version = completeVersion(root);
    recordForces();
    failWith = "Invalid argument";
    root.publish(version);
    assertEquals(Optional.of(version), root.current());
  }
}
