package io.varve.benchmarks.peers;

import io.varve.benchmarks.MachineDescription;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleBiFunction;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.style.Styler;

/**
 * Writes the comparison's results: {@code RESULTS.md} (a table per dataset, the targets, the
 * machine), PNG charts beside it, and the headline table between the README's {@code <!--
 * peers:begin -->} and {@code <!-- peers:end -->} markers. Stateless.
 */
final class Report {
  static final String BEGIN = "<!-- peers:begin -->";
  static final String END = "<!-- peers:end -->";

  private Report() {}

  static void write(Measurements m, Path out, Path readme) throws IOException {
    System.setProperty("java.awt.headless", "true");
    Files.createDirectories(out);
    List<String> charts = charts(m, out);
    StringBuilder md = new StringBuilder();
    md.append("# Varve and its peers\n\n");
    md.append("Measured ").append(LocalDate.now()).append(" by `PeerComparison` (see README, \"Benchmarks against peers\"), ")
        .append(String.format(Locale.ROOT, "%.0f", m.number("*", "*", "totalMinutes"))).append(" minutes")
        .append(Double.isNaN(m.number("*", "*", "appendedMinutes")) ? ""
            : String.format(Locale.ROOT, ", then %.0f minutes measuring again with `--append`", m.number("*", "*", "appendedMinutes")))
        .append(".\n\n");
    md.append("- JDK: ").append(System.getProperty("java.vm.name")).append(' ').append(System.getProperty("java.version")).append('\n');
    md.append("- Machine: ").append(machine()).append('\n');
    md.append("- Command: `").append(m.text("*", "*", "command")).append("`\n");
    md.append("- Raw values: [`results.tsv`](results.tsv)\n\n");
    md.append(METHOD);
    for (String dataset : m.datasets()) {
      if (!dataset.equals("*")) {
        table(m, dataset, md);
      }
    }
    md.append("## Targets\n\n");
    targets(m, md);
    md.append("\n## Charts\n\n");
    for (String chart : charts) {
      md.append("![").append(chart).append("](").append(chart).append(")\n\n");
    }
    Files.writeString(out.resolve("RESULTS.md"), md.toString(), StandardCharsets.UTF_8);
    if (Files.exists(readme)) {
      String text = Files.readString(readme, StandardCharsets.UTF_8);
      int begin = text.indexOf(BEGIN);
      int end = text.indexOf(END);
      if (begin >= 0 && end > begin) {
        StringBuilder headline = new StringBuilder();
        String dataset = m.datasets().stream().filter(d -> !d.equals("*")).findFirst().orElse(null);
        if (dataset != null) {
          headline.append("\n").append(dataset).append(", from [docs/benchmarks/RESULTS.md](docs/benchmarks/RESULTS.md):\n\n");
          headlineTable(m, dataset, headline);
        }
        Files.writeString(readme, text.substring(0, begin + BEGIN.length()) + headline + text.substring(end), StandardCharsets.UTF_8);
      }
    }
  }

