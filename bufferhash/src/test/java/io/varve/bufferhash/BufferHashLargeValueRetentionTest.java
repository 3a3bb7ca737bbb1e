package io.varve.bufferhash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A thread that read a large value from the log keeps no copy of it: each thread's lookup context
 * kept the largest unit it ever read, and the last one it found, for the thread's life, outside
 * the table's RAM budget (three threads that read a 24 MiB value each held 72 MiB until they
 * ended, and a pool's threads never do).
 */
class BufferHashLargeValueRetentionTest {
  private static final int VALUE_BYTES = 24 << 20;
  private static final int THREADS = 3;

  @TempDir Path temp;

  /** Bytes of live objects on the heap: measured after full collections (one is not always enough to settle). */
  private static long liveHeap() {
    MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    for (int i = 0; i < 3; i++) {
      System.gc();
    }
    return memory.getHeapMemoryUsage().getUsed();
  }

  @Test
  void threadsThatReadLargeValuesDoNotKeepThem() throws Exception {
    try (BufferHash table = BufferHash.builder(temp.resolve("t")).logBytes(256L << 20).memoryBytes(16 << 20).open()) {
      for (int t = 0; t < THREADS; t++) {
        byte[] value = new byte[VALUE_BYTES];
        value[t] = (byte) (t + 1);
        table.put(("large" + t).getBytes(StandardCharsets.UTF_8), value); // larger than a buffer: written to the log at once
      }
      long before = liveHeap();
      CountDownLatch read = new CountDownLatch(THREADS);
      CountDownLatch done = new CountDownLatch(1);
      List<Thread> readers = new ArrayList<>();
      int[] lengths = new int[THREADS];
      for (int t = 0; t < THREADS; t++) {
        int index = t;
        Thread reader = new Thread(() -> {
          lengths[index] = table.get(("large" + index).getBytes(StandardCharsets.UTF_8)).length; // the value itself is dropped
          read.countDown();
          try {
            done.await(); // alive, as a pool's thread is
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        });
        reader.start();
        readers.add(reader);
      }
      read.await();
      long held = liveHeap() - before;
      done.countDown();
      for (Thread reader : readers) {
        reader.join();
      }
      for (int length : lengths) {
        assertEquals(VALUE_BYTES, length);
      }
      assertTrue(table.stats().flashReads() >= THREADS, "the values were read from the log");
      assertTrue(held < VALUE_BYTES, THREADS + " threads that read a value of " + VALUE_BYTES + " bytes each hold " + held + " bytes more");
    }
  }
}
