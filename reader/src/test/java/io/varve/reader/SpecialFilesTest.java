package io.varve.reader;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.varve.builder.ShardedStoreBuilder;
import io.varve.builder.StoreBuilder;
import io.varve.core.format.CorruptStoreException;
import io.varve.core.shard.ShardManifest;
import io.varve.core.store.StoreFile;
import io.varve.core.store.StoreRoot;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

/**
 * A FIFO where a store, a root or a sharded store keeps a file: opening it for reading blocks until
 * some process writes to it, so that {@code Store.open}, {@code ShardedStore.open} and a
 * follower's {@code refresh()} (and with it the follower's {@code close()}, which waits for the
 * refresh) hung for good. Every such file is now checked to be a regular file before it is opened,
 * and refused with a {@link CorruptStoreException} naming it.
 */
class SpecialFilesTest {
  private static final Duration HANG = Duration.ofSeconds(5);
  private static final byte[] KEY = "key".getBytes(StandardCharsets.UTF_8);

  @TempDir Path temp;

  @BeforeEach
  void needsMkfifo() {
    assumeTrue(Files.isExecutable(Path.of("/usr/bin/mkfifo")), "needs mkfifo");
  }

  private static void fifo(Path path) throws IOException, InterruptedException {
    Files.deleteIfExists(path);
    assumeTrue(new ProcessBuilder("/usr/bin/mkfifo", path.toString()).start().waitFor() == 0, "mkfifo failed");
  }

  private static Path build(Path dir) throws IOException {
    try (StoreBuilder builder = StoreBuilder.create(dir)) {
      builder.put(KEY, "value".getBytes(StandardCharsets.UTF_8));
      builder.build();
    }
    return dir;
  }

  private static void refusedNaming(Path fifo, Executable call) throws IOException {
    try {
      CorruptStoreException e = assertTimeoutPreemptively(HANG, () -> assertThrows(CorruptStoreException.class, call));
      assertTrue(e.getMessage().contains(fifo + ": not a regular file"), e.getMessage());
    } finally {
      // Opened for reading and writing, a FIFO opens at once and lets a reader blocked in its open
      // go on (to an empty file): a call that hung ends, and with it what waits for it.
      FileChannel.open(fifo, StandardOpenOption.READ, StandardOpenOption.WRITE).close();
    }
  }

  @Test
  void aMetaFileThatIsAFifo() throws Exception {
    Path dir = build(temp.resolve("store"));
    Path meta = dir.resolve(StoreFile.META.fileName());
    fifo(meta);
    refusedNaming(meta, () -> Store.open(dir));
    refusedNaming(meta, () -> Store.load(dir));
  }

  @Test
  void aPointerThatIsAFifo() throws Exception {
    StoreRoot root = StoreRoot.open(temp.resolve("root"));
    Path first = build(root.newVersion());
    root.publish(first.getFileName().toString());
    Path pointer = root.directory().resolve(StoreRoot.CURRENT);
    try (FollowingStore store = FollowingStore.open(root.directory())) {
      fifo(pointer);
      refusedNaming(pointer, store::refresh);
      assertArrayEquals("value".getBytes(StandardCharsets.UTF_8), store.get(KEY), "still served");
      refusedNaming(pointer, () -> FollowingStore.open(root.directory()));
    }
  }

  @Test
  void aManifestThatIsAFifo() throws Exception {
    Path root = temp.resolve("sharded");
    try (ShardedStoreBuilder builder = ShardedStoreBuilder.create(root, 2)) {
      builder.put(KEY, "value".getBytes(StandardCharsets.UTF_8));
      builder.build();
    }
    Path manifest = root.resolve(ShardManifest.FILE_NAME);
    fifo(manifest);
    refusedNaming(manifest, () -> ShardedStore.open(root));
  }
}
