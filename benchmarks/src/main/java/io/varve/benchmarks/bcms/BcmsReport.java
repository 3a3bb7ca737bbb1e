package io.varve.benchmarks.bcms;

import io.varve.benchmarks.bcms.BcmsExperiment.ErrorRow;
import io.varve.benchmarks.bcms.BcmsExperiment.SpeedRow;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Writes the BCMS experiment's {@code results.tsv} (every raw figure, readable back), {@code
 * RESULTS.md} (the paper's Figure 5 as a table, Figures 3 and 4 as one table with ratios and I/Os
 * per operation) and the README's headline table between {@code <!-- bcms:begin -->} and {@code
 * <!-- bcms:end -->}. Stateless.
 */
final class BcmsReport {
  static final String BEGIN = "<!-- bcms:begin -->";
  static final String END = "<!-- bcms:end -->";
  private static final String TSV = "results.tsv";

  private BcmsReport() {}

  static void write(Path out, Path readme, List<ErrorRow> errors, List<SpeedRow> speeds, long ram, int pageBytes,
      String[] args) throws IOException {
    StringBuilder tsv = new StringBuilder();
    tsv.append("# command\t").append(String.join(" ", args)).append('\n')
        .append("# date\t").append(LocalDate.now()).append('\n')
        .append("# machine\t").append(Runtime.getRuntime().availableProcessors()).append(" cores, JDK ")
        .append(System.getProperty("java.version")).append('\n')
        .append("# ram\t").append(ram).append('\n')
        .append("# page\t").append(pageBytes).append('\n');
    for (ErrorRow row : errors) {
      tsv.append(String.format(Locale.ROOT, "error\t%s\t%s\t%s\t%d\t%.6f\t%d\t%.6f%n", row.size(), row.kind(),
          row.conservative(), row.items(), row.average(), row.maximum(), row.exactShare()));
    }
    for (SpeedRow row : speeds) {
      tsv.append(String.format(Locale.ROOT, "speed\t%s\t%d\t%s\t%s\t%d\t%.3f\t%.3f\t%d\t%d\t%d%n", row.size(),
          row.ratio(), row.kind(), row.operation(), row.ops(), row.seconds(), row.flushSeconds(), row.reads(),
          row.writes(), row.ramPeak()));
    }
    Files.writeString(out.resolve(TSV), tsv, StandardCharsets.UTF_8);
    rewrite(out, readme);
  }

