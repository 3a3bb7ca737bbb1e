package io.varve.bcms;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.core.format.CorruptStoreException;
import io.varve.core.testing.FailingChannel;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A page write or {@code fsync} of a sketch's file that fails (a full disk, a failing device)
 * makes the sketch take no more changes: what the file holds is uncertain, so it must stay marked
 * open, for {@code openAfterCrash}, rather than be marked closed with a checksum of counts it may
 * not hold. Estimates go on, counting every update before the failure. Before, a failed page write
 * lost that page's buffered updates (estimates fell below the truth), the sketch went on, and
 * close marked the file closed with a checksum its body did not match: open and openAfterCrash
 * both refused it, and the whole sketch was lost.
 */
class SketchWriteFailureTest {
  private static final SketchParameters PARAMETERS = SketchParameters.ofDimensions(100_000, 4);
  private static final int ITEMS = 500;
  private static final long BUDGET = 1 << 15;

  @TempDir Path temp;

  private static AutoCloseable failing() {
    FailingChannel.disarm();
    SketchFileHandle.opener = (file, options) -> FailingChannel.wrap(FileChannel.open(file, options));
    return () -> {
      FailingChannel.disarm();
      SketchFileHandle.opener = FileChannel::open;
    };
  }

  @ParameterizedTest
  @CsvSource({"buffered, write", "buffered, force", "plain, force"})
  void aFailedWriteOrForceRefusesLaterChangesAndLeavesTheFileToOpenAfterCrash(String kind, String failing) throws Exception {
    boolean buffered = kind.equals("buffered");
    long seed = 0xFA11L + (buffered ? 0 : 2) + (failing.equals("write") ? 0 : 1);
    System.out.println("SketchWriteFailureTest " + kind + " " + failing + ": seed " + seed);
    Random random = new Random(seed);
    long[] items = random.longs(ITEMS).toArray();
    long[] counts = new long[ITEMS];
    long[] flushed;
    long flushedWeight = 0;
    Path file = temp.resolve(kind + "-" + failing + ".cms");
    try (AutoCloseable hook = failing()) {
      FrequencySketch sketch = buffered ? BufferedCountMinSketch.create(file, PARAMETERS, BUDGET) : CountMinSketch.create(file, PARAMETERS);
      for (int i = 0; i < 3_000; i++) {
        int item = random.nextInt(ITEMS);
        long weight = 1 + random.nextInt(3);
        sketch.update(items[item], weight);
        counts[item] += weight;
        flushedWeight += weight;
      }
      sketch.flush();
      flushed = counts.clone();
      for (int i = 0; i < 500; i++) {
        int item = random.nextInt(ITEMS);
        sketch.update(items[item], 1);
        counts[item]++;
      }
      if (failing.equals("write")) {
        FailingChannel.FAIL_NEXT_WRITE.set(true);
        boolean failed = false;
        for (int i = 0; i < 100_000 && !failed; i++) {
          int item = random.nextInt(ITEMS);
          try {
            sketch.update(items[item], 1);
          } catch (UncheckedIOException e) {
            failed = true;
          }
          counts[item]++; // counted or not, an estimate may count it
        }
        assertTrue(failed, "no page write failed");
      } else {
        FailingChannel.FAIL_NEXT_FORCE.set(true);
        assertThrows(UncheckedIOException.class, sketch::flush);
      }
      UncheckedIOException refused = assertThrows(UncheckedIOException.class, () -> sketch.update(items[0], 1));
      assertTrue(refused.getCause().getMessage().contains("takes no more writes"), refused.getCause().getMessage());
      assertThrows(UncheckedIOException.class, sketch::flush);
      for (int i = 0; i < ITEMS; i++) {
        assertTrue(sketch.estimate(items[i]) >= counts[i], "item " + i + ": " + sketch.estimate(items[i]) + " < " + counts[i]);
      }
      assertThrows(UncheckedIOException.class, sketch::close);
      assertThrows(IllegalStateException.class, () -> sketch.estimate(items[0]));
    }
    CorruptStoreException unclean = assertThrows(CorruptStoreException.class,
        () -> (buffered ? BufferedCountMinSketch.open(file, BUDGET) : CountMinSketch.open(file)).close());
    assertTrue(unclean.getMessage().contains("openAfterCrash"), unclean.getMessage());
    try (FrequencySketch recovered = buffered ? BufferedCountMinSketch.openAfterCrash(file, BUDGET) : CountMinSketch.openAfterCrash(file)) {
      for (int i = 0; i < ITEMS; i++) {
        assertTrue(recovered.estimate(items[i]) >= flushed[i], "item " + i + " after the crash open");
      }
      assertEquals(flushedWeight, recovered.totalWeight());
    }
  }
}