  private static final String METHOD =
      """
      Each system builds each dataset from the same records in the same (random) order; every
      build, cold run and update runs in its own JVM (`-Xmx8g -XX:+UseParallelGC`), and every one
      of them checks 10,000 random keys (values, and absent keys returning nothing) before its
      numbers count. Columns:

      - **build**: records per second from the first record in to a published, readable store
        (RocksDB's includes sorting the records, which its `SstFileWriter` requires, and the ingest);
        **peak RSS**: the build process's VmHWM.
      - **disk**: bytes per record of all the store's files. **index**: bits per key that must stay
        in memory for a lookup to cost one read (Varve, mph-table, sux4j: heap; PalDB, Sparkey: the
        index part of their mapped files; RocksDB: `rocksdb.estimate-table-readers-mem`, index and
        Bloom filter blocks).
      - **warm**: JMH throughput of `get` (value returned as a new array) on random member keys,
        all pages cached, 1 and 2 threads (2 cores).
      - **cold**: the lookup path first compiled on a small store of the same system, then per thread
        count: page cache dropped, disk read-ahead off (this VM's default of 8 MiB would pull a
        memory-mapped store wholly in after a few faults), the store opened, its page-cache index
        (Sparkey's hash file, PalDB's index section, mph-table's metadata) read back in, and random
        member lookups, one per eight 4 KiB pages of the store (2,000 to 20,000), on 1, 2 and 16
        threads: lookups per second and disk reads per lookup (from `/proc/diskstats`).
      - **Varve-loaded**: the files of the Varve row opened with `Store.load` (records copied into
        memory outside the heap, in 2 MiB pages) and measured warm only; its **index** column is
        everything it holds in memory, records included. It is no peer: the best peer is chosen
        among the others.
      - **update**: producing the store of base + a 10 % batch (half replacements, half new keys):
        incremental (Varve `StoreMerger`; Sparkey append + rewrite hash; RocksDB ingest of a second
        SST, no compaction) or a full rebuild (PalDB, mph-table, sux4j).

      """;

  private static void table(Measurements m, String dataset, StringBuilder md) {
    md.append("## ").append(dataset).append("\n\n");
    md.append("| system | build (records/s) | peak RSS (MiB) | disk (B/record) | index (bits/key) "
        + "| warm 1 thread (lookups/s) | warm 2 threads | cold reads/lookup | cold 1 thread (lookups/s) "
        + "| cold 2 threads | cold 16 threads | 10 % update (s) |\n");
    md.append("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|\n");
    for (String system : m.systems()) {
      if (system.equals("*") || m.text(dataset, system, "records") == null) {
        continue;
      }
      double records = m.number(dataset, system, "records");
      String failed = m.text(dataset, system, "build.failed");
      if (failed != null) {
        md.append("| ").append(system).append(" | build failed: ").append(failed.replace("|", "/")).append(" |||||||||||\n");
        continue;
      }
      md.append("| ").append(system)
          .append(" | ").append(rate(m.number(dataset, system, "build.recordsPerSecond")))
          .append(" | ").append(fixed(m.number(dataset, system, "build.peakRssBytes") / (1 << 20), 0))
          .append(" | ").append(fixed(m.number(dataset, system, "build.diskBytes") / records, 1))
          .append(" | ").append(fixed(indexBits(m, dataset, system), 2))
          .append(" | ").append(rate(m.number(dataset, system, "warm.t1")))
          .append(" | ").append(rate(m.number(dataset, system, "warm.t2")))
          .append(" | ").append(fixed(m.number(dataset, system, "cold.t1.readsPerLookup"), 2))
          .append(" | ").append(rate(m.number(dataset, system, "cold.t1.lookupsPerSecond")))
          .append(" | ").append(rate(m.number(dataset, system, "cold.t2.lookupsPerSecond")))
          .append(" | ").append(rate(m.number(dataset, system, "cold.t16.lookupsPerSecond")))
          .append(" | ").append(update(m, dataset, system))
          .append(" |\n");
    }
    md.append('\n');
    for (String system : m.systems()) {
      for (String step : List.of("warm.t1", "warm.t2", "cold", "update")) {
        String failed = m.text(dataset, system, step + ".failed");
        if (failed != null) {
          md.append("- ").append(system).append(' ').append(step).append(" failed: ").append(failed).append('\n');
        }
      }
      String note = m.text(dataset, system, "update.note");
      if (note != null) {
        md.append("- ").append(system).append(" update: ").append(note).append('\n');
      }
      for (int threads : PeerTask.COLD_THREADS) {
        if ("false".equals(m.text(dataset, system, "cold.t" + threads + ".unmapped"))) {
          md.append("- ").append(system).append(" cold: a mapping outlived its reader after the ").append(threads)
              .append("-thread run; the next run may have found some pages cached\n");
        }
      }
      String skipped = m.text(dataset, system, "cold.skipped");
      if (skipped != null) {
        md.append("- ").append(system).append(" cold: skipped, ").append(skipped.replace('_', ' ')).append('\n');
      }
    }
    md.append('\n');
  }

