package io.varve.reader;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.builder.StoreBuilder;
import io.varve.core.store.StoreRoot;
import io.varve.core.testing.TestRecords;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A follower closed while a refresh opens the next version (a load of a large version takes
 * minutes; an open on a stuck network mount, for ever): close waited for the open, since both held
 * the follower's monitor, so that a shutdown hung on the refresher. Now close returns at once; the
 * refresh then closes the version it opened and throws {@link StoreClosedException}.
 */
class FollowerCloseTest {
  private static final long SEED = 0xC105EL;

  @TempDir Path temp;

  @Test
  void closeDoesNotWaitForARefreshOpeningTheNextVersion() throws Exception {
    System.out.println("FollowerCloseTest seed " + Long.toHexString(SEED));
    Map<ByteBuffer, byte[]> records = TestRecords.variable(2_000, SEED, 8, 24);
    StoreRoot root = StoreRoot.open(temp.resolve("root"));
    publish(root, records);
    CountDownLatch opening = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger opens = new AtomicInteger();
    AtomicReference<Store> opened = new AtomicReference<>();
    FollowingStore store = FollowingStore.open(root.directory(), version -> {
      if (opens.incrementAndGet() > 1) {
        opening.countDown();
        try {
          release.await();
        } catch (InterruptedException e) {
          throw new IllegalStateException(e);
        }
      }
      Store next = Store.open(version);
      opened.set(next);
      return next;
    });
    byte[] key = records.keySet().iterator().next().array();
    assertArrayEquals(records.get(ByteBuffer.wrap(key)), store.get(key));
    publish(root, records);
    AtomicReference<Object> refreshed = new AtomicReference<>();
    Thread refresher = new Thread(() -> {
      try {
        refreshed.set(store.refresh());
      } catch (Throwable e) {
        refreshed.set(e);
      }
    });
    refresher.start();
    opening.await();
    Thread closer = new Thread(store::close);
    closer.start();
    closer.join(10_000);
    boolean closedWhileOpening = !closer.isAlive();
    release.countDown();
    refresher.join();
    closer.join();
    assertTrue(closedWhileOpening, "close waited for the refresh's open");
    assertInstanceOf(StoreClosedException.class, refreshed.get(), "the refresh after the close: " + refreshed.get());
    assertTrue(opened.get().isClosed(), "the version the refresh opened was left open");
    assertThrows(StoreClosedException.class, () -> store.get(key));
    assertThrows(StoreClosedException.class, store::refresh);
    assertThrows(StoreClosedException.class, store::version);
  }

  /**
   * Close at a random moment while four threads look up and one publishes and refreshes: every
   * lookup answers from a whole version or is refused as closed, the refresher is refused as
   * closed, and every store the follower opened is closed (none leaks from a refresh that the
   * close overtook).
   */
  @Test
  void closeWhileLookupsAndRefreshesRunLeavesNothingOpen() throws Exception {
    System.out.println("FollowerCloseTest seed " + Long.toHexString(SEED));
    java.util.SplittableRandom random = new java.util.SplittableRandom(SEED);
    Map<ByteBuffer, byte[]> records = TestRecords.variable(500, SEED, 8, 24);
    StoreRoot root = StoreRoot.open(temp.resolve("race"));
    List<String> names = new java.util.ArrayList<>();
    for (int v = 0; v < 3; v++) {
      publish(root, records);
      names.add(root.current().orElseThrow());
    }
    byte[][] keys = records.keySet().stream().map(ByteBuffer::array).toArray(byte[][]::new);
    for (int round = 0; round < 40; round++) {
      java.util.Queue<Store> opened = new java.util.concurrent.ConcurrentLinkedQueue<>();
      FollowingStore store = FollowingStore.open(root.directory(), version -> {
        Store next = Store.open(version);
        opened.add(next);
        return next;
      });
      AtomicReference<Throwable> failure = new AtomicReference<>();
      List<Thread> threads = new java.util.ArrayList<>();
      for (int t = 0; t < 4; t++) {
        int me = t;
        threads.add(new Thread(() -> {
          for (int i = me; ; i++) {
            byte[] key = keys[i % keys.length];
            try {
              if (!java.util.Arrays.equals(records.get(ByteBuffer.wrap(key)), store.get(key))) {
                failure.compareAndSet(null, new AssertionError("a wrong value"));
              }
            } catch (StoreClosedException closed) {
              return;
            } catch (Throwable e) {
              failure.compareAndSet(null, e);
              return;
            }
          }
        }));
      }
      threads.add(new Thread(() -> {
        for (int i = 0; ; i++) {
          try {
            synchronized (root) {
              root.publish(names.get(i % names.size()));
            }
            store.refresh();
          } catch (StoreClosedException closed) {
            return;
          } catch (Throwable e) {
            failure.compareAndSet(null, e);
            return;
          }
        }
      }));
      threads.forEach(Thread::start);
      for (int spin = random.nextInt(2_000_000); spin > 0; spin--) {
        Thread.onSpinWait();
      }
      store.close();
      for (Thread thread : threads) {
        thread.join();
      }
      if (failure.get() != null) {
        throw new AssertionError("round " + round, failure.get());
      }
      for (Store s : opened) {
        assertTrue(s.isClosed(), "round " + round + ": " + s + " left open (" + opened.size() + " opened)");
      }
    }
  }

  private static void publish(StoreRoot root, Map<ByteBuffer, byte[]> records) throws IOException {
    Path version = root.newVersion();
    try (StoreBuilder builder = StoreBuilder.create(version)) {
      for (Map.Entry<ByteBuffer, byte[]> e : records.entrySet()) {
        builder.put(e.getKey().array(), e.getValue());
      }
      builder.build();
    }
    root.publish(version.getFileName().toString());
  }
}
