package io.varve.silt;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.varve.core.testing.DelegatingChannel;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Conversions, and so writes, go on while a merge runs, until the hash stores for a second merge
 * wait; then writers wait for the merge. A merge is held still by making its reads of hash stores
 * wait.
 */
class SiltBackgroundWorkTest {
  private static final int PER_MERGE = 3;
  /** About a log store's worth of writes (0.95 × 64 entries). */
  private static final int LOG_STORE = 60;

  @TempDir Path temp;
  private final CountDownLatch mergeReading = new CountDownLatch(1);
  private final CountDownLatch mergeMayGoOn = new CountDownLatch(1);
  private final AtomicInteger mergeReadsAfterRelease = new AtomicInteger();
  private final ExecutorService writer = Executors.newSingleThreadExecutor();

  @AfterEach
  void cleanUp() {
    mergeMayGoOn.countDown();
    writer.shutdownNow();
    FileAccess.opener = FileChannel::open;
  }

  @Test
  void writesGoOnDuringAMergeUntilASecondMergeWaits() throws Exception {
    FileAccess.opener = this::mergeReadsWait;
    SiltOptions options = SiltOptions.builder().logStoreEntries(64).maxLogBytes(64 << 10).hashStoresPerMerge(PER_MERGE).build();
    Map<String, String> expected = new ConcurrentHashMap<>();
    try (SiltStore store = SiltStore.open(temp.resolve("store"), options)) {
      Future<?> stalled;
      try {
        int next = 0;
        while (!mergeReading.await(1, TimeUnit.MILLISECONDS)) {
          put(store, expected, next++);
          if (next > 100 * LOG_STORE) {
            fail("no merge started after " + next + " writes");
          }
        }
        int from = next;
        // Four log stores more: four conversions, hash stores still short of 2 × 3 + 2.
        Future<?> during = writer.submit(() -> putAll(store, expected, from, from + 4 * LOG_STORE));
        try {
          during.get(30, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
          fail("writes waited for the merge: " + store.stats());
        }
        awaitNoFrozenLogs(store);
        assertTrue(store.stats().hashStores() > PER_MERGE, "conversions went on during the merge: " + store.stats());

        // Ten more: the hash stores reach 2 × 3 + 2 and the writer waits, holding memory bounded.
        int from2 = from + 4 * LOG_STORE;
        stalled = writer.submit(() -> putAll(store, expected, from2, from2 + 10 * LOG_STORE));
        Thread.sleep(1000);
        assertFalse(stalled.isDone(), "writes outran a merge that cannot finish: " + store.stats());
        SiltStats waiting = store.stats();
        assertTrue(waiting.hashStores() <= BackgroundWork.maxHashStores(options) + BackgroundWork.MAX_FROZEN_LOGS + 1, waiting.toString());
        assertTrue(waiting.logStores() <= BackgroundWork.MAX_FROZEN_LOGS + 2, waiting.toString());
      } finally {
        mergeMayGoOn.countDown(); // before the store closes: close waits for the merge
      }
      stalled.get(60, TimeUnit.SECONDS);
      check(store, expected);
      store.freezeLog();
      store.mergeNow();
      check(store, expected);
    }
    try (SiltStore store = SiltStore.open(temp.resolve("store"), options)) {
      check(store, expected);
    }
  }

  /**
   * A close gives up the running merge (it rewrites the whole sorted store: minutes, at scale)
   * instead of waiting for it, and the next open merges the same hash stores.
   */
  @Test
  void closeGivesUpARunningMerge() throws Exception {
    FileAccess.opener = this::mergeReadsWait;
    SiltOptions options = SiltOptions.builder().logStoreEntries(64).maxLogBytes(64 << 10).hashStoresPerMerge(PER_MERGE).build();
    Path dir = temp.resolve("store");
    Map<String, String> expected = new ConcurrentHashMap<>();
    SiltStore store = SiltStore.open(dir, options);
    Thread closer = new Thread(store::close, "closer");
    try {
      for (int next = 0; !mergeReading.await(1, TimeUnit.MILLISECONDS); next++) {
        put(store, expected, next);
      }
      closer.start();
      while (closer.getState() != Thread.State.WAITING && closer.getState() != Thread.State.TIMED_WAITING) {
        Thread.sleep(1); // until close waits for the background threads, having told them to stop
      }
    } finally {
      mergeReadsAfterRelease.set(0);
      mergeMayGoOn.countDown();
    }
    closer.join(60_000);
    assertFalse(closer.isAlive(), "close returned");
    assertTrue(mergeReadsAfterRelease.get() == 0, mergeReadsAfterRelease.get() + " reads of hash stores by the merge after close began");
    SiltOptions byHand = options.toBuilder().backgroundMerges(false).build();
    try (SiltStore reopened = SiltStore.open(dir, byHand)) {
      assertTrue(reopened.stats().hashStores() >= PER_MERGE, "the hash stores stay: " + reopened.stats());
      assertEquals(0, reopened.stats().sortedRecords(), "the merge published nothing");
      check(reopened, expected);
      reopened.mergeNow();
      assertEquals(0, reopened.stats().hashStores());
      check(reopened, expected);
    }
    try (java.util.stream.Stream<Path> files = java.nio.file.Files.list(dir)) {
      assertEquals(1, files.filter(p -> p.getFileName().toString().startsWith("sorted-")).count(), "no sorted store left over");
    }
  }

  /**
   * A merge that keeps failing runs again after a growing delay, not at once in a loop that takes
   * a core and the disk from readers; once the cause is gone it succeeds and the failure clears.
   */
  @Test
  void aFailingMergeRunsAgainAfterAGrowingDelay() throws Exception {
    retriedAfterAGrowingDelay("varve-silt-merge", ".vhash");
  }

  /** The same for a conversion, which a damaged or unreadable frozen log fails. */
  @Test
  void aFailingConversionRunsAgainAfterAGrowingDelay() throws Exception {
    retriedAfterAGrowingDelay("varve-silt-convert", ".vlog");
  }

  /**
   * Work that failed in the background, then done by hand once its cause is gone: the failure is
   * no longer reported, and the retry delay it grew starts over.
   */
  @Test
  void aMergeByHandAfterBackgroundFailuresClearsThem() throws Exception {
    AtomicBoolean readsFail = new AtomicBoolean(true);
    failReadsOfWorkThread(readsFail, "varve-silt-merge", ".vhash", new AtomicInteger());
    SiltOptions options = SiltOptions.builder().logStoreEntries(64).maxLogBytes(64 << 10).hashStoresPerMerge(PER_MERGE).build();
    Map<String, String> expected = new ConcurrentHashMap<>();
    try (SiltStore store = SiltStore.open(temp.resolve("store"), options)) {
      writeUntilWorkFails(store, expected);
      Thread.sleep(1000); // a few more failures: the next retry waits 800 ms or more
      readsFail.set(false);
      store.mergeNow();
      assertEquals(null, store.mergeFailure(), "the failure of a merge that has since succeeded");
      check(store, expected);
    }
  }

  /**
   * Fails every read of a file named ...{@code fileSuffix} on a thread named {@code workThread}...
   * while {@code readsFail} holds, counting the failures in {@code attempts} (an attempt fails at
   * its first read).
   */
  private static void failReadsOfWorkThread(AtomicBoolean readsFail, String workThread, String fileSuffix, AtomicInteger attempts) {
    FileAccess.opener = (file, openOptions) -> {
      FileChannel channel = FileChannel.open(file, openOptions);
      if (!file.getFileName().toString().endsWith(fileSuffix)) {
        return channel;
      }
      return new DelegatingChannel(channel) {
        @Override
        public int read(ByteBuffer dst, long position) throws IOException {
          if (readsFail.get() && Thread.currentThread().getName().startsWith(workThread)) {
            attempts.incrementAndGet();
            throw new IOException("injected: " + file.getFileName() + " cannot be read");
          }
          return real.read(dst, position);
        }
      };
    };
  }

  /** Writes until background work fails; a write that would wait for the failed work is refused, as expected. */
  private static void writeUntilWorkFails(SiltStore store, Map<String, String> expected) {
    for (int next = 0; store.mergeFailure() == null; next++) {
      assertTrue(next < 100 * LOG_STORE, "no background work failed after " + next + " writes");
      try {
        put(store, expected, next);
      } catch (IOException e) {
        assertTrue(store.mergeFailure() != null, () -> "a write failed before the work did: " + e);
      }
    }
  }

  private void retriedAfterAGrowingDelay(String workThread, String fileSuffix) throws Exception {
    AtomicBoolean readsFail = new AtomicBoolean(true);
    AtomicInteger attempts = new AtomicInteger();
    failReadsOfWorkThread(readsFail, workThread, fileSuffix, attempts);
    SiltOptions options = SiltOptions.builder().logStoreEntries(64).maxLogBytes(64 << 10).hashStoresPerMerge(PER_MERGE).build();
    Map<String, String> expected = new ConcurrentHashMap<>();
    try (SiltStore store = SiltStore.open(temp.resolve("store"), options)) {
      writeUntilWorkFails(store, expected);
      Thread.sleep(1500);
      int inWindow = attempts.get();
      // Delays of 100, 200, 400 and 800 ms leave room for at most 5 attempts; at once, thousands.
      assertTrue(inWindow <= 6, inWindow + " attempts in 1.5 s: failed work ran again at once");
      assertTrue(inWindow >= 2, "failed work ran again: " + inWindow + " attempt(s)");
      check(store, expected);

      readsFail.set(false);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (store.mergeFailure() != null || store.stats().logStores() > 1 || store.stats().hashStores() >= PER_MERGE) {
        assertTrue(System.nanoTime() < deadline, "work never succeeded after its cause was gone: " + store.stats());
        Thread.sleep(10);
      }
      check(store, expected);
    }
    try (SiltStore store = SiltStore.open(temp.resolve("store"), options)) {
      check(store, expected);
    }
  }

  /** Hash stores whose reads on the merge thread wait until the test lets them go on. */
  private FileChannel mergeReadsWait(Path file, java.nio.file.OpenOption... options) throws IOException {
    FileChannel channel = FileChannel.open(file, options);
    if (!file.getFileName().toString().endsWith(".vhash")) {
      return channel;
    }
    return new DelegatingChannel(channel) {
      @Override
      public int read(ByteBuffer dst, long position) throws IOException {
        if (Thread.currentThread().getName().startsWith("varve-silt-merge")) {
          mergeReadsAfterRelease.incrementAndGet();
          mergeReading.countDown();
          try {
            mergeMayGoOn.await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        }
        return real.read(dst, position);
      }
    };
  }

  private static void awaitNoFrozenLogs(SiltStore store) throws InterruptedException {
    for (int i = 0; i < 3000 && store.stats().logStores() > 1; i++) {
      Thread.sleep(10);
    }
  }

  private static Void putAll(SiltStore store, Map<String, String> expected, int from, int to) throws IOException {
    for (int i = from; i < to; i++) {
      put(store, expected, i);
    }
    return null;
  }

  private static void put(SiltStore store, Map<String, String> expected, int i) throws IOException {
    String key = "key-" + i;
    String value = "value-" + i + "-".repeat(i % 97);
    store.put(bytes(key), bytes(value));
    expected.put(key, value);
  }

  private static void check(SiltStore store, Map<String, String> expected) {
    expected.forEach((k, v) -> assertArrayEquals(bytes(v), store.get(bytes(k)), k));
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /**
   * A store that asks for merges only after a huge number of hash stores (a way to say "never
   * merge") takes writes. Before, the bound at which writers wait, {@code 2H + 2}, overflowed an
   * int from {@code H = 2^30 - 1} on (0 or negative), and the first put waited forever.
   */
  @Test
  void aHugeHashStoresPerMergeDoesNotStopWrites() throws Exception {
    for (int perMerge : new int[] {Integer.MAX_VALUE, 1 << 30}) {
      SiltOptions options = SiltOptions.builder().logStoreEntries(64).maxLogBytes(64 << 10).hashStoresPerMerge(perMerge).build();
      try (SiltStore store = SiltStore.open(temp.resolve("never-merge-" + perMerge), options)) {
        Future<?> writes = writer.submit(() -> {
          for (int i = 0; i < 3 * LOG_STORE; i++) {
            store.put(bytes("k" + i), bytes("v" + i));
          }
          return null;
        });
        try {
          writes.get(30, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
          fail("hashStoresPerMerge " + perMerge + ": writes waited for a merge that never comes");
        }
        assertArrayEquals(bytes("v7"), store.get(bytes("k7")));
      }
    }
  }
}
