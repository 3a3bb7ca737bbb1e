package io.varve.silt;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.varve.reader.StoreClosedException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Readers, writers, freezes, background merges, {@link SiltStore#mergeNow()} and {@link
 * SiltStore#close()} at once. Every write of key {@code k} has a version, 1, 2, 3, … per key; whether
 * version {@code v} is a put or a delete is a fixed function of {@code (k, v)} ({@link #isDelete}),
 * so a reader knows what each version left in the store. The writer publishes, per key, the
 * version it started ({@code started}) and the version whose call returned ({@code done}).
 *
 * <p>What a get must satisfy (checked by {@link Reader}): a value is well-formed and of its key; it
 * is a put version {@code v} with {@code done(before the get) ≤ v ≤ started(after the get)}; null
 * means a delete (or never written: version 0) in that range. And a reader never goes back: once it
 * saw version {@code v} of a key, it later sees {@code v} again or a later put or delete.
 */
class SiltConcurrencyTest {
  @TempDir Path temp;

  private static final SiltOptions SMALL = SiltOptions.builder()
      .logStoreEntries(128)
      .maxLogBytes(32 << 10)
      .hashStoresPerMerge(2)
      .backgroundMerges(true)
      .build();

  static byte[] key(int k) {
    // Keys of a few shapes: short, long, and ones sharing long prefixes.
    return switch (k % 3) {
      case 0 -> ("k" + k).getBytes(StandardCharsets.UTF_8);
      case 1 -> ("a-rather-long-shared-prefix-for-the-key-" + k).getBytes(StandardCharsets.UTF_8);
      default -> ByteBuffer.allocate(4).putInt(k).array();
    };
  }

  private static long mix(long x) {
    x ^= x >>> 33;
    x *= 0xff51afd7ed558ccdL;
    x ^= x >>> 33;
    x *= 0xc4ceb9fe1a85ec53L;
    return x ^ x >>> 33;
  }

  /** Whether version {@code v} of key {@code k} is a delete; version 0, never written, counts as one. */
  static boolean isDelete(int k, long v) {
    return v == 0 || (mix(k * 0x9E3779B97F4A7C15L + v) & 3) == 0;
  }

  /** The value of put version {@code v} of {@code k}: its key, its version, and filler that depends on both. */
  static byte[] value(int k, long v) {
    long h = mix(k * 31L + v * 0x632BE59BD9B4E019L);
    int length = 12 + ((h & 31) == 0 ? 600 + (int) ((h >>> 8) & 1023) : (int) ((h >>> 8) & 63));
    ByteBuffer b = ByteBuffer.allocate(length).putInt(k).putLong(v);
    for (int i = 12; i < length; i++) {
      b.put((byte) (h >>> (i & 63) ^ i));
    }
    return b.array();
  }

  /** The version of {@code value}, checked to be a well-formed value of key {@code k}. */
  static long versionOf(int k, byte[] value) {
    if (value.length < 12) {
      fail("key " + k + ": a value of " + value.length + " bytes");
    }
    ByteBuffer b = ByteBuffer.wrap(value);
    int owner = b.getInt(0);
    long v = b.getLong(4);
    if (owner != k) {
      fail("key " + k + ": a value of key " + owner + " (version " + v + ")");
    }
    if (v <= 0 || !java.util.Arrays.equals(value, value(k, v))) {
      fail("key " + k + ": a malformed value claiming version " + v + " (" + value.length + " bytes)");
    }
    return v;
  }

  /** Per-key versions the writers publish: started before a call, done once it returned. */
  static final class Versions {
    final AtomicLongArray started;
    final AtomicLongArray done;

    Versions(int keys) {
      started = new AtomicLongArray(keys);
      done = new AtomicLongArray(keys);
    }
  }

  /**
   * Checks gets against the writers' versions and its own earlier observations. One per reader
   * thread.
   */
  static final class Reader {
    private final SiltStore store;
    private final Versions versions;
    /** Per key, the oldest version consistent with what this reader last saw (0: nothing yet). */
    private final long[] seen;
    long values;
    long nulls;

    Reader(SiltStore store, Versions versions, int keys) {
      this.store = store;
      this.versions = versions;
      this.seen = new long[keys];
    }

    void check(int k) {
      long lo = versions.done.get(k);
      byte[] value = store.get(key(k));
      long hi = versions.started.get(k);
      long from = Math.max(lo, seen[k]);
      if (value != null) {
        long v = versionOf(k, value);
        if (isDelete(k, v)) {
          fail("key " + k + ": a value of version " + v + ", which is a delete");
        }
        if (v > hi) {
          fail("key " + k + ": version " + v + ", never started (started " + hi + ")");
        }
        if (v < lo) {
          fail("key " + k + ": version " + v + " although version " + lo + " had returned before the get");
        }
        if (v < seen[k]) {
          fail("key " + k + ": version " + v + " after this reader saw version " + seen[k]);
        }
        seen[k] = v;
        values++;
      } else {
        long d = from;
        while (d <= hi && !isDelete(k, d)) {
          d++;
        }
        if (d > hi) {
          fail("key " + k + ": null, but no delete among versions " + from + " to " + hi
              + " (done before the get " + lo + ", this reader saw " + seen[k] + ")");
        }
        seen[k] = d;
        nulls++;
      }
    }
  }

  /** One writer's keys: {@code k ≡ id (mod stride)}; its model of what the store holds. */
  static final class Writer {
    final SiltStore store;
    final Versions versions;
    final long[] next;
    final Map<Integer, Long> model;

    Writer(SiltStore store, Versions versions, long[] next, Map<Integer, Long> model) {
      this.store = store;
      this.versions = versions;
      this.next = next;
      this.model = model;
    }

    /** Writes the next version of {@code k}; the model changes only once the call returned. */
    void write(int k) throws java.io.IOException {
      long v = next[k] + 1;
      versions.started.set(k, v);
      if (isDelete(k, v)) {
        store.delete(key(k));
        model.remove(k);
      } else {
        store.put(key(k), value(k, v));
        model.put(k, v);
      }
      next[k] = v;
      versions.done.set(k, v);
    }
  }

  static void checkAgainstModel(SiltStore store, int keys, Map<Integer, Long> model, String when) {
    for (int k = 0; k < keys; k++) {
      Long v = model.get(k);
      byte[] found = store.get(key(k));
      if (v == null) {
        assertNull(found, when + ": key " + k + " should be absent, found " + (found == null ? "" : versionOf(k, found)));
      } else {
        assertArrayEquals(value(k, v), found, when + ": key " + k + " version " + v
            + (found == null ? ", found nothing" : ", found " + versionOf(k, found)));
      }
    }
  }

  private static Thread thread(String name, ConcurrentLinkedQueue<Throwable> failures, ThrowingRunnable body) {
    Thread t = new Thread(() -> {
      try {
        body.run();
      } catch (Throwable e) {
        failures.add(new AssertionError(name + " failed", e));
      }
    }, name);
    t.setDaemon(true);
    return t;
  }

  interface ThrowingRunnable {
    void run() throws Exception;
  }

  private static void joinAll(List<Thread> threads, long seconds) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    for (Thread t : threads) {
      t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
      if (t.isAlive()) {
        StringBuilder stack = new StringBuilder();
        for (StackTraceElement e : t.getStackTrace()) {
          stack.append("\n  at ").append(e);
        }
        fail(t.getName() + " still running after " + seconds + " s (a deadlock?)" + stack);
      }
    }
  }

  private static void assertNoFailures(ConcurrentLinkedQueue<Throwable> failures) {
    if (!failures.isEmpty()) {
      AssertionError e = new AssertionError(failures.size() + " thread(s) failed; the first: " + failures.peek(), failures.peek());
      failures.stream().skip(1).limit(5).forEach(e::addSuppressed);
      throw e;
    }
  }

  @Test
  void readersNeverGoBackThroughWritesFreezesAndBackgroundMerges() throws Exception {
    long seed = 0x5117_C001L;
    System.out.println("SiltConcurrencyTest.readers seed " + seed);
    int keys = 1500;
    int readers = 3;
    long runNanos = TimeUnit.MILLISECONDS.toNanos(3500);
    Path dir = temp.resolve("readers");
    Versions versions = new Versions(keys);
    Map<Integer, Long> model = new HashMap<>();
    ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
    AtomicBoolean stop = new AtomicBoolean();
    AtomicLong writes = new AtomicLong();
    AtomicLong values = new AtomicLong();
    AtomicLong nulls = new AtomicLong();
    try (SiltStore store = SiltStore.open(dir, SMALL)) {
      Writer writer = new Writer(store, versions, new long[keys], model);
      List<Thread> threads = new ArrayList<>();
      threads.add(thread("writer", failures, () -> {
        Random random = new Random(seed);
        long end = System.nanoTime() + runNanos;
        try {
          while (System.nanoTime() < end && failures.isEmpty()) {
            // Mostly random keys; now and then a run over a small hot set, so a log store holds
            // several versions of a key and one key's versions span log, frozen and sorted stores.
            int k = random.nextInt(4) == 0 ? random.nextInt(16) : random.nextInt(keys);
            writer.write(k);
            writes.incrementAndGet();
            if (random.nextInt(2000) == 0) {
              store.freezeLog();
            }
          }
        } finally {
          stop.set(true);
        }
      }));
      for (int r = 0; r < readers; r++) {
        long readerSeed = seed + 1 + r;
        threads.add(thread("reader-" + r, failures, () -> {
          Random random = new Random(readerSeed);
          Reader reader = new Reader(store, versions, keys);
          while (!stop.get()) {
            reader.check(random.nextInt(3) == 0 ? random.nextInt(16) : random.nextInt(keys));
          }
          values.addAndGet(reader.values);
          nulls.addAndGet(reader.nulls);
        }));
      }
      threads.forEach(Thread::start);
      joinAll(threads, 30);
      assertNoFailures(failures);

      SiltStats stats = store.stats();
      System.out.println("SiltConcurrencyTest.readers: " + writes.get() + " writes, " + values.get() + " values and "
          + nulls.get() + " nulls checked; " + stats);
      assertNull(store.mergeFailure(), () -> "a background merge failed: " + store.mergeFailure());
      assertTrue(stats.merges() > 0, "no background merge ran: " + stats);
      assertTrue(writes.get() > 3 * keys, "too few writes to fill log stores: " + writes.get());
      assertTrue(values.get() > 1000 && nulls.get() > 100, "readers checked too little: " + values.get() + " values, " + nulls.get() + " nulls");
      checkAgainstModel(store, keys, model, "after the run");
    }
    try (SiltStore reopened = SiltStore.open(dir, SMALL)) {
      checkAgainstModel(reopened, keys, model, "reopened");
    }
  }

  /** Writes of a round before its close: 20 rounds then make more than {@code 10 * keys}. */
  private static final int WRITES_BEFORE_CLOSE = 500;

  @Test
  void closeUnderLoadThrowsOnlyStoreClosedAndKeepsEveryReturnedWrite() throws Exception {
    long seed = 0x5117_C002L;
    System.out.println("SiltConcurrencyTest.close seed " + seed);
    Random random = new Random(seed);
    int keys = 800;
    int writers = 2;
    Path dir = temp.resolve("closing");
    Versions versions = new Versions(keys);
    long[] next = new long[keys];
    Map<Integer, Long> model = new ConcurrentHashMap<>();
    long totalWrites = 0;
    for (int round = 0; round < 20; round++) {
      String where = "round " + round;
      SiltStore store = SiltStore.open(dir, SMALL);
      checkAgainstModel(store, keys, model, where + ", reopened");
      ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
      AtomicLong writes = new AtomicLong();
      AtomicLong rejected = new AtomicLong();
      List<Thread> threads = new ArrayList<>();
      for (int w = 0; w < writers; w++) {
        int id = w;
        long writerSeed = random.nextLong();
        threads.add(thread(where + " writer-" + w, failures, () -> {
          Random r = new Random(writerSeed);
          Writer writer = new Writer(store, versions, next, model);
          try {
            for (;;) {
              writer.write(id + writers * r.nextInt(keys / writers));
              writes.incrementAndGet();
            }
          } catch (StoreClosedException expected) {
            rejected.incrementAndGet();
          }
        }));
      }
      for (int i = 0; i < 2; i++) {
        long readerSeed = random.nextLong();
        threads.add(thread(where + " reader-" + i, failures, () -> {
          Random r = new Random(readerSeed);
          Reader reader = new Reader(store, versions, keys);
          try {
            for (;;) {
              reader.check(r.nextInt(keys));
            }
          } catch (StoreClosedException expected) {
            rejected.incrementAndGet();
          }
        }));
      }
      long maintenanceSeed = random.nextLong();
      threads.add(thread(where + " maintenance", failures, () -> {
        Random r = new Random(maintenanceSeed);
        try {
          for (;;) {
            switch (r.nextInt(4)) {
              case 0 -> store.freezeLog();
              case 1 -> store.mergeNow();
              case 2 -> store.sync();
              default -> store.stats();
            }
            Thread.sleep(1);
          }
        } catch (StoreClosedException expected) {
          rejected.incrementAndGet();
        }
      }));
      // Two closers at once: closing twice does nothing, and neither throws.
      CountDownLatch go = new CountDownLatch(1);
      for (int c = 0; c < 2; c++) {
        threads.add(thread(where + " closer-" + c, failures, () -> {
          go.await();
          store.close();
        }));
      }
      int delayMillis = 10 + random.nextInt(120);
      threads.forEach(Thread::start);
      Thread.sleep(delayMillis);
      // The close must come under load on a slow machine too: a round's writes, not its time, count.
      long deadline = System.nanoTime() + 30_000_000_000L;
      while (writes.get() < WRITES_BEFORE_CLOSE && failures.isEmpty() && System.nanoTime() < deadline) {
        Thread.sleep(1);
      }
      go.countDown();
      joinAll(threads, 30);
      assertNoFailures(failures);
      assertEquals(writers + 3, rejected.get(), where + ": every worker ends on StoreClosedException");
      assertThrows(StoreClosedException.class, () -> store.get(key(0)));
      assertThrows(StoreClosedException.class, () -> store.put(key(0), value(0, 1)));
      assertNull(store.mergeFailure(), () -> where + ": a background merge failed: " + store.mergeFailure());
      totalWrites += writes.get();
    }
    try (SiltStore reopened = SiltStore.open(dir, SMALL)) {
      checkAgainstModel(reopened, keys, model, "after 20 rounds");
      SiltStats stats = reopened.stats();
      System.out.println("SiltConcurrencyTest.close: " + totalWrites + " writes in 20 rounds; " + stats);
      assertTrue(totalWrites > 10 * keys, "too few writes: " + totalWrites);
      assertTrue(stats.sortedRecords() > 0, "nothing was ever merged: " + stats);
    }
    SiltStoreModelTest.assertOnlyNamedFiles(dir);
  }

  @Test
  void concurrentMergeNowCallsAndBackgroundMergesMatchTheModel() throws Exception {
    long seed = 0x5117_C003L;
    System.out.println("SiltConcurrencyTest.mergeNow seed " + seed);
    int keys = 1200;
    Path dir = temp.resolve("merging");
    Versions versions = new Versions(keys);
    Map<Integer, Long> model = new HashMap<>();
    ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
    AtomicBoolean stop = new AtomicBoolean();
    AtomicLong mergeCalls = new AtomicLong();
    try (SiltStore store = SiltStore.open(dir, SMALL)) {
      Writer writer = new Writer(store, versions, new long[keys], model);
      List<Thread> threads = new ArrayList<>();
      threads.add(thread("writer", failures, () -> {
        Random random = new Random(seed);
        try {
          for (int i = 0; i < 40_000 && failures.isEmpty(); i++) {
            writer.write(random.nextInt(keys));
          }
        } finally {
          stop.set(true);
        }
      }));
      for (int m = 0; m < 2; m++) {
        long mergerSeed = seed + 10 + m;
        threads.add(thread("merger-" + m, failures, () -> {
          Random random = new Random(mergerSeed);
          while (!stop.get()) {
            if (random.nextInt(3) == 0) {
              store.freezeLog();
            }
            store.mergeNow();
            mergeCalls.incrementAndGet();
          }
        }));
      }
      threads.add(thread("reader", failures, () -> {
        Random random = new Random(seed + 20);
        Reader reader = new Reader(store, versions, keys);
        while (!stop.get()) {
          reader.check(random.nextInt(keys));
        }
      }));
      threads.forEach(Thread::start);
      joinAll(threads, 30);
      assertNoFailures(failures);
      assertNull(store.mergeFailure(), () -> "a background merge failed: " + store.mergeFailure());
      SiltStats stats = store.stats();
      System.out.println("SiltConcurrencyTest.mergeNow: " + mergeCalls.get() + " mergeNow calls; " + stats);
      assertTrue(mergeCalls.get() > 10 && stats.merges() > 10, "too few merges: " + mergeCalls.get() + " calls, " + stats);
      checkAgainstModel(store, keys, model, "after the run");
      store.freezeLog();
      store.mergeNow();
      checkAgainstModel(store, keys, model, "after a last merge");
      assertEquals(model.size(), store.stats().sortedRecords(), "every live key, once, in the sorted store: " + store.stats());
      assertEquals(0, store.stats().logEntries());
    }
    try (SiltStore reopened = SiltStore.open(dir, SMALL)) {
      checkAgainstModel(reopened, keys, model, "reopened");
    }
    SiltStoreModelTest.assertOnlyNamedFiles(dir);
    assertFalse(model.isEmpty());
  }
}
