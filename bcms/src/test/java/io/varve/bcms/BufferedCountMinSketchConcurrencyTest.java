package io.varve.bcms;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Estimates from several threads run beside updates and close without losing counts or crashing. */
class BufferedCountMinSketchConcurrencyTest {
  @TempDir Path dir;

  private static final int ITEMS = 5_000;

  @Test
  void concurrentEstimatesNeverFallBelowCountsMadeBeforeThem() throws Exception {
    long seed = 2026;
    System.out.println("seed " + seed);
    long[] truth = new long[ITEMS];
    SketchParameters parameters = SketchParameters.ofDimensions(40_000, 4).withSeed(seed);
    try (BufferedCountMinSketch sketch = BufferedCountMinSketch.create(dir.resolve("c.sketch"), parameters, 16 * 1024)) {
      SplittableRandom random = new SplittableRandom(seed);
      for (int i = 0; i < 50_000; i++) {
        int item = random.nextInt(ITEMS);
        sketch.update(item);
        truth[item]++;
      }
      long[] before = truth.clone();
      ExecutorService pool = Executors.newFixedThreadPool(4);
      try {
        List<Future<Integer>> readers = new ArrayList<>();
        for (int t = 0; t < 3; t++) {
          int offset = t;
          readers.add(pool.submit(() -> {
            int checked = 0;
            for (int round = 0; round < 4; round++) {
              for (int item = offset; item < ITEMS; item += 3) {
                long estimate = sketch.estimate(item);
                assertTrue(estimate >= before[item], "item " + item + ": " + estimate + " < " + before[item]);
                checked++;
              }
            }
            return checked;
          }));
        }
        Future<?> writer = pool.submit(() -> {
          SplittableRandom writes = new SplittableRandom(seed + 1);
          for (int i = 0; i < 50_000; i++) {
            int item = writes.nextInt(ITEMS);
            sketch.update(item);
            truth[item]++;
          }
        });
        for (Future<Integer> reader : readers) {
          assertEquals(4 * ((ITEMS + 2) / 3), reader.get(), 4 * ITEMS);
        }
        writer.get();
      } finally {
        pool.shutdown();
      }
      for (int item = 0; item < ITEMS; item++) {
        assertTrue(sketch.estimate(item) >= truth[item], "item " + item + " after all updates");
      }
      assertEquals(100_000, sketch.totalWeight());
    }
  }

  @Test
  void closeWhileOtherThreadsEstimateEndsThemWithIllegalStateException() throws Exception {
    SketchParameters parameters = SketchParameters.ofDimensions(40_000, 4);
    BufferedCountMinSketch sketch = BufferedCountMinSketch.create(dir.resolve("close.sketch"), parameters, 16 * 1024);
    for (int i = 0; i < 10_000; i++) {
      sketch.update(i % ITEMS);
    }
    AtomicBoolean started = new AtomicBoolean();
    ExecutorService pool = Executors.newFixedThreadPool(3);
    try {
      List<Future<String>> readers = new ArrayList<>();
      for (int t = 0; t < 3; t++) {
        readers.add(pool.submit(() -> {
          try {
            for (long i = 0; ; i++) {
              started.set(true);
              assertTrue(sketch.estimate(i % ITEMS) >= 2);
            }
          } catch (IllegalStateException e) {
            return e.getMessage();
          }
        }));
      }
      while (!started.get()) {
        Thread.onSpinWait();
      }
      Thread.sleep(20);
      sketch.close();
      for (Future<String> reader : readers) {
        assertTrue(reader.get().contains("is closed"), reader.get());
      }
    } finally {
      pool.shutdown();
    }
    try (BufferedCountMinSketch reopened = BufferedCountMinSketch.open(dir.resolve("close.sketch"), 0)) {
      assertEquals(10_000, reopened.totalWeight());
    }
  }
}
