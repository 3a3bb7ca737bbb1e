package io.varve.bcms;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import io.varve.core.testing.InterruptedReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An interrupted thread's update, estimate, flush or close neither fails nor breaks a file sketch
 * for the others (a {@code FileChannel} closes itself when a thread blocked in it, or entering it,
 * is interrupted), and its interrupt stays set for it. Before, one interrupted estimate closed the
 * buffered sketch's file for every thread, and an interrupted flush or close of either sketch left
 * a file that refused to open.
 */
class SketchInterruptTest {
  private static final SketchParameters PARAMETERS = SketchParameters.ofDimensions(100_000, 4);
  private static final int ITEMS = 5_000;

  @TempDir Path temp;

  /** Counts items {@code 0..ITEMS-1} with weight 2, then, interrupted, estimates, counts again, flushes and closes. */
  private static void countInterrupted(FrequencySketch sketch) {
    for (long i = 0; i < ITEMS; i++) {
      sketch.update(i, 2);
    }
    sketch.flush();
    Thread.currentThread().interrupt();
    try {
      for (long i = 0; i < ITEMS; i += 37) {
        assertTrue(sketch.estimate(i) >= 2, "item " + i);
      }
      for (long i = 0; i < ITEMS; i++) {
        sketch.update(i, 1);
      }
      sketch.flush();
      sketch.update(-1L, 5);
      sketch.close();
      assertTrue(Thread.currentThread().isInterrupted(), "the interrupt stays set");
    } finally {
      Thread.interrupted();
    }
  }

  private static void checkReopened(FrequencySketch reopened) {
    try (reopened) {
      for (long i = 0; i < ITEMS; i++) {
        assertTrue(reopened.estimate(i) >= 3, "item " + i);
      }
      assertTrue(reopened.estimate(-1L) >= 5);
      assertEquals(3L * ITEMS + 5, reopened.totalWeight());
    }
  }

  @Test
  void aBufferedSketchServesAnInterruptedThread() {
    Path file = temp.resolve("buffered.cms");
    countInterrupted(BufferedCountMinSketch.create(file, PARAMETERS, 1 << 16));
    checkReopened(BufferedCountMinSketch.open(file, 1 << 16));
  }

  @Test
  void aPlainFileSketchServesAnInterruptedThread() {
    Path file = temp.resolve("plain.cms");
    countInterrupted(CountMinSketch.create(file, PARAMETERS));
    checkReopened(CountMinSketch.open(file));
  }

  @Test
  void aPlainFileSketchOpensOnAnInterruptedThread() {
    Path file = temp.resolve("opened.cms");
    CountMinSketch.create(file, PARAMETERS).close();
    Thread.currentThread().interrupt();
    try (CountMinSketch sketch = CountMinSketch.open(file)) {
      sketch.update(7L, 1);
      assertEquals(1, sketch.estimate(7L));
    } finally {
      assertTrue(Thread.interrupted(), "the interrupt stays set");
    }
  }

  @Test
  void interruptsOfOneReaderDoNotFailTheOthers() throws Exception {
    try (BufferedCountMinSketch sketch = BufferedCountMinSketch.create(temp.resolve("shared.cms"), PARAMETERS, 1 << 16)) {
      for (long i = 0; i < ITEMS; i++) {
        sketch.update(i, 2);
      }
      sketch.flush();
      int rounds =
          InterruptedReader.race(
              () -> {
                for (long i = 0; i < ITEMS; i += 7) {
                  if (sketch.estimate(i) < 2) {
                    throw new AssertionError("item " + i);
                  }
                }
              },
              round -> {
                long i = round % ITEMS;
                assertTrue(sketch.estimate(i) >= 2);
                sketch.update(ITEMS + i, 1);
              });
      assertTrue(rounds > 100, "rounds: " + rounds);
    }
  }

  /**
   * A channel that an interrupt closed takes the process's lock on the file with it (POSIX drops a
   * process's locks on a file when any of its descriptors of it closes): the reopened file must be
   * locked again, or another process could open the sketch and write over its pages.
   */
  @Test
  void aSketchReopenedAfterAnInterruptKeepsOtherProcessesOut() throws Exception {
    java.util.List<java.nio.channels.FileChannel> opened = new java.util.concurrent.CopyOnWriteArrayList<>();
    SketchFileHandle.opener = (file, options) -> {
      java.nio.channels.FileChannel channel = java.nio.channels.FileChannel.open(file, options);
      opened.add(channel);
      return channel;
    };
    Path file = temp.resolve("locked.cms");
    try (BufferedCountMinSketch sketch = BufferedCountMinSketch.create(file, PARAMETERS, 1 << 16)) {
      sketch.update(1L, 3);
      sketch.flush();
      opened.get(0).close(); // as an interrupt of a thread blocked in it would
      assertTrue(sketch.estimate(1L) >= 3, "the file reopened");
      assertEquals(2, opened.size());
      assertTrue(otherProcessOpens(file).startsWith("IllegalStateException"), "another process opened the sketch");
    } finally {
      SketchFileHandle.opener = java.nio.channels.FileChannel::open;
    }
    assertEquals("opened", otherProcessOpens(file));
  }

  private static String otherProcessOpens(Path file) throws Exception {
    Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-cp", System.getProperty("java.class.path"), SketchOpenChild.class.getName(), file.toString())
        .redirectErrorStream(true).start();
    String output = new String(child.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).trim();
    assertEquals(0, child.waitFor(), output);
    String[] lines = output.split("\\R");
    return lines[lines.length - 1];
  }
}