  /** Writes RESULTS.md and the README table from {@code results.tsv} in {@code out}. */
  static void rewrite(Path out, Path readme) throws IOException {
    List<ErrorRow> errors = new ArrayList<>();
    List<SpeedRow> speeds = new ArrayList<>();
    String command = "";
    String date = "";
    String machine = "";
    long ram = 0;
    int pageBytes = 4096;
    for (String line : Files.readAllLines(out.resolve(TSV), StandardCharsets.UTF_8)) {
      String[] f = line.split("\t");
      switch (f[0]) {
        case "# command": command = f.length > 1 ? f[1] : ""; break;
        case "# date": date = f[1]; break;
        case "# machine": machine = f[1]; break;
        case "# ram": ram = Long.parseLong(f[1]); break;
        case "# page": pageBytes = Integer.parseInt(f[1]); break;
        case "error":
          errors.add(new ErrorRow(f[1], SketchKind.valueOf(f[2]), Boolean.parseBoolean(f[3]), Long.parseLong(f[4]),
              Double.parseDouble(f[5]), Long.parseLong(f[6]), Double.parseDouble(f[7])));
          break;
        case "speed":
          speeds.add(new SpeedRow(f[1], Integer.parseInt(f[2]), SketchKind.valueOf(f[3]), f[4], Long.parseLong(f[5]),
              Double.parseDouble(f[6]), Double.parseDouble(f[7]), Long.parseLong(f[8]), Long.parseLong(f[9]),
              Long.parseLong(f[10])));
          break;
        default:
          throw new IllegalArgumentException("unexpected line in " + TSV + ": " + line);
      }
    }
    StringBuilder md = new StringBuilder();
    md.append("# Buffered Count-Min Sketch: the paper's evaluation, reproduced\n\n")
        .append("Measured ").append(date).append(" (").append(machine).append(") with\n`")
        .append("java -Xmx6g -cp benchmarks/target/benchmarks.jar io.varve.benchmarks.bcms.BcmsExperiment ")
        .append(command).append("`.\n\n")
        .append("Configurations of the paper's Table 1: 64-bit counters, depth 5 (δ = 0.01), width = cells / 5, ")
        .append("and n = cells · 8 / (5e) distinct items, so that εn = 8. BCMS pages are ").append(pageBytes >> 10)
        .append(" KiB (").append(pageBytes / (5 * 8)).append(" columns of 5 counters).\n\n");
    md.append("## Overestimates over all inserted items (paper Figure 5)\n\n")
        .append("Every item was inserted once (true count 1) and then estimated.\n\n")
        .append("| size | items | update | CMS average | BCMS average | BCMS / CMS | CMS max | BCMS max | CMS exact | BCMS exact |\n")
        .append("|---|--:|---|--:|--:|--:|--:|--:|--:|--:|\n");
    for (ErrorRow cms : errors) {
      ErrorRow bcms = errors.stream().filter(r -> r.kind() == SketchKind.BCMS && r.size().equals(cms.size())
          && r.conservative() == cms.conservative()).findFirst().orElse(null);
      if (cms.kind() != SketchKind.CMS || bcms == null) {
        continue;
      }
      md.append(String.format(Locale.ROOT, "| %s | %,d | %s | %.4f | %.4f | %.4f | %d | %d | %.2f %% | %.2f %% |%n",
          cms.size(), cms.items(), cms.conservative() ? "conservative" : "plain", cms.average(), bcms.average(),
          bcms.average() / cms.average(), cms.maximum(), bcms.maximum(), 100 * cms.exactShare(),
          100 * bcms.exactShare()));
    }
    md.append(overestimateSummary(errors));
    if (speeds.isEmpty()) {
      Files.writeString(out.resolve("RESULTS.md"), md, StandardCharsets.UTF_8);
      return;
    }
    md.append("\n## Throughput with RAM bounded (paper Figures 3 and 4)\n\n")
        .append("RAM is bounded by a memory cgroup (v1) per run: after JIT warm-up the run empties its cgroup's ")
        .append("page cache and sets the cgroup's limit to its own charge plus ").append(ram >> 20)
        .append(" MiB, so page cache, mappings and sketch buffers together stay within that. The page cache is ")
        .append("dropped before each run and the disk's read-ahead is off during it (a fault or a read fetches ")
        .append("one page, as the paper's I/O model counts). Inserts add new distinct items to the filled ")
        .append("sketch; queries ask for uniformly random 64-bit items, as in the paper. CMS inserts are timed ")
        .append("without their final flush (which writes the dirty pages and checksums the whole file; shown ")
        .append("apart), BCMS inserts with theirs (every buffered update applied and forced to disk). BCMS ")
        .append("inserts use 7/8 of the RAM as update buffers; queries run in a new process without buffers. ")
        .append("I/Os are reads plus writes completed by the disk (`/proc/diskstats`) per operation.\n\n")
        .append("| size | RAM:sketch | operation | CMS ops/s | BCMS ops/s | BCMS / CMS | CMS I/Os per op | BCMS I/Os per op | CMS flush s | BCMS flush s |\n")
        .append("|---|---|---|--:|--:|--:|--:|--:|--:|--:|\n");
    StringBuilder headline = new StringBuilder("\n| sketch | RAM:sketch | inserts/s CMS → BCMS | I/Os per insert | "
        + "queries/s CMS → BCMS | I/Os per query | average overestimate CMS / BCMS |\n|---|---|--:|--:|--:|--:|--:|\n");
    for (SpeedRow cmsInsert : speeds) {
      if (cmsInsert.kind() != SketchKind.CMS || !cmsInsert.operation().equals("insert")) {
        continue;
      }
      SpeedRow bcmsInsert = find(speeds, cmsInsert.size(), SketchKind.BCMS, "insert");
      SpeedRow cmsQuery = find(speeds, cmsInsert.size(), SketchKind.CMS, "query");
      SpeedRow bcmsQuery = find(speeds, cmsInsert.size(), SketchKind.BCMS, "query");
      for (SpeedRow[] pair : new SpeedRow[][] {{cmsInsert, bcmsInsert}, {cmsQuery, bcmsQuery}}) {
        if (pair[0] != null && pair[1] != null) {
          md.append(String.format(Locale.ROOT, "| %s | 1:%d | %s | %,.0f | %,.0f | **%.1f×** | %.3f | %.4f | %.1f | %.1f |%n",
              pair[0].size(), pair[0].ratio(), pair[0].operation(), pair[0].perSecond(), pair[1].perSecond(),
              pair[1].perSecond() / pair[0].perSecond(), pair[0].iosPerOp(), pair[1].iosPerOp(),
              pair[0].flushSeconds(), pair[1].flushSeconds()));
        }
      }
      ErrorRow cmsError = errors.stream().filter(r -> r.kind() == SketchKind.CMS && !r.conservative()
          && r.size().equals(cmsInsert.size())).findFirst().orElse(null);
      ErrorRow bcmsError = errors.stream().filter(r -> r.kind() == SketchKind.BCMS && !r.conservative()
          && r.size().equals(cmsInsert.size())).findFirst().orElse(null);
      if (bcmsInsert != null && cmsQuery != null && bcmsQuery != null) {
        headline.append(String.format(Locale.ROOT, "| %s | 1:%d | %,.0f → %,.0f (**%.0f×**) | %.2f → %.4f | "
                + "%,.0f → %,.0f (**%.1f×**) | %.2f → %.2f | %s |%n",
            cmsInsert.size(), cmsInsert.ratio(), cmsInsert.perSecond(), bcmsInsert.perSecond(),
            bcmsInsert.perSecond() / cmsInsert.perSecond(), cmsInsert.iosPerOp(), bcmsInsert.iosPerOp(),
            cmsQuery.perSecond(), bcmsQuery.perSecond(), bcmsQuery.perSecond() / cmsQuery.perSecond(),
            cmsQuery.iosPerOp(), bcmsQuery.iosPerOp(),
            cmsError == null || bcmsError == null ? "–"
                : String.format(Locale.ROOT, "%.3f / %.3f", cmsError.average(), bcmsError.average())));
      }
    }
    Files.writeString(out.resolve("RESULTS.md"), md, StandardCharsets.UTF_8);
    if (readme != null && Files.exists(readme)) {
      String text = Files.readString(readme, StandardCharsets.UTF_8);
      int begin = text.indexOf(BEGIN);
      int end = text.indexOf(END);
      if (begin < 0 || end < begin) {
        throw new IllegalStateException(readme + " has no " + BEGIN + " ... " + END + " markers");
      }
      Files.writeString(readme, text.substring(0, begin + BEGIN.length()) + headline + text.substring(end),
          StandardCharsets.UTF_8);
    }
  }

