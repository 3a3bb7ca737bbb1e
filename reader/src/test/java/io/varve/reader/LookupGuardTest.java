package io.varve.reader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** The guard that close waits on: exact under contention, and what it refuses after close. */
class LookupGuardTest {

  /**
   * Threads (more than slots, so that slots are shared) enter and exit in a loop, marking
   * themselves inside in between; a closer closes at random moments. When close returns, no
   * thread may be inside. Rounds: {@code -Dvarve.closeRace.rounds} (default 300).
   */
  @Test
  void closeReturnsOnlyWhenNoLookupIsInside() throws Exception {
    long seed = 0x6A4D;
    int rounds = Integer.getInteger("varve.closeRace.rounds", 300);
    System.out.println("LookupGuardTest seed " + Long.toHexString(seed) + ", " + rounds + " rounds");
    SplittableRandom random = new SplittableRandom(seed);
    int threads = 12;
    int spreadRounds = 0;
    int grownRounds = 0;
    for (int round = 0; round < rounds; round++) {
      LookupGuard guard = new LookupGuard("round " + round, 1); // 8 stripes for 12 threads, once spread
      AtomicIntegerArray inside = new AtomicIntegerArray(threads);
      AtomicReference<Throwable> failure = new AtomicReference<>();
      CountDownLatch started = new CountDownLatch(threads);
      List<Thread> workers = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int me = t;
        int work = 1 + random.nextInt(200);
        Thread worker =
            new Thread(
                () -> {
                  started.countDown();
                  long sink = 0;
                  while (true) {
                    int slot = guard.slot();
                    try {
                      guard.enter(slot);
                    } catch (StoreClosedException closed) {
                      guard.exit(slot);
                      break;
                    }
                    inside.set(me, 1);
                    for (int i = 0; i < work; i++) {
                      sink += i * (long) me;
                    }
                    inside.set(me, 0);
                    guard.exit(slot);
                  }
                  if (sink == 42) {
                    failure.set(new AssertionError("unreachable; keeps the loop"));
                  }
                });
        worker.start();
        workers.add(worker);
      }
      started.await();
      for (int spin = random.nextInt(20_000); spin > 0; spin--) {
        Thread.onSpinWait();
      }
      assertTrue(guard.close());
      for (int t = 0; t < threads; t++) {
        assertEquals(0, inside.get(t), "round " + round + ": close returned while thread " + t + " was inside");
      }
      for (Thread worker : workers) {
        worker.join();
      }
      if (failure.get() != null) {
        throw new AssertionError(failure.get());
      }
      assertEquals(0, guard.inFlight(), "round " + round + ": every slot back to zero");
      spreadRounds += guard.isSpread() ? 1 : 0;
      grownRounds += guard.stripeSlots() > 2 ? 1 : 0;
    }
    // The kinds of close race are covered: with one counter, across the spread, across growth.
    System.out.println("LookupGuardTest: " + spreadRounds + " of " + rounds + " guards spread before their close, "
        + grownRounds + " grew past two stripes");
  }

  @Test
  void closeWaitsForALongLookupAndRefusesNewOnes() throws Exception {
    LookupGuard guard = new LookupGuard("store-x");
    int slot = guard.slot();
    guard.enter(slot);
    CountDownLatch closing = new CountDownLatch(1);
    Thread closer =
        new Thread(
            () -> {
              closing.countDown();
              guard.close();
            });
    closer.start();
    closing.await();
    while (!guard.isClosed()) {
      Thread.onSpinWait();
    }
    int late = guard.slot();
    StoreClosedException refused = assertThrows(StoreClosedException.class, () -> guard.enter(late));
    guard.exit(late);
    assertEquals("store store-x is closed", refused.getMessage());
    assertThrows(StoreClosedException.class, guard::checkOpen);
    Thread.sleep(20);
    assertTrue(closer.isAlive(), "close waits while a lookup is inside");
    assertEquals(1, guard.inFlight());
    guard.exit(slot);
    closer.join(10_000);
    assertFalse(closer.isAlive(), "close returns once the lookup left");
    assertFalse(guard.close(), "a second close does nothing");
  }

  /**
   * Regression: a lookup that was refused, or that the JVM interrupted with an error right after
   * it was counted (a truncated mapping's fault of an earlier read, delivered at the thread's next
   * check), left its count up, and close waited forever (seen as a hung test run after
   * TruncatedUnderReaderTest). Now the count comes first inside the try, and the exit in its
   * finally always balances it.
   */
  @Test
  void anErrorRightAfterTheCountIsBalancedByTheExit() throws Exception {
    LookupGuard guard = new LookupGuard("faulting");
    for (int i = 0; i < 1000; i++) {
      int slot = guard.slot();
      try {
        guard.enter(slot);
        throw new InternalError("a fault in an unsafe memory access operation");
      } catch (InternalError expected) {
        // what the JVM delivers at the next check
      } finally {
        guard.exit(slot);
      }
    }
    guard.fail(new IllegalStateException("failed"));
    for (int i = 0; i < 1000; i++) {
      int slot = guard.slot();
      try {
        guard.enter(slot);
      } catch (RuntimeException refused) {
        // refused: counted all the same, and exited
      } finally {
        guard.exit(slot);
      }
    }
    assertEquals(0, guard.inFlight());
    Thread closer = new Thread(guard::close);
    closer.start();
    closer.join(10_000);
    assertFalse(closer.isAlive(), "close returned");
  }

  /**
   * A guard that spreads while a lookup counted in its one counter is in flight: close waits for
   * that lookup (counted before) and for one counted in the stripes (after), each exiting where it
   * entered.
   */
  @Test
  void closeWaitsForLookupsCountedBeforeAndAfterTheGuardSpread() throws Exception {
    LookupGuard guard = new LookupGuard("spreading", 2);
    int before = guard.slot();
    assertEquals(LookupGuard.BASE, before, "one counter until two lookups collide");
    guard.enter(before);
    assertEquals(Long.BYTES, guard.ramBytesUsed());
    guard.spread();
    int after = guard.slot();
    assertTrue(after >= 0, "a stripe once spread");
    guard.enter(after);
    assertEquals(2, guard.inFlight());
    assertEquals(Long.BYTES + 3 * 128, guard.ramBytesUsed(), "2 stripes of 128 bytes and their padding, until lookups collide on one");
    Thread closer = new Thread(guard::close);
    closer.start();
    while (!guard.isClosed()) {
      Thread.onSpinWait();
    }
    guard.exit(before);
    closer.join(50);
    assertTrue(closer.isAlive(), "close waits for the lookup counted in the stripes");
    guard.exit(after);
    closer.join(10_000);
    assertFalse(closer.isAlive(), "close returns once both left");
    assertEquals(0, guard.inFlight());
  }

  /**
   * Two threads looking up at once collide on the one counter and spread the guard (at most
   * {@value #COLLISION_LOOKUPS} lookups each; a collision takes a few thousand on two cores), and
   * their counts stay exact across it.
   */
  @Test
  void lookupsOfTwoThreadsAtOnceSpreadTheGuard() throws Exception {
    LookupGuard guard = new LookupGuard("contended", 2);
    CountDownLatch started = new CountDownLatch(2);
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < 2; t++) {
      Thread thread =
          new Thread(
              () -> {
                started.countDown();
                for (int i = 0; i < COLLISION_LOOKUPS && !guard.isSpread(); i++) {
                  int slot = guard.slot();
                  try {
                    guard.enter(slot);
                  } finally {
                    guard.exit(slot);
                  }
                }
              });
      thread.start();
      threads.add(thread);
    }
    for (Thread thread : threads) {
      thread.join();
    }
    assertTrue(guard.isSpread(), "no collision in " + COLLISION_LOOKUPS + " lookups of each thread");
    assertEquals(0, guard.inFlight());
    assertTrue(guard.close());
  }

  private static final int COLLISION_LOOKUPS = 50_000_000;

  /**
   * Two threads reading at once took the full stripes, eight per processor (64 KiB on 64): now the
   * guard holds the stripes that separate their thread ids (two slots for ids that differ in the
   * lowest bit), doubling only while they still collide.
   */
  @Test
  void twoThreadsAtOnceTakeTheStripesThatSeparateThem() throws Exception {
    LookupGuard guard = new LookupGuard("two readers", 64); // at most 512 slots
    long[] ids = hammer(guard, 2, () -> true, COLLISION_LOOKUPS);
    int separating = 2;
    while (((ids[0] ^ ids[1]) & (separating - 1)) == 0) {
      separating *= 2;
    }
    long bound = stripesBytes(separating);
    System.out.println("LookupGuardTest: threads " + ids[0] + " and " + ids[1] + " took " + guard.stripeSlots()
        + " stripes, " + guard.ramBytesUsed() + " bytes (bound " + bound + ")");
    assertTrue(guard.isSpread(), "no collision");
    assertTrue(guard.stripeSlots() <= separating, guard.stripeSlots() + " stripes for two threads");
    assertTrue(guard.ramBytesUsed() <= bound, guard.ramBytesUsed() + " bytes of counts for two threads");
    assertEquals(0, guard.inFlight());
    assertTrue(guard.close());
  }

  /**
   * Twelve threads over stripes of at most eight slots keep colliding: the stripes double up to
   * eight and no further, and the counts stay exact across every growth.
   */
  @Test
  void collisionsGrowTheStripesUpToEightPerProcessor() throws Exception {
    LookupGuard guard = new LookupGuard("twelve readers", 1); // at most 8 slots
    hammer(guard, 12, () -> guard.stripeSlots() == 8, COLLISION_LOOKUPS);
    assertEquals(8, guard.stripeSlots(), "stripes after collisions of 12 threads");
    assertEquals(stripesBytes(8), guard.ramBytesUsed());
    assertEquals(0, guard.inFlight());
    assertTrue(guard.close());
  }

  /** The bytes of counts of a guard whose stripes grew to {@code slots}: 2, 4, ..., slots, each padded by a slot. */
  static long stripesBytes(int slots) {
    long bytes = Long.BYTES;
    for (int level = 2; level <= slots; level *= 2) {
      bytes += 128L * (level + 1);
    }
    return bytes;
  }

  /**
   * {@code threads} threads enter and exit {@code guard} until it spread and {@code done} says so
   * (at most {@code lookups} each), then {@value #AFTER_SPREAD} more each; returns their ids.
   * Package-private: {@link StoreGuardMemoryTest} reads a store so.
   */
  static long[] hammer(LookupGuard guard, int threads, java.util.function.BooleanSupplier done, int lookups)
      throws InterruptedException {
    CountDownLatch started = new CountDownLatch(threads);
    List<Thread> workers = new ArrayList<>();
    long[] ids = new long[threads];
    for (int t = 0; t < threads; t++) {
      Thread worker =
          new Thread(
              () -> {
                started.countDown();
                try {
                  started.await();
                } catch (InterruptedException e) {
                  return;
                }
                int after = 0;
                for (int i = 0; i < lookups && after < AFTER_SPREAD; i++) {
                  int slot = guard.slot();
                  try {
                    guard.enter(slot);
                  } finally {
                    guard.exit(slot);
                  }
                  if (guard.isSpread() && done.getAsBoolean()) {
                    after++;
                  }
                }
              });
      ids[t] = worker.getId();
      worker.start();
      workers.add(worker);
    }
    for (Thread worker : workers) {
      worker.join();
    }
    return ids;
  }

  private static final int AFTER_SPREAD = 1_000_000;

  @Test
  void nestedLookupsOfOneThreadCount() {
    LookupGuard guard = new LookupGuard("nested");
    int outer = guard.slot();
    guard.enter(outer);
    int inner = guard.slot();
    guard.enter(inner);
    assertEquals(2, guard.inFlight());
    guard.exit(inner);
    guard.exit(outer);
    assertEquals(0, guard.inFlight());
    assertTrue(guard.close());
  }
}
