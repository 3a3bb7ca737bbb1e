package io.varve.bcms;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.core.format.CorruptStoreException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A sketch whose writer stopped after a flush and more updates: {@code open} refuses it, naming
 * {@code openAfterCrash}, which opens it with every estimate at least the count of the updates
 * before that flush, whichever of the later page writes reached the file (a kill keeps them all, a
 * power loss any subset); the file is then closed cleanly again.
 */
class SketchCrashRecoveryTest {
  private static final int ITEMS = 400;
  private static final int PAGE = 4096;

  @TempDir Path dir;

  @ParameterizedTest
  @EnumSource(SketchFileCorruptionTest.Format.class)
  void aSketchWhoseWriterStoppedOpensAfterACrashWithItsFlushedCounts(SketchFileCorruptionTest.Format format) throws IOException {
    long seed = 0x5CE7_C000L + format.ordinal();
    Random random = new Random(seed);
    long[] items = random.longs(ITEMS).toArray();
    long[] flushed = new long[ITEMS];
    long flushedWeight = 0;
    Path live = dir.resolve("live.cms");
    byte[] atFlush;
    byte[] atCrash;
    try (AnySketch sketch = format.create(live)) {
      for (int i = 0; i < 5_000; i++) {
        int item = random.nextInt(ITEMS);
        long weight = 1 + random.nextInt(5);
        sketch.update(items[item], weight);
        flushed[item] += weight;
        flushedWeight += weight;
      }
      sketch.flush();
      atFlush = Files.readAllBytes(live);
      for (int i = 0; i < 20_000; i++) {
        sketch.update(items[random.nextInt(ITEMS)], 1 + random.nextInt(5));
      }
      atCrash = Files.readAllBytes(live); // what the writer had written when it stopped
    }
    int header = format.headerLength();
    assertTrue(!Arrays.equals(atFlush, header, atFlush.length, atCrash, header, atCrash.length),
        format + ", seed " + seed + ": no page was written after the flush, nothing to recover");
    for (int image = 0; image < 6; image++) {
      String context = format + ", seed " + seed + ", image " + image + (image == 0 ? " (killed: every write kept)" : " (a power loss: a random subset of the later page writes kept)");
      byte[] crashed = image == 0 ? atCrash : mixPages(atFlush, atCrash, header, random);
      Path path = dir.resolve("crashed-" + image + ".cms");
      Files.write(path, crashed);
      CorruptStoreException refused = assertThrows(CorruptStoreException.class, () -> format.open(path, true).close(), context);
      assertTrue(refused.getMessage().contains("openAfterCrash"), context + ": " + refused.getMessage());
      try (AnySketch sketch = openAfterCrash(format, path)) {
        assertEquals(flushedWeight, sketch.totalWeight(), context + ": the total weight of the last flush");
        for (int i = 0; i < ITEMS; i++) {
          long estimate = sketch.estimate(items[i]);
          assertTrue(estimate >= flushed[i], context + ": item " + i + " estimated " + estimate + ", flushed with count " + flushed[i]);
        }
        sketch.update(items[0], 7);
      }
      try (AnySketch sketch = format.open(path, true)) { // closed cleanly, its checksum right
        assertTrue(sketch.estimate(items[0]) >= flushed[0] + 7, context + ": an update after the recovery");
      }
    }
  }

  /**
   * The file a power loss may leave: the header as the writer marked it before changing the body
   * (forced first), and each later body page either as at the flush or as last written.
   */
  private static byte[] mixPages(byte[] atFlush, byte[] atCrash, int headerLength, Random random) {
    byte[] mixed = Arrays.copyOf(atCrash, atCrash.length);
    for (int page = headerLength; page < mixed.length; page += PAGE) {
      if (random.nextBoolean()) {
        System.arraycopy(atFlush, page, mixed, page, Math.min(PAGE, mixed.length - page));
      }
    }
    return mixed;
  }

  private static AnySketch openAfterCrash(SketchFileCorruptionTest.Format format, Path path) {
    return format.buffered()
        ? AnySketch.of(BufferedCountMinSketch.openAfterCrash(path, 1 << 16))
        : AnySketch.of(CountMinSketch.openAfterCrash(path));
  }
}
