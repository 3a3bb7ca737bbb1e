package io.varve.bcms;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The committed sample files of sketch format version 1 still open, answer at least the true
 * counts, and are exactly what this code writes for the same stream: a change to the layout, the
 * header or the hashing fails here before it breaks users' files.
 */
class GoldenSketchTest {
  @TempDir Path dir;

  private Path golden(String name) throws IOException {
    Path copy = dir.resolve("golden-" + name);
    try (InputStream in = GoldenSketchTest.class.getResourceAsStream("/golden/" + name)) {
      Files.copy(in, copy);
    }
    return copy;
  }

  @Test
  void rowLayoutVersion1Opens() throws IOException {
    Path file = golden(GoldenSketchFiles.ROWS_V1);
    Map<Integer, Long> truth = GoldenSketchFiles.trueCounts();
    try (CountMinSketch sketch = CountMinSketch.open(file)) {
      assertEquals(GoldenSketchFiles.ROWS_PARAMETERS, sketch.parameters());
      checkEstimates(truth, sketch::estimate, sketch::estimate);
      assertEquals(expectedTotalWeight(), sketch.totalWeight());
    }
  }

  @Test
  void pageLayoutVersion1Opens() throws IOException {
    Path file = golden(GoldenSketchFiles.PAGES_V1);
    Map<Integer, Long> truth = GoldenSketchFiles.trueCounts();
    try (BufferedCountMinSketch sketch = BufferedCountMinSketch.open(file, 0)) {
      assertEquals(GoldenSketchFiles.PAGES_PARAMETERS, sketch.parameters());
      checkEstimates(truth, sketch::estimate, sketch::estimate);
      assertEquals(expectedTotalWeight(), sketch.totalWeight());
    }
  }

  @Test
  void thisCodeWritesTheGoldenRowFileByteForByte() throws IOException {
    Path fresh = dir.resolve("fresh-rows");
    GoldenSketchFiles.writeRows(fresh);
    assertArrayEquals(Files.readAllBytes(golden(GoldenSketchFiles.ROWS_V1)), Files.readAllBytes(fresh));
  }

  @Test
  void thisCodeWritesTheGoldenPageFileByteForByte() throws IOException {
    Path fresh = dir.resolve("fresh-pages");
    GoldenSketchFiles.writePages(fresh);
    assertArrayEquals(Files.readAllBytes(golden(GoldenSketchFiles.PAGES_V1)), Files.readAllBytes(fresh));
  }

  private interface ByteEstimate {
    long estimate(byte[] item);
  }

  private interface LongEstimate {
    long estimate(long item);
  }

  private static void checkEstimates(Map<Integer, Long> truth, ByteEstimate bytes, LongEstimate longs) {
    int exact = 0;
    for (Map.Entry<Integer, Long> entry : truth.entrySet()) {
      long estimate = bytes.estimate(GoldenSketchFiles.item(entry.getKey()));
      assertTrue(estimate >= entry.getValue(), "item " + entry.getKey() + ": " + estimate + " < " + entry.getValue());
      exact += estimate == entry.getValue() ? 1 : 0;
    }
    for (int i = 1; i < GoldenSketchFiles.ITEMS; i += 2) {
      assertTrue(longs.estimate(i) >= i, "long item " + i);
    }
    assertTrue(exact > truth.size() / 2, "only " + exact + " of " + truth.size() + " estimates exact");
  }

  private static long expectedTotalWeight() {
    long total = 0;
    for (int i = 0; i < GoldenSketchFiles.ITEMS; i++) {
      total += GoldenSketchFiles.weight(i) + (i % 2 == 1 ? i : 0);
    }
    return total;
  }
}
