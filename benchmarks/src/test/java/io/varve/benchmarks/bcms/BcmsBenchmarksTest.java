package io.varve.benchmarks.bcms;

import io.varve.bcms.FrequencySketch;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The BCMS experiments and benchmarks measure what they claim: the paper's configurations, sketches that count right. */
class BcmsBenchmarksTest {
  @TempDir Path dir;

  @Test
  void configurationsAreThePapersTable1() {
    long[][] table1 = { // size MB, width, depth, items: the paper's Table 1
      {128, 3355444, 5, 9875188}, {256, 6710887, 5, 19750377}, {512, 13421773, 5, 39500754},
      {1024, 26843546, 5, 79001508}};
    for (long[] row : table1) {
      PaperConfiguration configuration = PaperConfiguration.ofSize(row[0] << 20);
      assertEquals(row[1], configuration.width(), "width of " + row[0] + " MB");
      assertEquals(row[2], configuration.depth());
      assertEquals(row[3], configuration.items(), 1, "items of " + row[0] + " MB");
    }
  }

  @Test
  void paperItemsAreDistinct() {
    java.util.Set<Long> seen = new java.util.HashSet<>();
    for (long i = 0; i < 100_000; i++) {
      assertTrue(seen.add(PaperConfiguration.item(i)), "item " + i + " repeats");
    }
  }

  @ParameterizedTest
  @EnumSource(SketchKind.class)
  void bothSketchKindsCountAndReopen(SketchKind kind) {
    Path file = dir.resolve(kind + ".sketch");
    long seed = 11;
    System.out.println("seed " + seed);
    SplittableRandom random = new SplittableRandom(seed);
    Map<Long, Long> truth = new HashMap<>();
    try (FrequencySketch sketch = kind.create(file, PaperConfiguration.ofSize(1 << 20).parameters(false), 4096)) {
      for (int i = 0; i < 20_000; i++) {
        long item = random.nextInt(3000);
        sketch.update(item);
        truth.merge(item, 1L, Long::sum);
      }
    }
    try (FrequencySketch sketch = kind.open(file, 0)) {
      truth.forEach((item, count) -> assertTrue(sketch.estimate(item) >= count, kind + " item " + item));
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"varve", "datasketches"})
  void inMemoryCountersNeverUnderestimate(String name) {
    Assumptions.assumeTrue(name.equals("varve") || Runtime.version().feature() >= 25,
        "DataSketches' CountMinSketch needs JDK 25");
    InMemoryCounter counter = InMemoryCounter.of(name, 4096, 5, 3);
    SplittableRandom random = new SplittableRandom(5);
    Map<Long, Long> truth = new HashMap<>();
    for (int i = 0; i < 50_000; i++) {
      long item = random.nextInt(2000);
      long weight = 1 + random.nextInt(3);
      counter.update(item, weight);
      truth.merge(item, weight, Long::sum);
    }
    int exact = 0;
    for (Map.Entry<Long, Long> entry : truth.entrySet()) {
      long estimate = counter.estimate(entry.getKey());
      assertTrue(estimate >= entry.getValue(), name + " item " + entry.getKey());
      exact += estimate == entry.getValue() ? 1 : 0;
    }
    assertTrue(exact > truth.size() / 2, name + ": only " + exact + " exact of " + truth.size());
    assertEquals(4096L * 5 * 8, counter.sizeBytes());
  }

  @Test
  void dataSketchesOnAnOlderJdkSaysWhichJdkItNeeds() {
    Assumptions.assumeTrue(Runtime.version().feature() < 25);
    UnsupportedOperationException e =
        assertThrows(UnsupportedOperationException.class, () -> InMemoryCounter.of("datasketches", 64, 2, 1));
    assertTrue(e.getMessage().contains("JDK 25"), e.getMessage());
  }

  @ParameterizedTest
  @ValueSource(strings = {"varve", "datasketches"})
  void theJmhBenchmarkEstimatesWhatItUpdated(String name) {
    Assumptions.assumeTrue(name.equals("varve") || Runtime.version().feature() >= 25);
    InMemorySketchBenchmark benchmark = new InMemorySketchBenchmark();
    benchmark.sketch = name;
    benchmark.width = 65536;
    benchmark.setUp();
    for (int i = 0; i < 1000; i++) {
      benchmark.update();
    }
    benchmark.next = 0;
    for (int i = 0; i < 1000; i++) {
      assertTrue(benchmark.estimate() >= 2, "item " + i + " was added in setUp and again by update()");
    }
  }

  @Test
  void reportReadsBackWhatItWroteAndFillsTheReadme() throws Exception {
    java.util.List<BcmsExperiment.ErrorRow> errors = java.util.List.of(
        new BcmsExperiment.ErrorRow("128 MiB", SketchKind.CMS, false, 1000, 1.25, 6, 0.25),
        new BcmsExperiment.ErrorRow("128 MiB", SketchKind.BCMS, false, 1000, 1.5, 7, 0.2));
    java.util.List<BcmsExperiment.SpeedRow> speeds = java.util.List.of(
        new BcmsExperiment.SpeedRow("128 MiB", 2, SketchKind.CMS, "insert", 3000, 11, 1, 15000, 6000, 1 << 26),
        new BcmsExperiment.SpeedRow("128 MiB", 2, SketchKind.BCMS, "insert", 4_000_000, 4, 0.5, 20000, 20000, 1 << 26),
        new BcmsExperiment.SpeedRow("128 MiB", 2, SketchKind.CMS, "query", 1000, 1, 0, 2700, 0, 1 << 26),
        new BcmsExperiment.SpeedRow("128 MiB", 2, SketchKind.BCMS, "query", 5000, 1, 0, 2500, 0, 1 << 26));
    Path readme = dir.resolve("README.md");
    java.nio.file.Files.writeString(readme, "before\n" + BcmsReport.BEGIN + "\nold\n" + BcmsReport.END + "\nafter\n");
    BcmsReport.write(dir, readme, errors, speeds, 64 << 20, 4096, new String[] {"--ram-mib", "64"});
    String md = java.nio.file.Files.readString(dir.resolve("RESULTS.md"));
    // CMS inserts are timed without their flush: 3000 / (11 - 1) = 300/s; BCMS with it: 1,000,000/s.
    assertTrue(md.contains("| 128 MiB | 1:2 | insert | 300 | 1,000,000 | **3333.3×** | 7.000 |"), md);
    assertTrue(md.contains("| 128 MiB | 1:2 | query | 1,000 | 5,000 | **5.0×** | 2.700 | 0.5000 |"), md);
    assertTrue(md.contains("| 1.2500 | 1.5000 | 1.2000 | 6 | 7 |"), md);
    String text = java.nio.file.Files.readString(readme);
    assertTrue(text.startsWith("before\n" + BcmsReport.BEGIN) && text.endsWith(BcmsReport.END + "\nafter\n"), text);
    assertTrue(text.contains("300 → 1,000,000 (**3333×**)") && !text.contains("old"), text);
    String before = md;
    BcmsReport.rewrite(dir, null);
    assertEquals(before, java.nio.file.Files.readString(dir.resolve("RESULTS.md")), "rewritten from results.tsv");
  }
}