  private static void headlineTable(Measurements m, String dataset, StringBuilder md) {
    md.append("| system | build (records/s) | index (bits/key) | disk (B/record) | warm lookups/s (1 thread) | cold reads/lookup | 10 % update (s) |\n");
    md.append("|---|--:|--:|--:|--:|--:|---|\n");
    for (String system : m.systems()) {
      if (system.equals("*") || m.text(dataset, system, "records") == null) {
        continue;
      }
      double records = m.number(dataset, system, "records");
      md.append("| ").append(system)
          .append(" | ").append(rate(m.number(dataset, system, "build.recordsPerSecond")))
          .append(" | ").append(fixed(indexBits(m, dataset, system), 2))
          .append(" | ").append(fixed(m.number(dataset, system, "build.diskBytes") / records, 1))
          .append(" | ").append(rate(m.number(dataset, system, "warm.t1")))
          .append(" | ").append(fixed(m.number(dataset, system, "cold.t1.readsPerLookup"), 2))
          .append(" | ").append(update(m, dataset, system))
          .append(" |\n");
    }
    md.append('\n');
  }

  /** The row of Varve's store loaded into memory ({@code Store.load}), measured warm only. */
  private static final String VARVE_LOADED = VarvePeer.LOADED.name();

  /** Varve against the best peer on each dataset: the issue's two targets. */
  private static void targets(Measurements m, StringBuilder md) {
    md.append("| dataset | best peer, warm 1 thread | Varve / it (≥ 1) | its index bits/key | Varve's / its (≤ 0.125) "
        + "| Varve-loaded / it | Varve-loaded's memory / its index "
        + "| fastest peer build | Varve / it (≥ 2) |\n|---|---|--:|--:|--:|--:|--:|---|--:|\n");
    for (String dataset : m.datasets()) {
      if (dataset.equals("*") || Double.isNaN(m.number(dataset, "Varve", "build.recordsPerSecond"))) {
        continue;
      }
      String lookupPeer = best(m, dataset, (d, s) -> m.number(d, s, "warm.t1"));
      String buildPeer = best(m, dataset, (d, s) -> m.number(d, s, "build.recordsPerSecond"));
      md.append("| ").append(dataset)
          .append(" | ").append(lookupPeer)
          .append(" | ").append(fixed(m.number(dataset, "Varve", "warm.t1") / m.number(dataset, lookupPeer, "warm.t1"), 2))
          .append(" | ").append(fixed(indexBits(m, dataset, lookupPeer), 2))
          .append(" | ").append(fixed(indexBits(m, dataset, "Varve") / indexBits(m, dataset, lookupPeer), 3))
          .append(" | ").append(fixed(m.number(dataset, VARVE_LOADED, "warm.t1") / m.number(dataset, lookupPeer, "warm.t1"), 2))
          .append(" | ").append(fixed(indexBits(m, dataset, VARVE_LOADED) / indexBits(m, dataset, lookupPeer), 1))
          .append(" | ").append(buildPeer)
          .append(" | ").append(fixed(m.number(dataset, "Varve", "build.recordsPerSecond")
              / m.number(dataset, buildPeer, "build.recordsPerSecond"), 2))
          .append(" |\n");
    }
  }

  private static String best(Measurements m, String dataset, ToDoubleBiFunction<String, String> metric) {
    String best = null;
    for (String system : m.systems()) {
      double value = metric.applyAsDouble(dataset, system);
      if (!system.equals("Varve") && !system.equals("*") && m.text(dataset, system, "variantOf") == null && !Double.isNaN(value)
          && (best == null || value > metric.applyAsDouble(dataset, best))) {
        best = system;
      }
    }
    return best == null ? "-" : best;
  }

  private static double indexBits(Measurements m, String dataset, String system) {
    return 8 * m.number(dataset, system, "build.indexBytes") / m.number(dataset, system, "records");
  }

