package io.varve.reader;

import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One round of the close race the hostile test campaign found, for any reader: a thread in long
 * {@code getAll}s and {@code getters} threads calling {@code get} and {@code contains} while the
 * test thread closes the reader. Every answer must be right or a {@link StoreClosedException}; a
 * close that unmapped data under a reader crashes the JVM. After the close every call fails with
 * {@link StoreClosedException}.
 */
final class CloseRace {
  /** The reader under test: {@link Store} or {@link ShardedStore}. */
  interface Lookups {
    byte[] get(byte[] key);

    boolean contains(byte[] key);

    void getAll(byte[][] keys, byte[][] values);

    void close();
  }

  private CloseRace() {}

  static Lookups of(Store store) {
    return new Lookups() {
      @Override public byte[] get(byte[] key) { return store.get(key); }
      @Override public boolean contains(byte[] key) { return store.contains(key); }
      @Override public void getAll(byte[][] keys, byte[][] values) { store.getAll(keys, values); }
      @Override public void close() { store.close(); }
    };
  }

  static Lookups of(ShardedStore store) {
    return new Lookups() {
      @Override public byte[] get(byte[] key) { return store.get(key); }
      @Override public boolean contains(byte[] key) { return store.contains(key); }
      @Override public void getAll(byte[][] keys, byte[][] values) { store.getAll(keys, values); }
      @Override public void close() { store.close(); }
    };
  }

  /** A batch for the {@code getAll} thread: {@code size} keys drawn from {@code keys}. */
  static byte[][] batch(List<byte[]> keys, int size, SplittableRandom random) {
    byte[][] batch = new byte[size][];
    for (int i = 0; i < size; i++) {
      batch[i] = keys.get(random.nextInt(keys.size()));
    }
    return batch;
  }

  /**
   * Runs one round over {@code reader}, which it closes, and returns the lookups that finished
   * before the close.
   *
   * @throws AssertionError naming {@code round} if a lookup failed or answered wrong
   */
  static long round(
      Lookups reader, Map<ByteBuffer, byte[]> records, List<byte[]> keys, byte[][] batch, int getters, SplittableRandom random, int round)
      throws InterruptedException {
    AtomicLong lookups = new AtomicLong();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    AtomicBoolean stop = new AtomicBoolean();
    CountDownLatch started = new CountDownLatch(getters + 1);
    List<Thread> threads = new ArrayList<>();
    threads.add(new Thread(() -> {
      byte[][] values = new byte[batch.length][];
      started.countDown();
      while (true) {
        try {
          reader.getAll(batch, values);
        } catch (StoreClosedException closed) {
          return;
        } catch (Throwable e) {
          failure.compareAndSet(null, e);
          return;
        }
        lookups.incrementAndGet();
        for (int i = 0; i < batch.length; i += 101) {
          if (!Arrays.equals(records.get(ByteBuffer.wrap(batch[i])), values[i])) {
            failure.compareAndSet(null, new AssertionError("getAll: wrong value at " + i));
            return;
          }
        }
      }
    }, "getAll"));
    for (int t = 0; t < getters; t++) {
      int first = t;
      threads.add(new Thread(() -> {
        started.countDown();
        // Like a server's request threads, keep calling after the close: each call then enters
        // and backs out, the traffic under which the old count lost a reader.
        for (int i = first; !stop.get(); i = (i + getters) % keys.size()) {
          byte[] key = keys.get(i);
          try {
            if (!Arrays.equals(records.get(ByteBuffer.wrap(key)), reader.get(key)) || !reader.contains(key)) {
              failure.compareAndSet(null, new AssertionError("wrong answer for key " + i));
              return;
            }
          } catch (StoreClosedException closed) {
            continue;
          } catch (Throwable e) {
            failure.compareAndSet(null, e);
            return;
          }
          lookups.incrementAndGet();
        }
      }, "get-" + t));
    }
    threads.forEach(Thread::start);
    started.await();
    // Close at varying points of the getAll (it takes a few milliseconds).
    Thread.sleep(random.nextInt(4));
    if (random.nextBoolean()) {
      Thread.onSpinWait();
    }
    reader.close();
    threads.get(0).join();
    stop.set(true);
    for (Thread thread : threads) {
      thread.join();
    }
    if (failure.get() != null) {
      throw new AssertionError("round " + round + ": a lookup failed", failure.get());
    }
    assertThrows(StoreClosedException.class, () -> reader.get(batch[0]));
    assertThrows(StoreClosedException.class, () -> reader.getAll(batch, new byte[batch.length][]));
    return lookups.get();
  }
}
