package io.varve.bcms;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/** {@link CallGate}: how long a close waits for a call inside the mapping, and what it refuses after. */
class CallGateTest {
  /**
   * A call that stays inside for 1.5 s, as a merge of a large sketch into a new file's mapping did
   * on a loaded machine (CloseDuringMergeTest, merge-into): the close waits for it. It gave up
   * after a second before, and the sketch's file was left unflushed.
   */
  @Test
  void aCloseWaitsForALongCall() throws InterruptedException {
    CallGate gate = new CallGate("test sketch");
    gate.enter();
    Thread call = new Thread(() -> {
      try {
        Thread.sleep(1_500);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      gate.exit();
    });
    call.start();
    assertTrue(gate.closeAndDrain(), "the close waited for the call");
    call.join();
    IllegalStateException refused = assertThrows(IllegalStateException.class, gate::enter);
    assertEquals("test sketch is closed", refused.getMessage());
  }

  @Test
  void aCallThatNeverEndsMakesTheCloseGiveUp() {
    CallGate gate = new CallGate("test sketch", 50_000_000L);
    gate.enter();
    assertFalse(gate.closeAndDrain(), "the close gave up: the mapping must not be released");
    assertThrows(IllegalStateException.class, gate::enter);
  }

  @Test
  void anInterruptedCloseGivesUpAndKeepsTheInterrupt() throws InterruptedException {
    CallGate gate = new CallGate("test sketch");
    gate.enter();
    boolean[] drained = {true};
    boolean[] interrupted = {false};
    CountDownLatch closing = new CountDownLatch(1);
    Thread closer = new Thread(() -> {
      closing.countDown();
      drained[0] = gate.closeAndDrain();
      interrupted[0] = Thread.currentThread().isInterrupted();
    });
    closer.start();
    closing.await();
    closer.interrupt();
    closer.join();
    assertFalse(drained[0]);
    assertTrue(interrupted[0]);
  }
}