  private static String update(Measurements m, String dataset, String system) {
    double seconds = m.number(dataset, system, "update.seconds");
    String method = m.text(dataset, system, "update.method");
    if (Double.isNaN(seconds) || method == null) {
      return "-";
    }
    String how = method.equals("INCREMENTAL") ? "incremental" : "rebuild";
    return fixed(seconds, seconds < 10 ? 2 : 1) + " (" + how + (m.text(dataset, system, "update.note") != null ? ", = build" : "") + ")";
  }

  private static List<String> charts(Measurements m, Path out) throws IOException {
    List<String> names = new ArrayList<>();
    names.add(chart(m, out, "build-records-per-second.png", "Build (records/s)", false,
        (d, s) -> m.number(d, s, "build.recordsPerSecond")));
    names.add(chart(m, out, "warm-lookups-1-thread.png", "Warm lookups/s, 1 thread", false, (d, s) -> m.number(d, s, "warm.t1")));
    names.add(chart(m, out, "cold-lookups-16-threads.png", "Cold lookups/s, 16 threads", false,
        (d, s) -> m.number(d, s, "cold.t16.lookupsPerSecond")));
    names.add(chart(m, out, "index-bits-per-key.png", "Index memory (bits/key, log scale)", true, (d, s) -> indexBits(m, d, s)));
    names.add(chart(m, out, "disk-bytes-per-record.png", "Disk (bytes/record)", false,
        (d, s) -> m.number(d, s, "build.diskBytes") / m.number(d, s, "records")));
    return names;
  }

  private static String chart(
      Measurements m, Path out, String file, String title, boolean logarithmic, ToDoubleBiFunction<String, String> metric)
      throws IOException {
    CategoryChart chart = new CategoryChartBuilder().width(1000).height(500).title(title).build();
    chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE);
    chart.getStyler().setYAxisLogarithmic(logarithmic);
    if (logarithmic) {
      chart.getStyler().setYAxisMin(0.1); // bars start at the axis minimum, which a log axis cannot put at 0
    }
    chart.getStyler().setChartBackgroundColor(java.awt.Color.WHITE);
    chart.getStyler().setYAxisDecimalPattern(logarithmic ? "#,##0.#" : "#,###");
    List<String> datasets = m.datasets().stream().filter(d -> !d.equals("*")).toList();
    for (String system : m.systems()) {
      if (system.equals("*")) {
        continue;
      }
      List<Double> values = new ArrayList<>();
      for (String dataset : datasets) {
        double value = metric.applyAsDouble(dataset, system);
        values.add(Double.isNaN(value) || value <= 0 ? (logarithmic ? 0.1 : 0) : value);
      }
      chart.addSeries(system, datasets, values);
    }
    BitmapEncoder.saveBitmap(chart, out.resolve(file).toString(), BitmapEncoder.BitmapFormat.PNG);
    return file;
  }

  private static String machine() {
    return MachineDescription.processorAndMemory() + ", " + System.getProperty("os.name") + " " + System.getProperty("os.version");
  }

  private static String rate(double perSecond) {
    if (Double.isNaN(perSecond)) {
      return "-";
    }
    return perSecond >= 1e6 ? fixed(perSecond / 1e6, 2) + " M" : perSecond >= 1e3 ? fixed(perSecond / 1e3, 1) + " k" : fixed(perSecond, 0);
  }

  private static String fixed(double value, int decimals) {
    return Double.isNaN(value) || Double.isInfinite(value) ? "-" : String.format(Locale.ROOT, "%,." + decimals + "f", value);
  }

  /** {@code 10^7} for powers of ten, else the number with separators. */
  static String count(long n) {
    int exponent = 0;
    long rest = n;
    while (rest >= 10 && rest % 10 == 0) {
      rest /= 10;
      exponent++;
    }
    return rest == 1 && exponent > 1 ? "10^" + exponent : String.format(Locale.ROOT, "%,d", n);
  }
}
