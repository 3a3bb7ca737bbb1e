package io.varve.bcms;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@link CountMinSketch#updateAll} and {@link CountMinSketch#estimateAll} against the same calls
 * made one item at a time on a twin sketch, and against exact counts (a HashMap): batches of every
 * length around the guarded run's 64 items, in memory and mapped, both counter widths, both update
 * rules.
 */
class CountMinSketchBatchTest {
  private static final long SEED = 0xBA7C_4E55L;

  @TempDir Path dir;

  @ParameterizedTest(name = "file={0} bits={1} conservative={2}")
  @CsvSource({"false,32,false", "false,64,true", "true,32,true", "true,64,false"})
  void batchesCountAndEstimateAsSingleCalls(boolean inFile, int bits, boolean conservative) {
    System.out.println("CountMinSketchBatchTest: seed " + Long.toHexString(SEED));
    SplittableRandom random = new SplittableRandom(SEED);
    // Narrow, so that items share counters and the update rule shows.
    SketchParameters parameters = SketchParameters.ofDimensions(512, 4).withSeed(SEED).withCounterBits(bits)
        .withConservativeUpdate(conservative);
    Map<Long, Long> exact = new HashMap<>();
    try (CountMinSketch batched = inFile ? CountMinSketch.create(dir.resolve("batched.cms"), parameters)
            : CountMinSketch.inMemory(parameters);
        CountMinSketch single = CountMinSketch.inMemory(parameters)) {
      for (int length : new int[] {0, 1, 63, 64, 65, 128, 1000}) {
        long[] items = random.longs(length, 0, 3000).toArray();
        long weight = random.nextInt(4);
        batched.updateAll(items, weight);
        for (long item : items) {
          single.update(item, weight);
          exact.merge(item, weight, Long::sum);
        }
        assertEquals(single.totalWeight(), batched.totalWeight());
        long[] asked = random.longs(length + 7, 0, 3000).toArray();
        long[] estimates = new long[asked.length + 1];
        estimates[asked.length] = -42; // past the items: left alone
        batched.estimateAll(asked, estimates);
        long[] expected = new long[asked.length + 1];
        for (int i = 0; i < asked.length; i++) {
          expected[i] = single.estimate(asked[i]);
          assertEquals(true, expected[i] >= exact.getOrDefault(asked[i], 0L), "underestimate of " + asked[i]);
        }
        expected[asked.length] = -42;
        assertArrayEquals(expected, estimates, "batch of " + length);
      }
    }
  }

  @ParameterizedTest(name = "file={0}")
  @CsvSource({"false", "true"})
  void batchesRefuseWhatSingleCallsRefuse(boolean inFile) {
    SketchParameters parameters = SketchParameters.ofDimensions(512, 4).withSeed(SEED);
    CountMinSketch sketch = inFile ? CountMinSketch.create(dir.resolve("refuses.cms"), parameters)
        : CountMinSketch.inMemory(parameters);
    long[] items = {1, 2, 3};
    assertThrows(IllegalArgumentException.class, () -> sketch.updateAll(items, -1));
    assertEquals(0, sketch.totalWeight(), "a negative weight counts nothing");
    sketch.updateAll(items, 2);
    long[] estimates = new long[2];
    assertThrows(IllegalArgumentException.class, () -> sketch.estimateAll(items, estimates));
    assertArrayEquals(new long[2], estimates, "nothing written for too short an array");
    sketch.close();
    assertThrows(IllegalStateException.class, () -> sketch.updateAll(items, 1));
    assertThrows(IllegalStateException.class, () -> sketch.estimateAll(items, new long[3]));
    assertThrows(IllegalStateException.class, () -> sketch.updateAll(new long[0], 1));
    if (inFile) {
      try (CountMinSketch reopened = CountMinSketch.open(dir.resolve("refuses.cms"))) {
        long[] again = new long[3];
        reopened.estimateAll(items, again);
        assertEquals(6, reopened.totalWeight());
        assertEquals(true, Arrays.stream(again).allMatch(e -> e >= 2), Arrays.toString(again));
      }
    }
  }
}
