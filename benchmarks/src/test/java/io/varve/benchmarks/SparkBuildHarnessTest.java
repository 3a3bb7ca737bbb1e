package io.varve.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Spark build harness builds what it says on both sides (each build's output is opened and
 * checked by the harness itself, which throws on a wrong answer), alternates their order and
 * parses its options.
 */
class SparkBuildHarnessTest {
  @TempDir Path temp;

  @Test
  void runsBothSidesInAlternatingOrderAndChecksTheirOutputs() throws IOException {
    assumeSpark();
    Path work = temp.resolve("work");
    Run run = run(work,
        "--records", "20000", "--shards", "4", "--rounds", "2", "--warmup-records", "1000", "--checks", "2000",
        "--conf", "spark.sql.shuffle.partitions=2");
    List<SparkBuildHarness.Round> rounds = run.rounds();
    String output = run.output();
    assertEquals(2, rounds.size(), output);
    assertEquals(List.of("single", "spark"), rounds.get(0).builds().stream().map(SparkBuildHarness.Build::side).toList());
    assertEquals(List.of("spark", "single"), rounds.get(1).builds().stream().map(SparkBuildHarness.Build::side).toList());
    for (SparkBuildHarness.Round round : rounds) {
      for (SparkBuildHarness.Build build : round.builds()) {
        assertEquals(20_000, build.records());
        assertTrue(build.nanos() > 0 && build.peakHeapBytes() > 0, build.toString());
      }
      assertTrue(round.ratio() > 0);
    }
    assertTrue(output.contains("summary: single"), output);
    assertFalse(Files.exists(work), "the work directory is removed");
  }

  /** Long columns from SQL expressions: both sides build the same records, which the checks compare. */
  @Test
  void buildsTheSameRecordsFromLongColumns() throws IOException {
    assumeSpark();
    Path work = temp.resolve("work");
    Run run = run(work,
        "--records", "20000", "--shards", "4", "--rounds", "1", "--warmup-records", "0", "--checks", "2000",
        "--input", "columns", "--conf", "spark.sql.shuffle.partitions=2");
    List<SparkBuildHarness.Round> rounds = run.rounds();
    String output = run.output();
    assertEquals(20_000, rounds.get(0).of("spark").records(), output);
    assertTrue(output.contains("long columns from SQL expressions"), output);
    SparkBuildHarness.Input columns = SparkBuildHarness.Input.COLUMNS;
    assertEquals(ByteBuffer.wrap(new byte[] {0, 0, 0, 0, 0, 0, 0, 7}), ByteBuffer.wrap(columns.value(7)));
    assertEquals(ByteBuffer.allocate(8).putLong(0, 7 * 0x9E3779B97F4A7C15L), ByteBuffer.wrap(columns.key(7)));
    assertThrows(IllegalArgumentException.class, () -> SparkBuildHarness.Settings.parse(new String[] {"--input", "json"}));
  }

  @Test
  void runsTheSingleSideAloneWithoutSpark() throws IOException {
    Path work = temp.resolve("work");
    Run run = run(work,
        "--records", "30000", "--rounds", "2", "--warmup-records", "0", "--sides", "single");
    List<SparkBuildHarness.Round> rounds = run.rounds();
    String output = run.output();
    assertEquals(2, rounds.size(), output);
    for (SparkBuildHarness.Round round : rounds) {
      assertEquals(1, round.builds().size());
      assertEquals(30_000, round.of("single").records());
      assertTrue(Double.isNaN(round.ratio()));
    }
    assertFalse(output.contains("Spark session"), output);
    assertFalse(Files.exists(work), "the work directory is removed");
  }

  private static void assumeSpark() {
    Assumptions.assumeTrue(SparkBuildHarness.sparkRuns(),
        SparkBuildHarness.NO_SPARK_HERE + ": skipped on JDK " + Runtime.version());
  }

  /** What a harness run returned and printed. */
  private record Run(List<SparkBuildHarness.Round> rounds, String output) {}

  /** Runs the harness with {@code options} and {@code --work work}. */
  private static Run run(Path work, String... options) throws IOException {
    String[] args = Arrays.copyOf(options, options.length + 2);
    args[options.length] = "--work";
    args[options.length + 1] = work.toString();
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    List<SparkBuildHarness.Round> rounds =
        SparkBuildHarness.run(SparkBuildHarness.Settings.parse(args), new PrintStream(printed, true, StandardCharsets.UTF_8));
    return new Run(rounds, printed.toString(StandardCharsets.UTF_8));
  }

  @Test
  void parsesOptionsWithTheirDefaults() {
    SparkBuildHarness.Settings defaults = SparkBuildHarness.Settings.parse(new String[0]);
    assertEquals(100_000_000L, defaults.records());
    assertEquals(8, defaults.shards());
    assertEquals(8, defaults.inputPartitions());
    assertEquals("local[2]", defaults.master());
    assertEquals(3, defaults.rounds());
    assertEquals(0, defaults.memoryBudget());
    assertEquals(List.of("single", "spark"), defaults.sides());
    assertEquals(List.of("spark"), SparkBuildHarness.Settings.parse(new String[] {"--sides", "spark"}).sides());
    assertThrows(IllegalArgumentException.class, () -> SparkBuildHarness.Settings.parse(new String[] {"--sides", "spark,spark"}));
    assertThrows(IllegalArgumentException.class, () -> SparkBuildHarness.Settings.parse(new String[] {"--sides", "hadoop"}));
    SparkBuildHarness.Settings set = SparkBuildHarness.Settings.parse(new String[] {
        "--records", "1000000", "--shards", "64", "--master", "local[*]", "--memory-budget-mib", "32",
        "--conf", "spark.serializer=org.apache.spark.serializer.KryoSerializer", "--conf", "a=b=c"});
    assertEquals(1_000_000L, set.records());
    assertEquals(64, set.inputPartitions());
    assertEquals(32L << 20, set.memoryBudget());
    assertEquals(Map.of("spark.serializer", "org.apache.spark.serializer.KryoSerializer", "a", "b=c"), set.sparkConf());
    assertThrows(IllegalArgumentException.class, () -> SparkBuildHarness.Settings.parse(new String[] {"--shards", "0"}));
    assertThrows(IllegalArgumentException.class, () -> SparkBuildHarness.Settings.parse(new String[] {"--records"}));
    assertThrows(IllegalArgumentException.class, () -> SparkBuildHarness.Settings.parse(new String[] {"--nope", "1"}));
  }
}
