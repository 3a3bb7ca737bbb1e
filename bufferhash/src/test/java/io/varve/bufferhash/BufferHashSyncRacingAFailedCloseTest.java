package io.varve.bufferhash;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.core.hash.KeyHasher;
import io.varve.core.testing.DelegatingChannel;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A sync that was called before a close, and waits for the log lock while the close runs, returns
 * only if its writes are durable. A close hands the write-ahead log's records over to the buffers
 * file; when writing that file fails, the records still pending in memory were dropped with the
 * log, and the waiting sync returned as if they were durable (the close had made it skip its
 * write). Now it throws.
 */
class BufferHashSyncRacingAFailedCloseTest {
  @TempDir Path temp;

  @AfterEach
  void restore() {
    Channels.opener = FileChannel::open;
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** Holds the first write to the log after {@code armed} until {@code release}. */
  private static final class HeldLogWrites {
    volatile boolean armed;
    final CountDownLatch entered = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);

    FileChannel wrap(Path file, FileChannel real) {
      if (!file.getFileName().toString().equals("log")) {
        return real;
      }
      return new DelegatingChannel(real) {
        @Override
        public int write(ByteBuffer src, long position) throws IOException {
          if (armed) {
            armed = false;
            entered.countDown();
            try {
              release.await();
            } catch (InterruptedException e) {
              throw new IOException(e);
            }
          }
          return real.write(src, position);
        }
      };
    }
  }

  /** The super table of {@code key} in a table of the default seed and four super tables, as BufferHash places it. */
  private static int superTable(byte[] key) {
    long[] hash = new long[2];
    KeyHasher.withSeed(0x5EEDB0FFL).hash(key, hash);
    return (int) (((hash[0] >>> 32) * 4) >>> 32);
  }

  private static void awaitWaiting(Thread thread) throws InterruptedException {
    for (int i = 0; i < 60_000 && thread.getState() != Thread.State.WAITING; i++) {
      Thread.sleep(1); // a guard against a hang, not a measure: the thread parks on the log lock
    }
    assertTrue(thread.getState() == Thread.State.WAITING, thread + " never waited for the log lock: " + thread.getState());
  }

  @Test
  void aSyncWaitingForAFailedCloseDoesNotSayItsWritesAreDurable() throws Exception {
    Path dir = temp.resolve("t");
    HeldLogWrites held = new HeldLogWrites();
    Channels.opener = (file, options) -> held.wrap(file, FileChannel.open(file, options));
    BufferHash table = RandomWrites.smallTable(dir, Durability.SYNC_ON_CALL, 4096).open();
    table.put(bytes("synced"), bytes("s"));
    table.sync();
    table.put(bytes("pending"), bytes("p")); // in the write-ahead log's memory until a sync
    // Writing the buffers file on close fails (its temporary name is taken by a directory).
    Files.createDirectory(dir.resolve("buffers.tmp"));

    // A flush holds the log lock, stopped in its write; the close, then the sync, queue behind it.
    held.armed = true;
    Thread flusher = new Thread(() -> {
      // Of the other super tables: the flush must not take the pending write into the log.
      for (int i = 0; held.entered.getCount() > 0; i++) {
        if (superTable(bytes("fill" + i)) != superTable(bytes("pending"))) {
          table.put(bytes("fill" + i), new byte[24]);
        }
      }
    });
    flusher.start();
    held.entered.await();
    AtomicReference<Throwable> closeFailure = new AtomicReference<>();
    Thread closer = new Thread(() -> {
      try {
        table.close();
      } catch (Throwable e) {
        closeFailure.set(e);
      }
    });
    closer.start();
    awaitWaiting(closer);
    AtomicReference<Throwable> syncFailure = new AtomicReference<>();
    Thread syncer = new Thread(() -> {
      try {
        table.sync();
      } catch (Throwable e) {
        syncFailure.set(e);
      }
    });
    syncer.start();
    awaitWaiting(syncer);
    held.release.countDown();
    flusher.join();
    closer.join();
    syncer.join();

    assertNotNull(closeFailure.get(), "the close failed to write the buffers file");
    Files.delete(dir.resolve("buffers.tmp"));
    Channels.opener = FileChannel::open;
    try (BufferHash reopened = RandomWrites.smallTable(dir, Durability.SYNC_ON_CALL, 4096).open()) {
      assertArrayEquals(bytes("s"), reopened.get(bytes("synced")));
      if (syncFailure.get() == null) {
        assertArrayEquals(bytes("p"), reopened.get(bytes("pending")), "the sync returned, but its write is lost");
      } else {
        assertNull(reopened.get(bytes("pending")));
      }
    }
    Throwable refused = syncFailure.get();
    assertTrue(refused instanceof UncheckedIOException && refused.getMessage().contains("close"), "the sync says why it failed: " + refused);
  }
}
