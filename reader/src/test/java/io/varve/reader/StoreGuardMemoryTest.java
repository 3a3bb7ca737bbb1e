package io.varve.reader;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.builder.StoreBuilder;
import io.varve.core.testing.TestRecords;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The lookup counts of a standalone store cost one counter until two lookups collide on it, then
 * the stripes the collisions call for: a {@link LookupGuard} took {@code 128 * 8 * processors}
 * bytes from the open on (2 KiB on 2 cores, 64 KiB on 64), which a process serving thousands of
 * small stores paid for each, and later the same once two lookups collided. Close still waits for
 * every lookup in flight ({@link LookupGuardTest}, {@link StoreConcurrencyTest}).
 */
class StoreGuardMemoryTest {
  private static final long SEED = 0x5A0E6L;

  @TempDir Path temp;

  @Test
  void aStoreReadByOneThreadAtATimeHoldsOneCounter() throws IOException {
    System.out.println("StoreGuardMemoryTest seed " + Long.toHexString(SEED));
    Map<ByteBuffer, byte[]> records = TestRecords.variable(2_000, SEED, 8, 24);
    Path dir = temp.resolve("store");
    try (StoreBuilder builder = StoreBuilder.create(dir)) {
      for (Map.Entry<ByteBuffer, byte[]> e : records.entrySet()) {
        builder.put(e.getKey().array(), e.getValue());
      }
      builder.build();
    }
    for (DataAccess access : DataAccess.values()) {
      Store store = Store.open(dir, access);
      try {
        for (Map.Entry<ByteBuffer, byte[]> e : records.entrySet()) {
          assertArrayEquals(e.getValue(), store.get(e.getKey().array()));
        }
        long bytes = store.guard().ramBytesUsed();
        System.out.println("StoreGuardMemoryTest " + access + ": " + bytes + " bytes of lookup counts after "
            + records.size() + " lookups on one thread");
        assertEquals(Long.BYTES, bytes, access + ": bytes of lookup counts");
      } finally {
        store.close();
      }
      assertThrows(StoreClosedException.class, () -> store.get(new byte[3]));
    }
  }

  /**
   * A store read by two threads at once took the full stripes once they collided, eight per
   * processor (2 KiB here, 64 KiB on 64 cores): now the stripes that separate the two threads' ids
   * (384 bytes with their padding for ids that differ in their lowest bit).
   */
  @Test
  void aStoreReadByTwoThreadsAtOnceHoldsTheStripesThatSeparateThem() throws Exception {
    Map<ByteBuffer, byte[]> records = TestRecords.variable(2_000, SEED, 8, 24);
    Path dir = temp.resolve("store");
    try (StoreBuilder builder = StoreBuilder.create(dir)) {
      for (Map.Entry<ByteBuffer, byte[]> e : records.entrySet()) {
        builder.put(e.getKey().array(), e.getValue());
      }
      builder.build();
    }
    byte[][] keys = records.keySet().stream().map(ByteBuffer::array).toArray(byte[][]::new);
    try (Store store = Store.open(dir)) {
      LookupGuard guard = store.guard();
      long[] ids = readAtOnce(store, keys);
      int separating = 2;
      while (((ids[0] ^ ids[1]) & (separating - 1)) == 0) {
        separating *= 2;
      }
      long bound = LookupGuardTest.stripesBytes(separating);
      long full = Long.BYTES + 128L * Integer.highestOneBit(Math.max(2, 8 * Runtime.getRuntime().availableProcessors()) - 1) * 2;
      System.out.println("StoreGuardMemoryTest: threads " + ids[0] + " and " + ids[1] + ": " + guard.ramBytesUsed()
          + " bytes of lookup counts (bound " + bound + ", the full stripes " + full + ")");
      assertTrue(guard.isSpread(), "the two threads never collided");
      assertTrue(guard.ramBytesUsed() <= bound, guard.ramBytesUsed() + " bytes of counts for two threads");
    }
  }

  /** Two threads look up every key until the store's guard spread, then 200,000 lookups more each; their ids. */
  private static long[] readAtOnce(Store store, byte[][] keys) throws InterruptedException {
    java.util.concurrent.CountDownLatch started = new java.util.concurrent.CountDownLatch(2);
    java.util.concurrent.atomic.AtomicReference<Throwable> failure = new java.util.concurrent.atomic.AtomicReference<>();
    Thread[] threads = new Thread[2];
    long[] ids = new long[2];
    for (int t = 0; t < 2; t++) {
      threads[t] = new Thread(() -> {
        started.countDown();
        try {
          started.await();
          int after = 0;
          for (long i = 0; i < 50_000_000L && after < 200_000; i++) {
            if (store.get(keys[(int) (i % keys.length)]) == null) {
              throw new AssertionError("a key not found");
            }
            if (store.guard().isSpread()) {
              after++;
            }
          }
        } catch (Throwable e) {
          failure.set(e);
        }
      });
      ids[t] = threads[t].getId();
      threads[t].start();
    }
    for (Thread thread : threads) {
      thread.join();
    }
    if (failure.get() != null) {
      throw new AssertionError(failure.get());
    }
    return ids;
  }
}
