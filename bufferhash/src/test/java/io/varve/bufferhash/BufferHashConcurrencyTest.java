package io.varve.bufferhash;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Writers and readers on the same super tables at once. Each key's value carries a version that
 * only grows; a reader must see at least the version whose put had returned before its get
 * started, and never a version not yet written.
 */
class BufferHashConcurrencyTest {
  private static final int KEYS = 4_000;

  @TempDir Path temp;

  private static byte[] key(int k) {
    return ("key-" + k).getBytes(java.nio.charset.StandardCharsets.UTF_8);
  }

  private static byte[] value(int k, long version) {
    return ByteBuffer.allocate(12 + (int) (version % 7)).putInt(k).putLong(version).array();
  }

  @Test
  void readersSeeEveryFinishedWriteAndNothingUnwritten() throws Exception {
    Path dir = temp.resolve("table");
    int writers = 3;
    int readers = 3;
    AtomicLongArray done = new AtomicLongArray(KEYS);
    AtomicLongArray started = new AtomicLongArray(KEYS);
    ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
    AtomicBoolean stop = new AtomicBoolean();
    AtomicLong reads = new AtomicLong();
    try (BufferHash table = BufferHash.builder(dir).logBytes(64 << 20).memoryBytes(4 << 20).entryBytes(24).bufferBytes(4096).superTables(16).open()) {
      List<Thread> threads = new ArrayList<>();
      for (int w = 0; w < writers; w++) {
        int writer = w;
        threads.add(
            new Thread(
                () -> {
                  Random random = new Random(100 + writer);
                  try {
                    for (int i = 0; i < 60_000; i++) {
                      int k = writer + writers * random.nextInt(KEYS / writers);
                      long version = done.get(k) + 1;
                      started.set(k, version);
                      table.put(key(k), value(k, version));
                      done.set(k, version);
                    }
                  } catch (Throwable t) {
                    failures.add(t);
                  }
                }));
      }
      for (int r = 0; r < readers; r++) {
        int reader = r;
        threads.add(
            new Thread(
                () -> {
                  Random random = new Random(200 + reader);
                  try {
                    while (!stop.get()) {
                      int k = random.nextInt(KEYS);
                      long atLeast = done.get(k);
                      byte[] value = table.get(key(k));
                      long atMost = started.get(k);
                      long version = value == null ? 0 : ByteBuffer.wrap(value).getLong(4);
                      if (value != null) {
                        assertEquals(k, ByteBuffer.wrap(value).getInt(0), "a value of another key");
                        assertEquals(value(k, version).length, value.length);
                      }
                      assertTrue(version >= atLeast && version <= atMost, "key " + k + ": version " + version + " outside [" + atLeast + ", " + atMost + "]");
                      reads.incrementAndGet();
                    }
                  } catch (Throwable t) {
                    failures.add(t);
                  }
                }));
      }
      threads.forEach(Thread::start);
      for (int w = 0; w < writers; w++) {
        threads.get(w).join();
      }
      stop.set(true);
      for (Thread thread : threads) {
        thread.join();
      }
      assertTrue(failures.isEmpty(), () -> failures.peek().toString());
      assertTrue(table.stats().flushes() > 50, "buffers never filled: " + table.stats());
      for (int k = 0; k < KEYS; k++) {
        byte[] expected = done.get(k) == 0 ? null : value(k, done.get(k));
        assertArrayEquals(expected, table.get(key(k)));
      }
      System.out.println("BufferHashConcurrencyTest: " + reads.get() + " checked reads; " + table.stats());
    }
  }

  @ParameterizedTest
  @EnumSource(Durability.class)
  void closeUnderLoadWaitsForOperationsAndThenRejectsThem(Durability durability) throws Exception {
    Path dir = temp.resolve("closing-" + durability);
    AtomicLongArray done = new AtomicLongArray(KEYS);
    AtomicLongArray started = new AtomicLongArray(KEYS);
    ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
    BufferHash table =
        BufferHash.builder(dir).logBytes(64 << 20).memoryBytes(4 << 20).entryBytes(24).bufferBytes(4096).superTables(8).durability(durability).open();
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < 4; t++) {
      int id = t;
      threads.add(
          new Thread(
              () -> {
                Random random = new Random(300 + id);
                try {
                  while (true) {
                    int k = id + 4 * random.nextInt(KEYS / 4);
                    if (random.nextBoolean()) {
                      long version = done.get(k) + 1;
                      started.set(k, version);
                      table.put(key(k), value(k, version));
                      done.set(k, version);
                    } else {
                      table.get(key(k));
                    }
                  }
                } catch (IllegalStateException closed) {
                  if (!String.valueOf(closed.getMessage()).contains("closed")) {
                    failures.add(closed);
                  }
                } catch (Throwable t2) {
                  failures.add(t2);
                }
              }));
    }
    threads.forEach(Thread::start);
    Thread.sleep(300);
    table.close();
    for (Thread thread : threads) {
      thread.join();
    }
    assertTrue(failures.isEmpty(), () -> failures.peek().toString());
    try (BufferHash reopened = BufferHash.builder(dir).memoryBytes(4 << 20).entryBytes(24).bufferBytes(4096).durability(durability).open()) {
      for (int k = 0; k < KEYS; k++) {
        // A put that returned is there; one that close cut off is there or not.
        byte[] value = reopened.get(key(k));
        long version = value == null ? 0 : ByteBuffer.wrap(value).getLong(4);
        assertTrue(version >= done.get(k) && version <= started.get(k), "key " + k + " after close under load: version " + version);
      }
    }
  }
}
