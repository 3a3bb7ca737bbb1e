package io.varve.bcms;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The committed sample files of sketch format versions 1 and 2 still open, answer at least the true
 * counts, and are exactly what this code writes for the same stream (version 2 as it is, version 1
 * but for its header): a change to the layout, the header or the hashing fails here before it
 * breaks users' files.
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
  void rowLayoutVersion2Opens() throws IOException {
    Path file = golden(GoldenSketchFiles.ROWS_V2);
    try (CountMinSketch sketch = CountMinSketch.open(file)) {
      assertEquals(GoldenSketchFiles.ROWS_PARAMETERS, sketch.parameters());
      checkEstimates(GoldenSketchFiles.trueCounts(), sketch::estimate, sketch::estimate);
      assertEquals(expectedTotalWeight(), sketch.totalWeight());
    }
  }

  @Test
  void pageLayoutVersion2Opens() throws IOException {
    Path file = golden(GoldenSketchFiles.PAGES_V2);
    try (BufferedCountMinSketch sketch = BufferedCountMinSketch.open(file, 0)) {
      assertEquals(GoldenSketchFiles.PAGES_PARAMETERS, sketch.parameters());
      checkEstimates(GoldenSketchFiles.trueCounts(), sketch::estimate, sketch::estimate);
      assertEquals(expectedTotalWeight(), sketch.totalWeight());
    }
  }

  /** A version-2 sample as the format's grammar describes it: fixed fields, two commit slots, the same body as version 1. */
  @Test
  void theVersion2SamplesFollowTheGrammar() throws IOException {
    for (String[] pair : new String[][] {{GoldenSketchFiles.ROWS_V2, GoldenSketchFiles.ROWS_V1},
        {GoldenSketchFiles.PAGES_V2, GoldenSketchFiles.PAGES_V1}}) {
      byte[] v2 = Files.readAllBytes(golden(pair[0]));
      byte[] v1 = Files.readAllBytes(golden(pair[1]));
      ByteBuffer b = ByteBuffer.wrap(v2).order(ByteOrder.LITTLE_ENDIAN);
      assertEquals(2, b.getInt(8), pair[0]);
      assertEquals(v1.length - 4096 + 12288, v2.length, pair[0] + ": 8 KiB longer, for the slots' pages");
      assertArrayEquals(Arrays.copyOfRange(v1, 12, 60), Arrays.copyOfRange(v2, 12, 60), pair[0] + ": layout to flags as in version 1");
      assertEquals(b.getLong(60), v2.length - 12288, pair[0] + ": body length");
      assertArrayEquals(Arrays.copyOfRange(v1, 4096, v1.length), Arrays.copyOfRange(v2, 12288, v2.length), pair[0] + ": the same body");
      // created open in slot 0 (generation 1), closed in slot 1 (generation 2) with version 1's closing fields
      ByteBuffer v1Fields = ByteBuffer.wrap(v1).order(ByteOrder.LITTLE_ENDIAN);
      assertEquals(0x524D4356, b.getInt(4096));
      assertEquals(1L, b.getLong(4096 + 8));
      assertEquals(1, b.getInt(4096 + 24));
      assertEquals(0x524D4356, b.getInt(8192));
      assertEquals(2L, b.getLong(8192 + 8));
      assertEquals(v1Fields.getLong(64), b.getLong(8192 + 16), "total weight");
      assertEquals(0, b.getInt(8192 + 24), "closed");
      assertEquals(v1Fields.getInt(80), b.getInt(8192 + 28), "body checksum");
    }
  }

  @Test
  void thisCodeWritesTheGoldenFilesByteForByte() throws IOException {
    Path rows = dir.resolve("fresh-rows");
    GoldenSketchFiles.writeRows(rows);
    assertArrayEquals(Files.readAllBytes(golden(GoldenSketchFiles.ROWS_V2)), Files.readAllBytes(rows));
    Path pages = dir.resolve("fresh-pages");
    GoldenSketchFiles.writePages(pages);
    assertArrayEquals(Files.readAllBytes(golden(GoldenSketchFiles.PAGES_V2)), Files.readAllBytes(pages));
  }

  /**
   * Today's code writes the same sketch as version 1 did, but for its header: the version-1 file of
   * what it writes ({@link SketchFiles#version1Of}) is the version-1 sample byte for byte.
   */
  @Test
  void thisCodeWritesTheVersion1SamplesButForTheirHeader() throws IOException {
    Path rows = dir.resolve("fresh-rows");
    GoldenSketchFiles.writeRows(rows);
    assertArrayEquals(Files.readAllBytes(golden(GoldenSketchFiles.ROWS_V1)), SketchFiles.version1Of(Files.readAllBytes(rows)));
    Path pages = dir.resolve("fresh-pages");
    GoldenSketchFiles.writePages(pages);
    assertArrayEquals(Files.readAllBytes(golden(GoldenSketchFiles.PAGES_V1)), SketchFiles.version1Of(Files.readAllBytes(pages)));
  }

  /**
   * A version-1 file opened for writing stays version 1 (never converted: its body would have to
   * move): its one header is rewritten in place, the file keeps its length, and it reads back.
   */
  @Test
  void aVersion1FileWrittenAgainStaysVersion1() throws IOException {
    Path rows = golden(GoldenSketchFiles.ROWS_V1);
    Path pages = golden(GoldenSketchFiles.PAGES_V1);
    long rowsLength = Files.size(rows);
    long pagesLength = Files.size(pages);
    try (CountMinSketch sketch = CountMinSketch.open(rows)) {
      sketch.update(GoldenSketchFiles.item(1), 1000);
    }
    try (BufferedCountMinSketch sketch = BufferedCountMinSketch.open(pages, 0)) {
      sketch.update(GoldenSketchFiles.item(1), 1000);
    }
    for (Path file : new Path[] {rows, pages}) {
      byte[] bytes = Files.readAllBytes(file);
      assertEquals(1, ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).getInt(8), file + ": still version 1");
      assertEquals(expectedTotalWeight() + 1000, SketchFiles.read(bytes).header().totalWeight());
    }
    assertEquals(rowsLength, Files.size(rows));
    assertEquals(pagesLength, Files.size(pages));
    Map<Integer, Long> truth = GoldenSketchFiles.trueCounts();
    truth.merge(1, 1000L, Long::sum);
    try (CountMinSketch sketch = CountMinSketch.open(rows)) {
      checkEstimates(truth, sketch::estimate, sketch::estimate);
    }
    try (BufferedCountMinSketch sketch = BufferedCountMinSketch.open(pages, 0)) {
      checkEstimates(truth, sketch::estimate, sketch::estimate);
    }
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
