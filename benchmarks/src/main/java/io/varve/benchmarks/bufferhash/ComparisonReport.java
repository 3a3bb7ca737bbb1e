package io.varve.benchmarks.bufferhash;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * The comparison's results: {@code results.tsv} (one line per run, every field) and
 * {@code results.md} (medians per system, ratios to the reference system within each round,
 * BufferHash's reads per lookup). Not thread-safe.
 */
final class ComparisonReport {
  /** One system's run: what {@link ComparisonTask} printed. */
  record Run(int round, StoreKind kind, long records, double loadSeconds, long ramAfterLoad, long ramAfterLookups,
      long lookups40, double lookupSeconds40, long found40, long diskBytesRead40, long[] readsPerLookup40,
      long lookups0, double lookupSeconds0, long found0, long diskBytesRead0, long[] readsPerLookup0,
      long cgroupPeak, long rssGrowth, long diskBytes) {

    static Run of(int round, StoreKind kind, Map<String, String> fields) {
      return new Run(round, kind, number(fields, "records"), Double.parseDouble(fields.get("loadSeconds")),
          number(fields, "ramAfterLoad"), number(fields, "ramAfterLookups"),
          number(fields, "lookups40"), Double.parseDouble(fields.get("lookupSeconds40")), number(fields, "found40"),
          number(fields, "diskBytesRead40"), histogram(fields.get("readsPerLookup40")),
          number(fields, "lookups0"), Double.parseDouble(fields.get("lookupSeconds0")), number(fields, "found0"),
          number(fields, "diskBytesRead0"), histogram(fields.get("readsPerLookup0")),
          fields.containsKey("cgroupPeak") ? number(fields, "cgroupPeak") : -1,
          fields.containsKey("rssGrowth") ? number(fields, "rssGrowth") : -1, number(fields, "diskBytes"));
    }

    private static long number(Map<String, String> fields, String name) {
      return Long.parseLong(fields.get(name));
    }

    private static long[] histogram(String text) {
      return text == null ? null : Arrays.stream(text.split(",")).mapToLong(Long::parseLong).toArray();
    }

    double insertsPerSecond() {
      return records / loadSeconds;
    }

    double lookupsPerSecond40() {
      return lookups40 / lookupSeconds40;
    }

    double lookupsPerSecond0() {
      return lookups0 / lookupSeconds0;
    }

    /** The system's own report of its RAM, the larger of after loading and after the lookups, or -1. */
    long ramReported() {
      return Math.max(ramAfterLoad, ramAfterLookups);
    }

    String summary() {
      return String.format(Locale.ROOT, "%s: %,.0f inserts/s, %,.0f lookups/s at 40 %% (%.1f %% found), "
              + "%,.0f at 0 %%, RAM %s B/key reported, %s B/key anonymous, cgroup peak %s B/key, %.2f KiB read "
              + "per lookup at 40 %%", kind.label, insertsPerSecond(), lookupsPerSecond40(),
          100.0 * found40 / lookups40, lookupsPerSecond0(), perKey(ramReported()), perKey(rssGrowth),
          perKey(cgroupPeak), diskBytesRead40 / 1024.0 / lookups40);
    }

    String perKey(long bytes) {
      return bytes < 0 ? "-" : String.format(Locale.ROOT, "%.2f", bytes / (double) records);
    }
  }

  private final String[] args;
  private final long ramBytes;
  private final long records;
  private final boolean bounded;
  private final List<StoreKind> systems;
  private final List<Run> runs = new ArrayList<>();
  private final List<String> failures = new ArrayList<>();

  ComparisonReport(String[] args, long ramBytes, long records, boolean bounded, List<StoreKind> systems) {
    this.args = args.clone();
    this.ramBytes = ramBytes;
    this.records = records;
    this.bounded = bounded;
    this.systems = List.copyOf(systems);
  }

  void add(Run run) {
    runs.add(run);
  }

  void addFailure(int round, StoreKind kind, String message) {
    failures.add("round " + round + ", " + kind.label + ": " + message);
  }

  void write(Path out) throws IOException {
    Files.writeString(out.resolve("results.tsv"), tsv());
    Files.writeString(out.resolve("results.md"), markdown());
  }

  private String tsv() {
    StringBuilder text = new StringBuilder("round\tsystem\trecords\tinserts_per_s\tlookups_per_s_40\tfound_40"
        + "\tlookups_per_s_0\tram_reported\tanonymous_growth\tcgroup_peak\tdisk_read_40\tdisk_read_0\tdisk_bytes"
        + "\treads_per_lookup_40\treads_per_lookup_0\n");
    for (Run run : runs) {
      text.append(String.format(Locale.ROOT, "%d\t%s\t%d\t%.0f\t%.0f\t%.4f\t%.0f\t%d\t%d\t%d\t%d\t%d\t%d\t%s\t%s%n",
          run.round(), run.kind(), run.records(), run.insertsPerSecond(), run.lookupsPerSecond40(),
          run.found40() / (double) run.lookups40(), run.lookupsPerSecond0(), run.ramReported(), run.rssGrowth(),
          run.cgroupPeak(), run.diskBytesRead40(), run.diskBytesRead0(), run.diskBytes(),
          join(run.readsPerLookup40()), join(run.readsPerLookup0())));
    }
    return text.toString();
  }

  private static String join(long[] values) {
    return values == null ? "-" : Arrays.toString(values).replace(" ", "");
  }

  private String markdown() {
    StringBuilder md = new StringBuilder();
    md.append(String.format(Locale.ROOT, "Command: `BufferHashComparison %s`. %,d records of %d + %d bytes "
            + "(%.0f MiB of keys and values), RAM %d MiB per system (%s), %s.%n%n", String.join(" ", args), records,
        Fingerprints.KEY_BYTES, Fingerprints.VALUE_BYTES, records * (double) Fingerprints.RECORD_BYTES / (1 << 20),
        ramBytes >> 20, bounded ? "bounded by a memory cgroup: the system's memory and its page cache together"
            : "NOT bounded: run with --no-cgroup", Runtime.version()));
    md.append("Medians over the rounds. RAM per key: what the system reports (cache, buffers, filters; - when it "
        + "cannot), the anonymous memory its process added (heap and native, no page cache) and the cgroup's peak "
        + "(everything, page cache included, at most the budget). Disk read: bytes this process read from the "
        + "device per lookup.\n\n");
    md.append("| system | inserts/s | lookups/s, 40 % | lookups/s, 0 % | RAM B/key reported | anonymous B/key "
        + "| cgroup peak B/key | disk read per lookup, 40 % | 0 % | disk bytes/record |\n");
    md.append("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n");
    for (StoreKind kind : systems) {
      List<Run> of = runs.stream().filter(run -> run.kind() == kind).toList();
      if (of.isEmpty()) {
        continue;
      }
      md.append(String.format(Locale.ROOT, "| %s | %,.0f | %,.0f | %,.0f | %s | %s | %s | %s | %s | %.1f |%n",
          kind.label, median(of, Run::insertsPerSecond), median(of, Run::lookupsPerSecond40),
          median(of, Run::lookupsPerSecond0), perKey(of, Run::ramReported), perKey(of, Run::rssGrowth),
          perKey(of, Run::cgroupPeak), bytes(median(of, run -> run.diskBytesRead40() / (double) run.lookups40())),
          bytes(median(of, run -> run.diskBytesRead0() / (double) run.lookups0())),
          median(of, run -> run.diskBytes() / (double) run.records())));
    }
    for (String failure : failures) {
      md.append("\nFailed: ").append(failure).append('\n');
    }
    StoreKind reference = systems.get(0);
    md.append(String.format(Locale.ROOT, "%nRatios %s / system, each round on its own (above 1: %s faster).%n%n",
        reference.label, reference.label));
    md.append("| round | system | inserts | lookups, 40 % | lookups, 0 % |\n|--:|---|--:|--:|--:|\n");
    for (Run run : runs) {
      if (run.kind() == reference) {
        continue;
      }
      runs.stream().filter(r -> r.kind() == reference && r.round() == run.round()).findFirst().ifPresent(ref ->
          md.append(String.format(Locale.ROOT, "| %d | %s | %.2f | %.2f | %.2f |%n", run.round(), run.kind().label,
              ref.insertsPerSecond() / run.insertsPerSecond(), ref.lookupsPerSecond40() / run.lookupsPerSecond40(),
              ref.lookupsPerSecond0() / run.lookupsPerSecond0())));
    }
    appendReadsPerLookup(md);
    return md.toString();
  }

  /** The paper's Table 2: the share of lookups that made 0, 1, 2, ... storage reads, all rounds together. */
  private void appendReadsPerLookup(StringBuilder md) {
    long[] at40 = new long[0];
    long[] at0 = new long[0];
    for (Run run : runs) {
      at40 = add(at40, run.readsPerLookup40());
      at0 = add(at0, run.readsPerLookup0());
    }
    if (at40.length == 0 && at0.length == 0) {
      return;
    }
    long total40 = Arrays.stream(at40).sum();
    long total0 = Arrays.stream(at0).sum();
    md.append(String.format(Locale.ROOT, "%nReads of the log per lookup (BufferHash's own count; %,d lookups at "
        + "0 %% success, %,d at 40 %%).%n%n| reads | 0 %% success | 40 %% success |%n|--:|--:|--:|%n", total0,
        total40));
    for (int reads = 0; reads < Math.max(at40.length, at0.length); reads++) {
      long c0 = reads < at0.length ? at0[reads] : 0;
      long c40 = reads < at40.length ? at40[reads] : 0;
      if (c0 + c40 > 0) {
        // BufferHash's last bucket counts that many reads or more.
        String label = reads == Math.max(at40.length, at0.length) - 1 ? "≥ " + reads : Integer.toString(reads);
        md.append(String.format(Locale.ROOT, "| %s | %.5f | %.5f |%n", label, c0 / (double) Math.max(1, total0),
            c40 / (double) Math.max(1, total40)));
      }
    }
  }

  private static long[] add(long[] sum, long[] more) {
    if (more == null) {
      return sum;
    }
    long[] result = Arrays.copyOf(sum, Math.max(sum.length, more.length));
    for (int i = 0; i < more.length; i++) {
      result[i] += more[i];
    }
    return result;
  }

  private static double median(List<Run> of, ToDoubleFunction<Run> value) {
    double[] values = of.stream().mapToDouble(value).sorted().toArray();
    int middle = values.length / 2;
    return values.length % 2 == 1 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
  }

  private static String perKey(List<Run> of, ToDoubleFunction<Run> bytes) {
    double median = median(of, bytes);
    return median < 0 ? "-" : String.format(Locale.ROOT, "%.2f", median / of.get(0).records());
  }

  private static String bytes(double value) {
    return value < 1024 ? String.format(Locale.ROOT, "%.0f B", value)
        : String.format(Locale.ROOT, "%.1f KiB", value / 1024);
  }
}
