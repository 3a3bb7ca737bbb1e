package io.varve.silt;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import io.varve.core.testing.InterruptedReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An interrupted thread's read or write neither fails nor breaks the store for the others (a
 * {@code FileChannel} closes itself when a thread blocked in it is interrupted), and its interrupt
 * stays set for it.
 */
class SiltInterruptTest {
  @TempDir Path temp;

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static SiltStore filled(Path dir) throws IOException {
    SiltStore store = SiltStore.open(dir, SiltStoreModelTest.SMALL);
    for (int i = 0; i < 200; i++) {
      store.put(bytes("k" + i), bytes("v" + i));
      if (i == 100) {
        store.freezeLog();
        store.convertNow();
      }
    }
    return store;
  }

  @Test
  void anInterruptedThreadReadsAndWritesAndKeepsItsInterrupt() throws IOException {
    try (SiltStore store = filled(temp.resolve("one"))) {
      Thread.currentThread().interrupt();
      try {
        assertArrayEquals(bytes("v5"), store.get(bytes("k5")), "from a hash store");
        assertArrayEquals(bytes("v150"), store.get(bytes("k150")), "from the log store");
        store.put(bytes("k150"), bytes("new"));
        store.sync();
        assertTrue(Thread.currentThread().isInterrupted(), "the interrupt stays set");
      } finally {
        Thread.interrupted();
      }
      assertArrayEquals(bytes("new"), store.get(bytes("k150")));
      assertArrayEquals(bytes("v5"), store.get(bytes("k5")));
    }
  }

  @Test
  void interruptsOfOneReaderDoNotFailTheOthers() throws Exception {
    try (SiltStore store = filled(temp.resolve("many"))) {
      int rounds =
          InterruptedReader.race(
              () -> {
                for (int i = 0; i < 200; i += 7) {
                  if (!new String(store.get(bytes("k" + i)), StandardCharsets.UTF_8).startsWith("v")) {
                    throw new AssertionError("k" + i);
                  }
                }
              },
              round -> {
                int i = round % 200;
                assertArrayEquals(bytes("v" + i), store.get(bytes("k" + i)));
                store.put(bytes("other-" + i), bytes("x"));
              });
      assertTrue(rounds > 100, "rounds: " + rounds);
    }
  }

  /**
   * Freezing a log store on an interrupted thread, by hand or by a put that fills it: the freeze
   * publishes a manifest, whose temporary file was written through a plain channel that the
   * interrupt closed, and the failed freeze made the store refuse every later write.
   */
  @Test
  void anInterruptedThreadFreezesLogStores() throws IOException {
    try (SiltStore store = filled(temp.resolve("freeze"))) {
      Thread.currentThread().interrupt();
      try {
        store.freezeLog();
        for (int i = 0; i < 300; i++) { // log stores of 64 entries: puts that freeze
          store.put(bytes("n" + i), bytes("w" + i));
        }
        store.sync();
        assertTrue(Thread.currentThread().isInterrupted(), "the interrupt stays set");
      } finally {
        Thread.interrupted();
      }
      store.convertNow();
      store.mergeNow();
      for (int i = 0; i < 200; i++) {
        assertArrayEquals(bytes("v" + i), store.get(bytes("k" + i)), "k" + i);
      }
      for (int i = 0; i < 300; i++) {
        assertArrayEquals(bytes("w" + i), store.get(bytes("n" + i)), "n" + i);
      }
    }
  }

  @Test
  void aStoreOpensOnAnInterruptedThread() throws IOException {
    Path dir = temp.resolve("open");
    filled(dir).close();
    Thread.currentThread().interrupt();
    try (SiltStore store = SiltStore.open(dir, SiltStoreModelTest.SMALL)) {
      assertTrue(Thread.currentThread().isInterrupted(), "the interrupt stays set");
      assertArrayEquals(bytes("v5"), store.get(bytes("k5")));
      assertArrayEquals(bytes("v150"), store.get(bytes("k150")));
    } finally {
      Thread.interrupted();
    }
  }

  @Test
  void anInterruptedThreadReadsTheSortedStore() throws IOException {
    try (SiltStore store = filled(temp.resolve("sorted"))) {
      store.mergeNow();
      Thread.currentThread().interrupt();
      try {
        assertArrayEquals(bytes("v5"), store.get(bytes("k5")), "from the sorted store");
        assertTrue(Thread.currentThread().isInterrupted(), "the interrupt stays set");
      } finally {
        Thread.interrupted();
      }
      assertArrayEquals(bytes("v6"), store.get(bytes("k6")));
    }
  }

  /**
   * convertNow and mergeNow on an interrupted thread: they wrote their new hash store or sorted
   * store through plain channels, which the interrupt closed at the first write, and failed with
   * ClosedByInterruptException, where every other call of the store works on such a thread.
   */
  @Test
  void anInterruptedThreadConvertsAndMerges() throws IOException {
    try (SiltStore store = filled(temp.resolve("work"))) {
      store.freezeLog();
      Thread.currentThread().interrupt();
      try {
        store.convertNow();
        assertTrue(Thread.currentThread().isInterrupted(), "the interrupt stays set");
        assertEquals(1, store.stats().logStores(), "converted: only the log taking writes is left");
        store.put(bytes("k7"), bytes("newer"));
        store.freezeLog();
        store.mergeNow();
        assertTrue(Thread.currentThread().isInterrupted(), "the interrupt stays set");
        assertEquals(0, store.stats().hashStores(), "merged");
      } finally {
        Thread.interrupted();
      }
      assertArrayEquals(bytes("newer"), store.get(bytes("k7")));
      for (int i = 0; i < 200; i++) {
        if (i != 7) {
          assertArrayEquals(bytes("v" + i), store.get(bytes("k" + i)), "k" + i);
        }
      }
    }
  }
}
