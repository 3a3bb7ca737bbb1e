package io.varve.benchmarks.bcms;

import io.varve.bcms.FrequencySketch;
import io.varve.benchmarks.HarnessArguments;
import io.varve.benchmarks.cgroup.ChildJvm;
import io.varve.benchmarks.cgroup.MemoryCgroup;
import io.varve.benchmarks.peers.ProcessStats;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Reproduces the evaluation of the Buffered Count-Min Sketch paper (section 5) for Varve's two
 * sketches: the overestimates of Figure 5 over the configurations of Table 1, then the insert and
 * query throughput of Figures 3 and 4 with RAM bounded by a memory cgroup at RAM:sketch 1:2, 1:4,
 * 1:8 and 1:16. Writes {@code results.tsv} and {@code RESULTS.md} to the output directory.
 *
 * <pre>
 * java -Xmx6g -cp benchmarks/target/benchmarks.jar io.varve.benchmarks.bcms.BcmsExperiment \
 *     --work /tmp/varve-bcms --out docs/benchmarks/bcms [--ram-mib 64] [--sizes-mib 128,256,512,1024]
 *     [--insert-seconds 60] [--query-seconds 60] [--page-kib 4] [--skip-error] [--skip-speed] [--readme README.md]
 * </pre>
 *
 * {@code --report-only} rewrites {@code RESULTS.md} (and the README table) from {@code results.tsv}.
 *
 * The speed runs need root on Linux with the cgroup v1 memory controller (they make a cgroup per
 * run, drop the page cache before each, and switch the disk's read-ahead off for the run so that
 * a page fault or a page read fetches one page, as the paper's I/O model counts). Error runs need
 * none of that.
 */
public final class BcmsExperiment {
  private BcmsExperiment() {}

  /** Average and maximum overestimate of one sketch over all inserted items. */
  record ErrorRow(String size, SketchKind kind, boolean conservative, long items, double average, long maximum,
      double exactShare) {}

  /** Throughput and disk I/Os of one timed run. */
  record SpeedRow(String size, int ratio, SketchKind kind, String operation, long ops, double seconds,
      double flushSeconds, long reads, long writes, long ramPeak) {

    /**
     * Operations per second of the timed part: for CMS inserts the loop alone (their flush, which
     * also checksums the whole file, is reported apart), for BCMS inserts loop and flush.
     */
    double perSecond() {
      boolean flushApart = kind == SketchKind.CMS && operation.equals("insert");
      return ops / (flushApart ? seconds - flushSeconds : seconds);
    }

    double iosPerOp() {
      return (reads + writes) / (double) ops;
    }
  }

  public static void main(String[] args) throws Exception {
    Map<String, String> options = parse(args);
    Path work = Path.of(options.getOrDefault("work", "/tmp/varve-bcms"));
    Path out = Path.of(options.getOrDefault("out", "docs/benchmarks/bcms"));
    Path readme = options.containsKey("readme") ? Path.of(options.get("readme")) : null;
    long ram = Long.parseLong(options.getOrDefault("ram-mib", "64")) << 20;
    int pageBytes = Integer.parseInt(options.getOrDefault("page-kib", "4")) << 10;
    List<PaperConfiguration> configurations = new ArrayList<>();
    for (String size : options.getOrDefault("sizes-mib", "128,256,512,1024").split(",")) {
      configurations.add(PaperConfiguration.ofSize(Long.parseLong(size.trim()) << 20, pageBytes));
    }
    double insertSeconds = Double.parseDouble(options.getOrDefault("insert-seconds", "60"));
    double querySeconds = Double.parseDouble(options.getOrDefault("query-seconds", "60"));
    Files.createDirectories(work);
    Files.createDirectories(out);
    if (options.containsKey("report-only")) {
      BcmsReport.rewrite(out, readme);
      return;
    }

    List<ErrorRow> errors = new ArrayList<>();
    List<SpeedRow> speeds = new ArrayList<>();
    for (PaperConfiguration configuration : configurations) {
      if (!options.containsKey("skip-error")) {
        errors.addAll(measureErrors(configuration, work, false));
        errors.addAll(measureErrors(configuration, work, true));
      } else {
        for (SketchKind kind : SketchKind.values()) {
          fill(kind, configuration, sketchFile(work, kind, configuration, false), false);
        }
      }
      if (!options.containsKey("skip-speed")) {
        speeds.addAll(measureSpeed(configuration, work, ram, insertSeconds, querySeconds));
      }
      for (SketchKind kind : SketchKind.values()) {
        Files.deleteIfExists(sketchFile(work, kind, configuration, false));
      }
      BcmsReport.write(out, readme, errors, speeds, ram, pageBytes, args);
    }
  }

  private static Path sketchFile(Path work, SketchKind kind, PaperConfiguration configuration, boolean conservative) {
    return work.resolve(kind.name().toLowerCase(Locale.ROOT) + "-" + (configuration.sizeBytes() >> 20) + "m"
        + (conservative ? "-cu" : "") + ".sketch");
  }

  /** Fills both sketches with Table 1's items, then estimates every item (true count 1). */
  private static List<ErrorRow> measureErrors(PaperConfiguration configuration, Path work, boolean conservative)
      throws Exception {
    List<ErrorRow> rows = new ArrayList<>();
    for (SketchKind kind : SketchKind.values()) {
      fill(kind, configuration, sketchFile(work, kind, configuration, conservative), conservative);
    }
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      List<Future<ErrorRow>> futures = new ArrayList<>();
      for (SketchKind kind : SketchKind.values()) {
        Path file = sketchFile(work, kind, configuration, conservative);
        futures.add(pool.submit(() -> overestimates(kind, configuration, file, conservative)));
      }
      for (Future<ErrorRow> future : futures) {
        ErrorRow row = future.get();
        System.out.printf(Locale.ROOT, "%s %s%s: average overestimate %.4f, maximum %d, exact %.2f%%%n",
            row.size(), row.kind().label, conservative ? " conservative" : "", row.average(), row.maximum(),
            100 * row.exactShare());
        rows.add(row);
      }
    } finally {
      pool.shutdown();
    }
    if (conservative) {
      for (SketchKind kind : SketchKind.values()) {
        Files.deleteIfExists(sketchFile(work, kind, configuration, true));
      }
    }
    return rows;
  }

  private static void fill(SketchKind kind, PaperConfiguration configuration, Path file, boolean conservative)
      throws IOException {
    Files.deleteIfExists(file);
    long start = System.nanoTime();
    long budget = Math.min(configuration.sizeBytes(), 1L << 30);
    try (FrequencySketch sketch = kind.create(file, configuration.parameters(conservative), budget)) {
      for (long i = 0; i < configuration.items(); i++) {
        sketch.update(PaperConfiguration.item(i));
      }
    }
    System.out.printf(Locale.ROOT, "filled %s %s%s with %,d items in %.1f s%n", configuration.sizeLabel(),
        kind.label, conservative ? " (conservative)" : "", configuration.items(), (System.nanoTime() - start) / 1e9);
  }

  private static ErrorRow overestimates(SketchKind kind, PaperConfiguration configuration, Path file,
      boolean conservative) {
    long sum = 0;
    long max = 0;
    long exact = 0;
    try (FrequencySketch sketch = kind.open(file, 0)) {
      for (long i = 0; i < configuration.items(); i++) {
        long over = sketch.estimate(PaperConfiguration.item(i)) - 1;
        if (over < 0) {
          throw new AssertionError(kind + " underestimated item " + i);
        }
        sum += over;
        max = Math.max(max, over);
        exact += over == 0 ? 1 : 0;
      }
    }
    return new ErrorRow(configuration.sizeLabel(), kind, conservative, configuration.items(),
        sum / (double) configuration.items(), max, exact / (double) configuration.items());
  }

  private static List<SpeedRow> measureSpeed(PaperConfiguration configuration, Path work, long ram,
      double insertSeconds, double querySeconds) throws Exception {
    List<SpeedRow> rows = new ArrayList<>();
    int ratio = (int) Math.round(configuration.sizeBytes() / (double) ram);
    String oldReadAhead = ProcessStats.setReadAheadKib(work, "0");
    try {
      for (SketchKind kind : SketchKind.values()) {
        Path file = sketchFile(work, kind, configuration, false);
        long bufferBytes = kind == SketchKind.BCMS ? ram / 8 * 7 : 0;
        // Enough inserts to fill every page buffer three times over, so that the window is in the
        // steady state of page flushes, not the first, I/O-free filling of the buffers.
        long minInserts = kind == SketchKind.BCMS ? 3 * bufferBytes / 8 : 0;
        rows.add(runTask(configuration, ratio, kind, file, "insert", insertSeconds, minInserts, ram, bufferBytes,
            configuration.items()));
        rows.add(runTask(configuration, ratio, kind, file, "query", querySeconds, 0, ram, 0, 77));
      }
    } finally {
      if (oldReadAhead != null) {
        ProcessStats.setReadAheadKib(work, oldReadAhead);
      }
    }
    return rows;
  }

  private static SpeedRow runTask(PaperConfiguration configuration, int ratio, SketchKind kind, Path file,
      String operation, double seconds, long minOps, long ram, long bufferBytes, long firstItem) throws Exception {
    if (!ProcessStats.dropPageCache()) {
      throw new IllegalStateException("cannot drop the page cache: the speed runs need root");
    }
    String name = kind.name().toLowerCase(Locale.ROOT) + "-" + operation;
    try (MemoryCgroup cgroup = MemoryCgroup.create("varve-bcms", name)) {
      Map<String, String> result = ChildJvm.run(cgroup, List.of("-Xms32m", "-Xmx256m", "-XX:+UseSerialGC"),
          SketchSpeedTask.class, List.of(kind.name(), file.toString(), operation, Double.toString(seconds),
              Long.toString(minOps), Long.toString(ram), Long.toString(bufferBytes), Long.toString(firstItem),
              cgroup.dir().toString()));
      SpeedRow row = new SpeedRow(configuration.sizeLabel(), ratio, kind, operation, Long.parseLong(result.get("ops")),
          Double.parseDouble(result.get("seconds")), Double.parseDouble(result.get("flushSeconds")),
          Long.parseLong(result.get("reads")), Long.parseLong(result.get("writes")),
          Long.parseLong(result.get("ramPeak")));
      System.out.printf(Locale.ROOT, "%s 1:%d %s %s: %,.0f ops/s (%,d ops in %.1f s, flush %.1f s), %.3f I/Os per op, "
              + "RAM peak %.1f MiB%n", row.size(), ratio, kind.label, operation, row.perSecond(), row.ops(),
          row.seconds(), row.flushSeconds(), row.iosPerOp(), row.ramPeak() / 1048576.0);
      return row;
    }
  }

  private static Map<String, String> parse(String[] args) {
    return HarnessArguments.parse(args, name -> name.startsWith("skip-") || name.equals("report-only"));
  }

}
