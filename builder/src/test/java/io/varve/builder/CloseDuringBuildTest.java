package io.varve.builder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code close()} from another thread while {@code build()} or {@code merge()} runs (a caller
 * giving up on a slow build): the finishing call fails with a clear {@link IllegalStateException}
 * and publishes nothing, {@code close()} returns once its files are gone, and neither hangs.
 * Until 2026-11-27 the close freed the sort's buffers under the writing thread: {@code build()}
 * published a store of 0 of 200,000 records and reported success (and {@code merge()} one without
 * the batch), or, once the input had spilled, waited forever for the sort's stopped thread.
 */
class CloseDuringBuildTest {
  private static final int RECORDS = 200_000;

  @TempDir Path parent;
  private final ExecutorService closer = Executors.newSingleThreadExecutor();

  @AfterEach
  void stopCloser() {
    closer.shutdownNow();
  }

  private static byte[] key(long i) {
    return ByteBuffer.allocate(8).putLong(i * 0x9E37_79B9_7F4A_7C15L).array();
  }

  /** Where in the build the close comes: at the start of a phase, from the listener's thread hand-off. */
  @ParameterizedTest
  @EnumSource(value = BuildListener.Phase.class, names = {"SORT", "WRITE"})
  void closeDuringBuildFailsItCleanly(BuildListener.Phase phase) throws Exception {
    for (boolean spills : new boolean[] {false, true}) {
      Path target = parent.resolve(phase + "-" + spills);
      CountDownLatch reached = new CountDownLatch(1);
      StoreBuilder builder = StoreBuilder.create(target)
          .memoryBudget(spills ? 2 << 20 : 64 << 20)
          .listener(pauseAt(phase, reached));
      for (int i = 0; i < RECORDS; i++) {
        builder.put(key(i), new byte[4]);
      }
      Future<?> closing = closer.submit(() -> {
        reached.await();
        builder.close();
        return null;
      });
      IllegalStateException e = assertThrows(IllegalStateException.class, builder::build, () -> describe(target));
      assertEquals("the builder was closed while build() ran: nothing was published", e.getMessage());
      closing.get(30, TimeUnit.SECONDS);
      StoreFiles.assertCleanFailure(target);
      assertThrows(IllegalStateException.class, builder::build);
      builder.close();
    }
  }

  @Test
  void closeDuringMergeFailsItCleanly() throws Exception {
    Path base = parent.resolve("base");
    try (StoreBuilder builder = StoreBuilder.create(base)) {
      builder.put(key(-1), new byte[] {1}).build();
    }
    for (boolean spills : new boolean[] {false, true}) {
      Path target = parent.resolve("merged-" + spills);
      CountDownLatch reached = new CountDownLatch(1);
      StoreMerger merger = StoreMerger.create(target).base(base)
          .memoryBudget(spills ? 2 << 20 : 64 << 20)
          .listener(pauseAt(BuildListener.Phase.SORT, reached));
      for (int i = 0; i < RECORDS; i++) {
        merger.put(key(i), new byte[4]);
      }
      Future<?> closing = closer.submit(() -> {
        reached.await();
        merger.close();
        return null;
      });
      IllegalStateException e = assertThrows(IllegalStateException.class, merger::merge, () -> describe(target));
      assertEquals("the merger was closed while merge() ran: nothing was published", e.getMessage());
      closing.get(30, TimeUnit.SECONDS);
      assertFalse(Files.exists(target));
      StoreFiles.assertNoLeftovers(parent);
      try (var hidden = Files.list(parent)) {
        assertEquals(0, hidden.filter(p -> p.getFileName().toString().startsWith(".")).count(), "leftovers in " + parent);
      }
    }
  }

