package io.varve.bcms;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.io.TempDir;

/**
 * A file sketch closed while other threads still estimate (which its contract forbids, and which
 * a busy server's shutdown does anyway), one at a time or in batches: the estimates must fail with {@link
 * IllegalStateException}, never touch the released mapping, which crashed the JVM.
 */
class CloseUnderLoadTest {
  @TempDir Path temp;

  @RepeatedTest(20)
  void estimatesRacingACloseFailCleanly() throws Exception {
    CountMinSketch sketch = CountMinSketch.create(temp.resolve("sketch-" + System.nanoTime()), SketchParameters.ofDimensions(1 << 20, 4));
    for (long i = 0; i < 10_000; i++) {
      sketch.update(i, 1);
    }
    int readers = 3;
    CountDownLatch running = new CountDownLatch(readers);
    AtomicInteger refused = new AtomicInteger();
    AtomicReference<Throwable> unexpected = new AtomicReference<>();
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < readers; t++) {
      boolean batches = t == 0; // estimateAll: guarded runs of 64 items, 16 per call here
      Thread thread = new Thread(() -> {
        running.countDown();
        long sum = 0;
        long[] items = new long[1000];
        long[] estimates = new long[items.length];
        for (long i = 0; ; i++) {
          try {
            if (batches) {
              for (int k = 0; k < items.length; k++) {
                items[k] = (i * items.length + k) & 0xFFFF;
              }
              sketch.estimateAll(items, estimates);
              sum += estimates[0];
            } else {
              sum += sketch.estimate(i & 0xFFFF);
            }
          } catch (IllegalStateException closed) {
            refused.incrementAndGet();
            return;
          } catch (Throwable other) {
            unexpected.compareAndSet(null, other);
            return;
          }
        }
      });
      threads.add(thread);
      thread.start();
    }
    running.await();
    Thread.sleep(5);
    sketch.close();
    for (Thread thread : threads) {
      thread.join(10_000);
    }
    assertTrue(unexpected.get() == null, "an estimate racing close failed with " + unexpected.get());
    assertTrue(refused.get() == readers, refused + " of " + readers + " readers were refused");
  }
}