  /** How far BCMS's overestimates are from CMS's, over all sizes. */
  private static String overestimateSummary(List<ErrorRow> errors) {
    double[] plain = {Double.MAX_VALUE, 0};
    double[] conservative = {Double.MAX_VALUE, 0};
    long maxGap = 0;
    for (ErrorRow cms : errors) {
      for (ErrorRow bcms : errors) {
        if (cms.kind() == SketchKind.CMS && bcms.kind() == SketchKind.BCMS && cms.size().equals(bcms.size())
            && cms.conservative() == bcms.conservative()) {
          double[] range = cms.conservative() ? conservative : plain;
          double ratio = bcms.average() / cms.average();
          range[0] = Math.min(range[0], ratio);
          range[1] = Math.max(range[1], ratio);
          maxGap = Math.max(maxGap, Math.abs(bcms.maximum() - cms.maximum()));
        }
      }
    }
    if (plain[1] == 0) {
      return "";
    }
    return String.format(Locale.ROOT, "%nThe maxima differ by at most %d. BCMS's average overestimate is %+.2f to %+.2f %% "
            + "off CMS's with plain updates and %+.2f to %+.2f %% with conservative ones (README, \"Count-min sketches "
            + "larger than RAM\", says where the difference comes from).%n",
        maxGap, 100 * (plain[0] - 1), 100 * (plain[1] - 1), 100 * (conservative[0] - 1), 100 * (conservative[1] - 1));
  }

  private static SpeedRow find(List<SpeedRow> speeds, String size, SketchKind kind, String operation) {
    return speeds.stream().filter(r -> r.size().equals(size) && r.kind() == kind && r.operation().equals(operation))
        .findFirst().orElse(null);
  }
}