  /**
   * A sharded build closed just before it publishes: the close used to delete the staging
   * directory under it (publish then failed with NoSuchFileException, or could rename a root whose
   * shards were half deleted); now the build fails before publishing and cleans up itself.
   */
  @Test
  void closeBeforeAShardedPublishFailsItCleanly() throws Exception {
    Path root = parent.resolve("sharded");
    CountDownLatch reached = new CountDownLatch(1);
    ShardedStoreBuilder builder = ShardedStoreBuilder.create(root, 4, BuildOptions.DEFAULTS.toBuilder()
        .memoryBudget(16 << 20)
        .listener((p, done, total) -> {
          if (p == BuildListener.Phase.PUBLISH) {
            reached.countDown();
            try {
              Thread.sleep(200); // the close comes now
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }
        })
        .build());
    for (int i = 0; i < 20_000; i++) {
      builder.put(key(i), new byte[4]);
    }
    Future<?> closing = closer.submit(() -> {
      reached.await();
      builder.close();
      return null;
    });
    IllegalStateException e = assertThrows(IllegalStateException.class, builder::build, () -> describe(root));
    assertEquals("the builder was closed while build() ran: nothing was published", e.getMessage());
    closing.get(30, TimeUnit.SECONDS);
    StoreFiles.assertCleanFailure(root);
  }

  /**
   * A close from another thread while {@code put} starts the first spill (the CLI's shutdown hook
   * on Ctrl-C while the input is read): here it comes while the spill creates its temporary
   * directory (the seam {@link TemporaryDirectories#lockFileCreated}). Until 2026-11-28 the close
   * found no directory to delete and returned, and the spill then made its directory and wrote its
   * partitions: left until the next run beside it. Now the close waits for the spill's start and
   * stops it, or the spill fails before it creates a file, and nothing is left.
   */
  @Test
  void closeWhileASpillStartsLeavesNoSpillDirectory() throws Exception {
    Path temporary = Files.createDirectory(parent.resolve("tmp"));
    StoreBuilder builder = StoreBuilder.create(parent.resolve("store")).memoryBudget(2 << 20).temporaryDirectory(temporary);
    Thread closing = closeWhenCreating(".varve-build-", builder);
    try {
      for (int i = 0; closing.getState() == Thread.State.NEW; i++) {
        try {
          builder.put(key(i), new byte[4]);
        } catch (IOException | RuntimeException spillRefused) {
          break; // the close came first: the spill failed before it wrote anything
        }
      }
    } finally {
      TemporaryDirectories.lockFileCreated = lockFile -> {};
    }
    closing.join();
    assertThrows(IllegalStateException.class, () -> builder.put(key(-1), new byte[4]));
    try (var left = Files.list(temporary)) {
      assertEquals(List.of(), left.map(p -> p.getFileName().toString()).toList(), "left in " + temporary);
    }
    StoreFiles.assertCleanFailure(parent.resolve("store"));
  }

  /**
   * The same for a merger, whose first put creates its temporary directory: a close from another
   * thread while it does used to find none, and the directory stayed. Now the close waits for the
   * creation, then deletes it, or the put fails before it creates anything.
   */
  @Test
  void closeWhileAMergeCreatesItsTemporaryDirectoryLeavesNothing() throws Exception {
    Path base = parent.resolve("base");
    try (StoreBuilder builder = StoreBuilder.create(base)) {
      builder.put(key(-1), new byte[] {1}).build();
    }
    Path temporary = Files.createDirectory(parent.resolve("tmp"));
    StoreMerger merger = StoreMerger.create(parent.resolve("merged")).base(base).temporaryDirectory(temporary);
    Thread closing = closeWhenCreating(".varve-merge-", merger);
    try {
      merger.put(key(1), new byte[4]);
    } catch (IllegalStateException closedFirst) {
      // the close came first: nothing was created
    } finally {
      TemporaryDirectories.lockFileCreated = lockFile -> {};
    }
    closing.join();
    assertThrows(IllegalStateException.class, () -> merger.put(key(2), new byte[4]));
    try (var left = Files.list(temporary)) {
      assertEquals(List.of(), left.map(p -> p.getFileName().toString()).toList(), "left in " + temporary);
    }
    assertFalse(Files.exists(parent.resolve("merged")));
  }

  /**
   * Makes the creation of the next temporary directory of {@code prefix} start a close of {@code
   * work} on another thread, and wait until that close is done or blocked (on the creation);
   * returns the closing thread, which exists once the creation started.
   */
  private static Thread closeWhenCreating(String prefix, java.io.Closeable work) {
    Thread closing = new Thread(() -> {
      try {
        work.close();
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }, "closer");
    TemporaryDirectories.lockFileCreated = lockFile -> {
      if (closing.getState() == Thread.State.NEW && lockFile.getFileName().toString().startsWith(prefix)) {
        closing.start();
        while (closing.isAlive() && closing.getState() != Thread.State.BLOCKED) {
          Thread.onSpinWait();
        }
      }
    };
    return closing;
  }

  /** A listener closing its own builder: build() fails at once, without waiting for itself. */
  @Test
  void closeFromTheListenerFailsTheBuild() throws Exception {
    Path target = parent.resolve("self");
    StoreBuilder[] self = new StoreBuilder[1];
    self[0] = StoreBuilder.create(target).listener((p, done, total) -> {
      if (p == BuildListener.Phase.WRITE) {
        try {
          self[0].close();
        } catch (IOException e) {
          throw new java.io.UncheckedIOException(e);
        }
      }
    });
    self[0].put(key(1), new byte[1]);
    IllegalStateException e = assertTimeoutPreemptively(() -> assertThrows(IllegalStateException.class, self[0]::build));
    assertEquals("the builder was closed while build() ran: nothing was published", e.getMessage());
    StoreFiles.assertCleanFailure(target);
  }

  private static <T> T assertTimeoutPreemptively(org.junit.jupiter.api.function.ThrowingSupplier<T> call) {
    return org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(Duration.ofSeconds(30), call);
  }

  private static String describe(Path target) {
    try {
      return Files.exists(target) ? "published " + StoreFiles.readMeta(target).recordCount() + " of " + RECORDS + " records" : "nothing";
    } catch (IOException e) {
      return e.toString();
    }
  }

  /** Counts {@code reached} down when {@code phase} starts, then lets the close come while the building thread still works. */
  private static BuildListener pauseAt(BuildListener.Phase phase, CountDownLatch reached) {
    return (p, done, total) -> {
      if (p == phase && reached.getCount() > 0) {
        reached.countDown();
        try {
          Thread.sleep(50);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    };
  }
}
