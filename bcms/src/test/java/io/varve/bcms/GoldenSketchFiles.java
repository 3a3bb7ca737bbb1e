package io.varve.bcms;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * Writes the golden sample sketch files of the newest format version (run by hand when a version
 * is released; {@link GoldenSketchTest} reads the committed copies of every version):
 *
 * <pre>
 * java -cp ... io.varve.bcms.GoldenSketchFiles bcms/src/test/resources/golden
 * </pre>
 */
final class GoldenSketchFiles {
  private GoldenSketchFiles() {}

  /** Format version 1, row layout: 32-bit counters, plain updates. */
  static final String ROWS_V1 = "cms-v1-rows.sketch";
  /** Format version 1, page layout: 512-byte pages, 64-bit counters, conservative update. */
  static final String PAGES_V1 = "bcms-v1-pages.sketch";
  /** Format version 2 (commit records in two slots), row layout: the sketch of {@link #ROWS_V1}. */
  static final String ROWS_V2 = "cms-v2-rows.sketch";
  /** Format version 2, page layout: the sketch of {@link #PAGES_V1}. */
  static final String PAGES_V2 = "bcms-v2-pages.sketch";
  static final int ITEMS = 600;

  static final SketchParameters ROWS_PARAMETERS =
      SketchParameters.ofDimensions(2011, 4).withCounterBits(32).withSeed(42);
  static final SketchParameters PAGES_PARAMETERS =
      SketchParameters.ofDimensions(1000, 5).withPageSize(512).withConservativeUpdate(true).withSeed(7);
  /** Small enough that the buffered sketch flushes pages while it is written. */
  static final long PAGES_RAM_BUDGET = 2048;

  /** Item {@code i} as bytes (an empty one, non-ASCII ones); odd items are also updated as longs. */
  static byte[] item(int i) {
    return i == 0 ? new byte[0] : ("элемент-" + i + "-項目").getBytes(StandardCharsets.UTF_8);
  }

  static long weight(int i) {
    return i % 5 + 1;
  }

  /** The true counts of the byte items (by index) after {@link #feed}; long items {@code i} count {@code i}. */
  static Map<Integer, Long> trueCounts() {
    Map<Integer, Long> counts = new HashMap<>();
    for (int i = 0; i < ITEMS; i++) {
      counts.merge(i % 450, weight(i), Long::sum); // indices 450.. repeat earlier items
    }
    return counts;
  }

  /** The stream both samples were written from. */
  static void feed(FrequencySketch sketch) {
    for (int i = 0; i < ITEMS; i++) {
      sketch.update(item(i % 450), weight(i));
      if (i % 2 == 1) {
        sketch.update((long) i, i);
      }
    }
  }

  static void writeRows(Path file) {
    try (CountMinSketch sketch = CountMinSketch.create(file, ROWS_PARAMETERS)) {
      feed(sketch);
    }
  }

  static void writePages(Path file) {
    try (BufferedCountMinSketch sketch = BufferedCountMinSketch.create(file, PAGES_PARAMETERS, PAGES_RAM_BUDGET)) {
      feed(sketch);
    }
  }

  /** Writes the samples of the newest version (those of older versions were written by the builds of their time). */
  public static void main(String[] args) {
    Path dir = Path.of(args[0]);
    writeRows(dir.resolve(ROWS_V2));
    writePages(dir.resolve(PAGES_V2));
  }
}
