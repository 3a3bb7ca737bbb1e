package io.varve.builder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.core.store.StoreFile;
import io.varve.core.testing.DelegatingChannel;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A build, a re-index and a pack publish only what is durable: a failed {@code fsync} of the
 * staging directory, or of the parent after the rename, fails the work instead of being taken for
 * success (as it was before, when every failure to force a directory was swallowed). A file system
 * that does not sync directories ({@code EINVAL}) is still taken at its word.
 */
class StoreDirectoryForceTest {
  @TempDir Path parent;
  private final List<String> forced = new ArrayList<>();

  @AfterEach
  void restoreOpener() {
    StoreDirectory.directoryOpener = FileChannel::open;
  }

  /** Fails, with {@code message}, the force of each directory {@code failing} accepts; records the others. */
  private void failForces(Predicate<Path> failing, String message) {
    StoreDirectory.directoryOpener =
        (path, options) ->
            new DelegatingChannel(FileChannel.open(path, options)) {
              @Override
              public void force(boolean metaData) throws IOException {
                if (failing.test(path)) {
                  throw new IOException(message);
                }
                real.force(metaData);
                forced.add(parent.relativize(path).toString());
              }
            };
  }

  private static Predicate<Path> named(String prefix) {
    return path -> path.getFileName().toString().startsWith(prefix);
  }

  private BuildSummary build(Path target) throws IOException {
    try (StoreBuilder builder = StoreBuilder.create(target)) {
      for (int i = 0; i < 100; i++) {
        builder.put(("key-" + i).getBytes(StandardCharsets.UTF_8), ("value-" + i).getBytes(StandardCharsets.UTF_8));
      }
      return builder.build();
    }
  }

  private List<String> entries() throws IOException {
    try (Stream<Path> entries = Files.list(parent)) {
      return entries.map(p -> p.getFileName().toString()).sorted().collect(Collectors.toList());
    }
  }

  @Test
  void aBuildForcesItsStagingDirectoryThenTheParent() throws IOException {
    failForces(path -> false, "unused");
    build(parent.resolve("store"));
    assertEquals(2, forced.size(), forced.toString());
    assertTrue(forced.get(0).startsWith(".store.staging-"), forced.toString());
    assertEquals("", forced.get(1), "the parent, after the rename");
  }

  @Test
  void aFailedForceOfTheStagingDirectoryPublishesNothing() throws IOException {
    failForces(named(".store.staging-"), "Input/output error (injected)");
    IOException thrown = assertThrows(IOException.class, () -> build(parent.resolve("store")));
    assertEquals("Input/output error (injected)", thrown.getMessage());
    assertEquals(List.of(), entries(), "no store, no staging directory left");
  }

  @Test
  void aFailedForceOfTheParentFailsTheBuildAndSaysTheStoreIsComplete() throws IOException {
    Path target = parent.resolve("store");
    failForces(target.getParent()::equals, "Input/output error (injected)");
    IOException thrown = assertThrows(IOException.class, () -> build(target));
    assertTrue(thrown.getMessage().contains("may not survive a power loss"), thrown.getMessage());
    assertTrue(thrown.getMessage().contains(target.toString()), thrown.getMessage());
    assertTrue(Files.isRegularFile(target.resolve(StoreFile.META.fileName())), "the store itself is complete");
  }

  @Test
  void aFileSystemThatDoesNotSyncDirectoriesStillBuilds() throws IOException {
    failForces(path -> true, "Invalid argument");
    BuildSummary summary = build(parent.resolve("store"));
    assertEquals(100, summary.meta().recordCount());
  }

  @Test
  void aFailedForceFailsAReindexToo() throws IOException {
    build(parent.resolve("dense"));
    failForces(named(".sparse.staging-"), "Input/output error (injected)");
    assertThrows(
        IOException.class,
        () -> StoreReindexer.reindex(parent.resolve("dense"), parent.resolve("sparse"), BuildOptions.builder().sparseIndex(4096).build()));
    assertFalse(Files.exists(parent.resolve("sparse")));
  }

  @Test
  void aFailedForceOfTheArtifactsParentFailsThePack() throws IOException {
    Path store = parent.resolve("store");
    build(store);
    failForces(parent::equals, "Input/output error (injected)");
    IOException thrown = assertThrows(IOException.class, () -> StoreArtifacts.pack(store, parent.resolve("store.varve")));
    assertTrue(thrown.getMessage().contains("may not survive a power loss"), thrown.getMessage());
  }
}
