package io.varve.bcms;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.core.testing.ChildJvm;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A file sketch closed while another thread merges into it, merges it into another sketch, flushes
 * it or closes it too (which its contract forbids, and which a server's shutdown does anyway): the
 * other call must fail with {@link IllegalStateException} or finish first, never touch the released
 * mapping, which crashed the JVM (SIGSEGV in CountMinSketch.merge). Each case runs in a child JVM,
 * so that a crash fails the test instead of ending the test run.
 */
class CloseDuringMergeTest {
  @TempDir Path temp;

  @ParameterizedTest
  @ValueSource(strings = {"merge-into", "merge-from", "flush", "close"})
  void aCallRacingACloseFailsCleanlyOrFinishes(String call) throws Exception {
    ChildJvm.Result result = ChildJvm.run("256m", Child.class, temp.toString(), call);
    assertEquals(0, result.exitCode(), call + ": the child JVM: " + result.output());
    assertTrue(result.output().contains("done"), call + ": " + result.output());
  }

  /** args: a directory and the call racing close. Prints "done" after its rounds. */
  public static final class Child {
    public static void main(String[] args) throws Exception {
      Path dir = Path.of(args[0]);
      String call = args[1];
      // Small, so that the rounds are quick: with 2^20 x 4 counters a merge of a round before the JIT
      // compiled it outlasted a second on a loaded machine, when close gave up after a second
      // (CallGateTest has that case now). The racer merges in a loop, so close still lands inside
      // a merge.
      SketchParameters parameters = SketchParameters.ofDimensions(1 << 16, 4);
      try (CountMinSketch memory = CountMinSketch.inMemory(parameters)) {
        for (long i = 0; i < 100_000; i++) {
          memory.update(i, 1);
        }
        for (int round = 0; round < 20; round++) {
          CountMinSketch sketch = CountMinSketch.create(dir.resolve("sketch-" + round), parameters);
          sketch.update(round, 1);
          CountDownLatch started = new CountDownLatch(1);
          Throwable[] failure = new Throwable[1];
          Thread racer = new Thread(() -> {
            started.countDown();
            try {
              for (int i = 0; i < 1_000; i++) {
                switch (call) {
                  case "merge-into" -> sketch.merge(memory);
                  case "merge-from" -> memory.merge(sketch);
                  case "flush" -> {
                    sketch.update(i, 1);
                    sketch.flush();
                  }
                  case "close" -> sketch.close();
                  default -> throw new IllegalArgumentException(call);
                }
              }
            } catch (IllegalStateException closed) {
              // refused: the sketch was closed
            } catch (Throwable e) {
              failure[0] = e;
            }
          });
          racer.start();
          started.await();
          Thread.sleep(1 + round % 5);
          sketch.close();
          racer.join();
          if (failure[0] != null) {
            System.out.println("round " + round + ": " + call + " failed with " + failure[0]);
            failure[0].printStackTrace(System.out);
            System.exit(1);
          }
          try (CountMinSketch reopened = CountMinSketch.open(dir.resolve("sketch-" + round))) {
            if (reopened.estimate(round) < 1) {
              System.out.println("round " + round + ": an update before the close was lost");
              System.exit(1);
            }
          }
        }
      }
      System.out.println("done");
    }
  }
}
