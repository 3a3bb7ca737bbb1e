package io.varve.reader;

import static org.junit.jupiter.api.Assertions.assertThrows;

import io.varve.builder.ShardedStoreBuilder;
import io.varve.core.testing.TestRecords;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link CloseRaceTest} for a sharded store: a thread in long {@code getAll}s across all shards and
 * four threads calling {@code get} and {@code contains} while another closes the store. Every
 * answer must be right or a {@link StoreClosedException}; a close that unmapped a shard under a
 * reader would crash this JVM. After close, every call fails with {@link StoreClosedException}.
 */
class ShardedCloseRaceTest {
  private static final int ROUNDS = Integer.getInteger("varve.closeRace.rounds", 300) / 10;
  private static final int GETTERS = 4;

  @TempDir Path temp;

  @Test
  void closeWhileOtherThreadsReadIsSafe() throws Exception {
    long seed = 0x5C105EL;
    System.out.println("ShardedCloseRaceTest seed " + Long.toHexString(seed) + ", " + ROUNDS + " rounds");
    Map<ByteBuffer, byte[]> records = TestRecords.variable(20_000, seed, 24, 40);
    Path root = temp.resolve("sharded");
    try (ShardedStoreBuilder builder = ShardedStoreBuilder.create(root, 7)) {
      for (Map.Entry<ByteBuffer, byte[]> e : records.entrySet()) {
        builder.put(e.getKey().array(), e.getValue());
      }
      builder.build();
    }
    List<byte[]> keys = new ArrayList<>();
    records.keySet().forEach(k -> keys.add(k.array()));
    SplittableRandom random = new SplittableRandom(seed);
    byte[][] batch = new byte[30_000][];
    for (int i = 0; i < batch.length; i++) {
      batch[i] = keys.get(random.nextInt(keys.size()));
    }
    for (int round = 0; round < ROUNDS; round++) {
      ShardedStore store = ShardedStore.open(root);
      AtomicReference<Throwable> failure = new AtomicReference<>();
      AtomicBoolean stop = new AtomicBoolean();
      CountDownLatch started = new CountDownLatch(GETTERS + 1);
      List<Thread> threads = new ArrayList<>();
      threads.add(new Thread(() -> {
        byte[][] values = new byte[batch.length][];
        started.countDown();
        while (true) {
          try {
            store.getAll(batch, values);
          } catch (StoreClosedException closed) {
            return;
          } catch (Throwable e) {
            failure.compareAndSet(null, e);
            return;
          }
          for (int i = 0; i < batch.length; i += 101) {
            if (!Arrays.equals(records.get(ByteBuffer.wrap(batch[i])), values[i])) {
              failure.compareAndSet(null, new AssertionError("getAll: wrong value at " + i));
              return;
            }
          }
        }
      }, "getAll"));
      for (int t = 0; t < GETTERS; t++) {
        int first = t;
        threads.add(new Thread(() -> {
          started.countDown();
          for (int i = first; !stop.get(); i = (i + GETTERS) % keys.size()) {
            byte[] key = keys.get(i);
            try {
              if (!Arrays.equals(records.get(ByteBuffer.wrap(key)), store.get(key)) || !store.contains(key)) {
                failure.compareAndSet(null, new AssertionError("wrong answer for key " + i));
                return;
              }
            } catch (StoreClosedException closed) {
              continue;
            } catch (Throwable e) {
              failure.compareAndSet(null, e);
              return;
            }
          }
        }, "get-" + t));
      }
      threads.forEach(Thread::start);
      started.await();
      Thread.sleep(random.nextInt(4));
      store.close();
      threads.get(0).join();
      stop.set(true);
      for (Thread thread : threads) {
        thread.join();
      }
      if (failure.get() != null) {
        throw new AssertionError("round " + round + ": a lookup failed", failure.get());
      }
      assertThrows(StoreClosedException.class, () -> store.get(batch[0]));
      assertThrows(StoreClosedException.class, () -> store.getAll(batch, new byte[batch.length][]));
    }
  }
}
