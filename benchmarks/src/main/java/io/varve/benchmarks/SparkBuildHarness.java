package io.varve.benchmarks;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;

import io.varve.builder.BuildOptions;
import io.varve.builder.StoreBuilder;
import io.varve.core.files.FileTrees;
import io.varve.core.shard.ShardManifest;
import io.varve.core.shard.ShardRouter;
import io.varve.reader.ShardedStore;
import io.varve.reader.Store;
import io.varve.spark.HadoopClient;
import io.varve.spark.VarveSpark;
import io.varve.spark.VarveWriteOptions;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.spark.api.java.function.MapFunction;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * Whole-process harness: the Spark writer ({@link VarveSpark#write}, local mode) against the
 * single-process builder ({@link StoreBuilder}) on the same records, in the same JVM and run.
 * Record {@code i} is {@link StoreLookupBenchmark#key(long)} and {@link
 * StoreLookupBenchmark#value(long)} of {@code i} (8 + 8 bytes); the single build calls them in a
 * loop, the Spark job inside its tasks ({@code spark.range(N)} mapped to two binary columns), so
 * that neither reads its input from anywhere. Each side is timed from its first record to its
 * published output (for Spark: the whole {@code write} call, shuffle, shard builds, copies and job
 * commit; the session is started once, before). Rounds alternate which side goes first; after
 * each, untimed, both outputs are opened and checked (record counts, and sampled keys answer
 * their values alike), then deleted. Printed: records/s of each, Spark/single per round and their
 * median, and each phase's peak RSS (VmHWM, reset before the phase) and summed heap-pool peaks.
 *
 * <pre>
 * ./mvnw -q -B -o package -pl benchmarks -am -DskipTests
 * benchmarks/spark-build-harness.sh --records 100000000 --shards 8 --rounds 3 --work /tmp/varve-spark-build
 * </pre>
 *
 * Options: {@code --records N} (10^8), {@code --shards S} (8), {@code --rounds R} (3), {@code
 * --master M} ({@code local[2]}), {@code --input-partitions P} (the shard count), {@code
 * --memory-budget-mib B} (each side's default unless set: 256 MiB for the single build, 64 MiB per
 * Spark task), {@code --input rows|columns} (rows: binary columns through Spark's row encoder, as
 * before; columns: long columns from SQL expressions, as a columnar source gives them; see {@link
 * Input}), {@code --warmup-records W} (an untimed round of each side first; 200,000; 0 for
 * none), {@code --checks K} (sampled keys per check; 10,000), {@code --work DIR} (outputs and
 * Spark's local directory; deleted at the end), {@code --conf key=value} (a Spark setting,
 * repeatable), {@code --sides single,spark} (both; one alone for a clean peak RSS under {@code
 * /usr/bin/time -v}: with {@code single} alone Spark is not started). Spark is {@code provided}: the script puts it on the class path from {@code
 * benchmarks/target/spark-classpath.txt}, which the package phase writes. On JDK 24 and later the
 * harness says why it cannot run and exits (Hadoop 3.4.1 calls {@code Subject.getSubject}:
 * HADOOP-19212).
 *
 * <p>Not thread-safe; one run at a time per work directory.
 */
public final class SparkBuildHarness {
  /** Why Spark does not start on this JDK, for the skip message. */
  static final String NO_SPARK_HERE = "Spark 4.0.1 runs Hadoop 3.4.1, whose UserGroupInformation calls Subject.getSubject,"
      + " which JDK 24 and later no longer support (HADOOP-19212)";

  private static final StructType SCHEMA = new StructType()
      .add("k", DataTypes.BinaryType, false)
      .add("v", DataTypes.BinaryType, false);

  private SparkBuildHarness() {}

  /**
   * Runs the harness with {@code args} (see the class comment); with the Spark side, returns at once
   * with a message where Spark cannot run.
   */
  public static void main(String[] args) throws IOException {
    Settings settings = Settings.parse(args);
    if (settings.sides().contains("spark") && !sparkRuns()) {
      System.out.println("SparkBuildHarness skipped: " + NO_SPARK_HERE + "; this is JDK " + Runtime.version()
          + ". Run it on JDK 17 to 22.");
      return;
    }
    run(settings, System.out);
  }

  /** The harness's settings: see the class comment for each option and its default. */
  record Settings(long records, int shards, int rounds, String master, int inputPartitions, long memoryBudget,
      long warmupRecords, int checks, Path work, Map<String, String> sparkConf, List<String> sides, Input input) {
    /** The sides a run can have: the single-process builder and the Spark writer. */
    static final List<String> SIDES = List.of("single", "spark");

    /** The settings of {@code args}. */
    static Settings parse(String[] args) {
      long records = 100_000_000L;
      int shards = 8;
      int rounds = 3;
      String master = "local[2]";
      int inputPartitions = 0;
      long memoryBudget = 0;
      long warmupRecords = 200_000;
      int checks = 10_000;
      Path work = Path.of(System.getProperty("java.io.tmpdir"), "varve-spark-build");
      Map<String, String> conf = new LinkedHashMap<>();
      List<String> sides = SIDES;
      Input input = Input.ROWS;
      for (int i = 0; i < args.length; i++) {
        String name = args[i];
        if (i + 1 == args.length) {
          throw new IllegalArgumentException("no value after " + name);
        }
        String value = args[++i];
        switch (name) {
          case "--records" -> records = Long.parseLong(value);
          case "--shards" -> shards = Integer.parseInt(value);
          case "--rounds" -> rounds = Integer.parseInt(value);
          case "--master" -> master = value;
          case "--input-partitions" -> inputPartitions = Integer.parseInt(value);
          case "--memory-budget-mib" -> memoryBudget = Long.parseLong(value) << 20;
          case "--warmup-records" -> warmupRecords = Long.parseLong(value);
          case "--checks" -> checks = Integer.parseInt(value);
          case "--work" -> work = Path.of(value);
          case "--input" -> input = Input.parse(value);
          case "--sides" -> {
            sides = List.of(value.split(","));
            if (sides.isEmpty() || !SIDES.containsAll(sides) || sides.stream().distinct().count() != sides.size()) {
              throw new IllegalArgumentException("--sides takes single, spark or single,spark: " + value);
            }
          }
          case "--conf" -> {
            int equals = value.indexOf('=');
            if (equals < 1) {
              throw new IllegalArgumentException("--conf takes key=value: " + value);
            }
            conf.put(value.substring(0, equals), value.substring(equals + 1));
          }
          default -> throw new IllegalArgumentException("unknown option " + name);
        }
      }
      if (records < 1 || rounds < 1 || warmupRecords < 0 || checks < 0) {
        throw new IllegalArgumentException("records and rounds must be positive, warmup records and checks not negative");
      }
      ShardRouter.checkShardCount(shards);
      return new Settings(records, shards, rounds, master, inputPartitions > 0 ? inputPartitions : shards,
          memoryBudget, warmupRecords, checks, work, conf, sides, input);
    }
  }

  /**
   * How the Spark side's records reach the writer; the single side builds the same records. Both
   * are 8-byte keys and 8-byte values, key {@code i * 0x9E3779B97F4A7C15} (distinct, spread) and
   * value {@code i}.
   */
  enum Input {
    /**
     * Two binary columns made by a Java map function through Spark's row encoder, as little-endian
     * bytes ({@link StoreLookupBenchmark#key}, {@link StoreLookupBenchmark#value}).
     */
    ROWS,
    /**
     * Two long columns made by SQL expressions, which the writer stores as 8 big-endian bytes: the
     * rows a columnar source (Parquet, ORC) hands the writer, with no encoder in between.
     */
    COLUMNS;

    static Input parse(String value) {
      return switch (value) {
        case "rows" -> ROWS;
        case "columns" -> COLUMNS;
        default -> throw new IllegalArgumentException("--input takes rows or columns: " + value);
      };
    }

    byte[] key(long i) {
      return this == ROWS ? StoreLookupBenchmark.key(i) : bigEndian(i * KEY_MIX);
    }

    byte[] value(long i) {
      return this == ROWS ? StoreLookupBenchmark.value(i) : bigEndian(i);
    }

    /** What the writer stores for a long column; built as cheaply as {@link StoreLookupBenchmark#key} is. */
    private static byte[] bigEndian(long value) {
      byte[] bytes = new byte[Long.BYTES];
      for (int j = 0; j < Long.BYTES; j++) {
        bytes[j] = (byte) (value >>> (8 * (Long.BYTES - 1 - j)));
      }
      return bytes;
    }

    /** The Spark side's rows of records {@code [0, n)} in {@code partitions} partitions. */
    Dataset<Row> rows(SparkSession spark, long n, int partitions) {
      Dataset<Long> ids = spark.range(0, n, 1, partitions);
      if (this == ROWS) {
        return ids.map(new GeneratedRecord(), Encoders.row(SCHEMA));
      }
      // The product wraps as Java's does: the session runs with spark.sql.ansi.enabled=false.
      return ids.select(col("id").multiply(lit(KEY_MIX)).as("k"), col("id").as("v"));
    }

    /** {@link StoreLookupBenchmark#key}'s multiplier. */
    private static final long KEY_MIX = 0x9E3779B97F4A7C15L;
  }

  /** One side's timed build: {@code records} in {@code nanos}, with its phase's peaks (-1 where unknown). */
  record Build(String side, long records, long nanos, long peakRssBytes, long peakHeapBytes) {
    /** Records per second. */
    double rate() {
      return records / (nanos / 1e9);
    }
  }

  /** The two builds of one round, in the order they ran. */
  record Round(int number, List<Build> builds) {
    /** The build of {@code side} ("single" or "spark"). */
    Build of(String side) {
      return builds.stream().filter(b -> b.side().equals(side)).findFirst().orElseThrow();
    }

    /** Spark's records/s over the single build's; NaN unless the round has both. */
    double ratio() {
      return builds.size() < 2 ? Double.NaN : of("spark").rate() / of("single").rate();
    }
  }

  /** Whether Spark's Hadoop client starts in this JVM ({@link HadoopClient#startsHere}). */
  static boolean sparkRuns() {
    return HadoopClient.startsHere();
  }

  /** Runs the warm-up and the timed rounds, printing to {@code out}; returns the timed rounds. */
  static List<Round> run(Settings settings, PrintStream out) throws IOException {
    FileTrees.deleteTree(settings.work());
    Files.createDirectories(settings.work());
    out.printf("SparkBuildHarness: %,d records of 8 + 8 bytes, %s; Spark %s into %d shards (%d input partitions, %s), %d rounds;"
            + " memory budget %s; JDK %s, %d processors%n",
        settings.records(), String.join(" and ", settings.sides()), settings.master(), settings.shards(),
        settings.inputPartitions(),
        settings.input() == Input.ROWS ? "binary columns from a map function" : "long columns from SQL expressions",
        settings.rounds(),
        settings.memoryBudget() > 0 ? (settings.memoryBudget() >> 20) + " MiB each side (per Spark task)"
            : "defaults (single " + (BuildOptions.DEFAULT_MEMORY_BUDGET >> 20) + " MiB, Spark "
                + (VarveWriteOptions.DEFAULT_MEMORY_BUDGET >> 20) + " MiB per task)",
        Runtime.version(), Runtime.getRuntime().availableProcessors());
    long start = System.nanoTime();
    SparkSession spark = settings.sides().contains("spark") ? startSpark(settings) : null;
    List<Round> rounds = new ArrayList<>();
    try {
      if (spark != null) {
        out.printf("Spark session started in %.1f s%n", (System.nanoTime() - start) / 1e9);
      }
      if (settings.warmupRecords() > 0) {
        long n = Math.min(settings.warmupRecords(), settings.records());
        StringBuilder took = new StringBuilder();
        for (String side : settings.sides()) {
          took.append(String.format(", %s %.2f s", side, build(spark, settings, side, n, "warmup").nanos() / 1e9));
        }
        out.printf("warm-up (untimed): %,d records%s%n", n, took);
      }
      for (int r = 1; r <= settings.rounds(); r++) {
        List<Build> builds = new ArrayList<>(2);
        List<String> order = new ArrayList<>(settings.sides());
        if (r % 2 == 0) {
          java.util.Collections.reverse(order);
        }
        for (String side : order) {
          Build build = build(spark, settings, side, settings.records(), "round-" + r);
          builds.add(build);
          out.printf("round %d %-6s: %,d records in %.2f s = %.3f M records/s; peak RSS %s, peak heap %s%n", r,
              build.side(), build.records(), build.nanos() / 1e9, build.rate() / 1e6, mib(build.peakRssBytes()),
              mib(build.peakHeapBytes()));
        }
        Round round = new Round(r, builds);
        rounds.add(round);
        if (builds.size() == 2) {
          out.printf("round %d spark/single = %.3f%n", r, round.ratio());
        }
      }
    } finally {
      if (spark != null) {
        spark.stop();
        SparkSession.clearActiveSession();
        SparkSession.clearDefaultSession();
      }
      FileTrees.deleteTree(settings.work());
    }
    StringBuilder summary = new StringBuilder("summary:");
    for (String side : settings.sides()) {
      summary.append(String.format(" %s %s M records/s;", side, rates(rounds, side)));
    }
    if (settings.sides().size() == 2) {
      double[] ratios = rounds.stream().mapToDouble(Round::ratio).sorted().toArray();
      summary.append(String.format(" spark/single median %.3f (min %.3f, max %.3f) over %d rounds (goal >= 0.6)",
          median(ratios), ratios[0], ratios[ratios.length - 1], ratios.length));
    }
    out.println(summary);
    return rounds;
  }

  private static Build build(SparkSession spark, Settings settings, String side, long n, String name) throws IOException {
    return side.equals("single") ? buildSingle(settings, n, name) : buildSpark(spark, settings, n, name);
  }

  private static SparkSession startSpark(Settings settings) {
    SparkSession.Builder builder = SparkSession.builder()
        .master(settings.master())
        .appName("varve-spark-build-harness")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.host", "localhost")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.local.dir", settings.work().resolve("spark-local").toString())
        .config("spark.sql.ansi.enabled", "false");
    settings.sparkConf().forEach(builder::config);
    return builder.getOrCreate();
  }

  /** Builds {@code n} records with one {@link StoreBuilder}, checks the store and deletes it. */
  static Build buildSingle(Settings settings, long n, String name) throws IOException {
    Path target = settings.work().resolve("single-" + name);
    BuildOptions options = settings.memoryBudget() > 0
        ? BuildOptions.builder().memoryBudget(settings.memoryBudget()).build()
        : BuildOptions.DEFAULTS;
    Phase phase = Phase.begin();
    try (StoreBuilder builder = StoreBuilder.create(target, options)) {
      Input input = settings.input();
      for (long i = 0; i < n; i++) {
        builder.put(input.key(i), input.value(i));
      }
      builder.build();
    }
    Build build = phase.end("single", n);
    try (Store store = Store.open(target)) {
      check(store.size() == n, "the single build holds " + store.size() + " records, not " + n);
      checkValues(settings, n, store::get);
    }
    FileTrees.deleteTree(target);
    return build;
  }

  /** Builds {@code n} records with {@link VarveSpark#write}, checks the sharded store and deletes it. */
  static Build buildSpark(SparkSession spark, Settings settings, long n, String name) throws IOException {
    Path output = settings.work().resolve("spark-" + name);
    VarveWriteOptions.Builder options = VarveWriteOptions.builder(settings.shards());
    if (settings.memoryBudget() > 0) {
      options.memoryBudget(settings.memoryBudget());
    }
    Phase phase = Phase.begin();
    Dataset<Row> rows = settings.input().rows(spark, n, settings.inputPartitions());
    ShardManifest manifest = VarveSpark.write(rows, "k", "v", output.toUri().toString(), options.build());
    Build build = phase.end("spark", n);
    check(manifest.recordCount() == n, "the Spark build's manifest counts " + manifest.recordCount() + " records, not " + n);
    try (ShardedStore store = ShardedStore.open(output)) {
      check(store.size() == n && store.shardCount() == settings.shards(),
          "the Spark build holds " + store.size() + " records in " + store.shardCount() + " shards");
      checkValues(settings, n, store::get);
    }
    FileTrees.deleteTree(output);
    return build;
  }

  /** Record {@code i} as a row of two binary columns: what each Spark task generates. */
  static final class GeneratedRecord implements MapFunction<Long, Row> {
    private static final long serialVersionUID = 1L;

    @Override
    public Row call(Long i) {
      return RowFactory.create(StoreLookupBenchmark.key(i), StoreLookupBenchmark.value(i));
    }
  }

  /** Looks up {@code checks} sampled member keys (fixed seed) and one absent key through {@code get}. */
  private static void checkValues(Settings settings, long n, java.util.function.Function<byte[], byte[]> get) {
    SplittableRandom random = new SplittableRandom(BenchmarkData.LOOKUP_SEED);
    for (int c = 0; c < settings.checks(); c++) {
      long i = random.nextLong(n);
      byte[] value = get.apply(settings.input().key(i));
      check(Arrays.equals(settings.input().value(i), value), "record " + i + " answers " + Arrays.toString(value));
    }
    check(get.apply(settings.input().key(n)) == null, "key " + n + " is no record but is found");
  }

  private static void check(boolean condition, String message) {
    if (!condition) {
      throw new IllegalStateException(message);
    }
  }

  /** A timed phase: a collection first, then the peaks of RSS and of the heap pools reset. */
  private record Phase(long start, boolean rssReset) {
    static Phase begin() {
      System.gc();
      boolean reset;
      try {
        // Linux: "5" resets this process's peak resident set size (VmHWM) to its current size.
        Files.writeString(Path.of("/proc/self/clear_refs"), "5");
        reset = true;
      } catch (IOException | UnsupportedOperationException | SecurityException e) {
        reset = false;
      }
      for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
        if (pool.getType() == MemoryType.HEAP) {
          pool.resetPeakUsage();
        }
      }
      return new Phase(System.nanoTime(), reset);
    }

    Build end(String side, long records) {
      long nanos = System.nanoTime() - start;
      long heap = 0;
      for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
        if (pool.getType() == MemoryType.HEAP) {
          heap += pool.getPeakUsage().getUsed();
        }
      }
      return new Build(side, records, nanos, rssReset ? peakRss() : -1, heap);
    }
  }

  /** VmHWM of this process in bytes, or -1. */
  private static long peakRss() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (line.startsWith("VmHWM:")) {
          return Long.parseLong(line.replaceAll("[^0-9]", "")) << 10;
        }
      }
    } catch (IOException | NumberFormatException e) {
      return -1;
    }
    return -1;
  }

  private static String mib(long bytes) {
    return bytes < 0 ? "n/a" : String.format("%,d MiB", bytes >> 20);
  }

  private static String rates(List<Round> rounds, String side) {
    return String.join(", ", rounds.stream().map(r -> String.format("%.3f", r.of(side).rate() / 1e6)).toList());
  }

  private static double median(double[] sorted) {
    int m = sorted.length / 2;
    return sorted.length % 2 == 1 ? sorted[m] : (sorted[m - 1] + sorted[m]) / 2;
  }
}
