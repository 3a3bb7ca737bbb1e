package io.varve.benchmarks.ycsb;

import io.varve.benchmarks.MachineDescription;
import io.varve.benchmarks.ycsb.YcsbComparison.Phase;
import io.varve.benchmarks.ycsb.YcsbComparison.Run;
import io.varve.benchmarks.ycsb.YcsbComparison.Settings;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@link YcsbComparison}'s results: {@value #MARKDOWN}, a table per phase with the setup that
 * produced it, and {@value #TSV}, one line per system and phase. Rewritten after every phase, so
 * that an interrupted run keeps what it measured. Not thread-safe.
 */
final class YcsbReport {
  static final String MARKDOWN = "RESULTS.md";
  static final String TSV = "results.tsv";
  /** The operations whose latencies are reported, in YCSB's names. */
  private static final List<String> OPERATIONS = List.of("INSERT", "READ", "UPDATE", "READ-MODIFY-WRITE");
  /** Below this many records the data fits in RAM and the run only proves the harness. */
  private static final long SMOKE_RECORDS = 10_000_000;

  private final Settings settings;
  private final String arguments;
  private final List<Run> runs = new ArrayList<>();

  YcsbReport(Settings settings, String arguments) {
    this.settings = settings;
    this.arguments = arguments;
  }

  void add(Run run) {
    runs.add(run);
  }

  void write(Path out) throws IOException {
    Files.writeString(out.resolve(MARKDOWN), markdown());
    Files.writeString(out.resolve(TSV), tsv());
  }

  String tsv() {
    StringBuilder s = new StringBuilder("system\tround\tphase\trecords\toperations\tthreads\theap\tcache_bytes\tthroughput_ops_s");
    for (String op : OPERATIONS) {
      s.append('\t').append(op.toLowerCase(Locale.ROOT)).append("_avg_us\t").append(op.toLowerCase(Locale.ROOT)).append("_p99_us");
    }
    s.append("\tfailed_ops\tpeak_rss_bytes\tram_bound_bytes\tcgroup_peak_bytes\tdisk_reads\tdisk_read_bytes\tdisk_bytes"
        + "\tseconds\topen_ms\tstore_ram_bytes\tsilt_bytes_per_entry\texit\n");
    for (Run run : runs) {
      s.append(run.system()).append('\t').append(run.round()).append('\t').append(run.phase().label()).append('\t').append(settings.records()).append('\t')
          .append(run.phase().load() ? settings.records() : settings.operations()).append('\t').append(settings.threads())
          .append('\t').append(settings.heap().of(run.system())).append('\t').append(settings.cacheBytes()).append('\t')
          .append(number(run.output().throughput(), 1));
      for (String op : OPERATIONS) {
        s.append('\t').append(number(run.output().value(op, YcsbOutput.AVERAGE), 1))
            .append('\t').append(number(run.output().value(op, YcsbOutput.P99), 0));
      }
      s.append('\t').append(run.output().failures()).append('\t').append(run.outcome().peakRssBytes())
          .append('\t').append(settings.ramBytes(run.system())).append('\t').append(run.outcome().cgroupPeakBytes())
          .append('\t').append(run.store().getOrDefault("diskReads", ""))
          .append('\t').append(run.store().getOrDefault("diskReadBytes", ""))
          .append('\t').append(run.diskBytes()).append('\t').append(number(run.outcome().seconds(), 1))
          .append('\t').append(run.store().getOrDefault("openMillis", ""))
          .append('\t').append(run.store().getOrDefault("ramBytes", ""))
          .append('\t').append(run.store().getOrDefault("memoryBytesPerEntry", ""))
          .append('\t').append(run.outcome().exit()).append('\n');
    }
    return s.toString();
  }

  String markdown() {
    StringBuilder s = new StringBuilder("# YCSB: the SILT store beside RocksDB, LMDB and Berkeley DB JE\n\n");
    if (settings.records() < SMOKE_RECORDS) {
      s.append(String.format(Locale.ROOT, "**Smoke run at %,d records, not the issue's scale (10^8 records, scaled to the "
          + "machine's disk).** At this size every store fits in the page cache, so it shows that the harness works end "
          + "to end, not how the systems compare when the data outgrows RAM.%n%n", settings.records()));
    }
    s.append("Harness: `io.varve.benchmarks.ycsb.YcsbComparison` (benchmarks module), run on ").append(LocalDate.now())
        .append(" as\n\n```bash\n./mvnw -q -B -o package -pl benchmarks -am -DskipTests\n"
            + "java -cp benchmarks/target/benchmarks.jar io.varve.benchmarks.ycsb.YcsbComparison ")
        .append(arguments).append("\n```\n\n");
    setup(s);
    siltAfterLoad(s);
    for (Phase phase : YcsbComparison.PHASES) {
      table(s, phase);
    }
    List<Run> troubled = runs.stream().filter(r -> !r.problems().isEmpty()).toList();
    if (!troubled.isEmpty()) {
      s.append("## Problems\n\n");
      troubled.forEach(r -> s.append("- ").append(r.system()).append(' ').append(r.phase().label()).append(": ")
          .append(String.join("; ", r.problems())).append('\n'));
      s.append('\n');
    }
    return s.toString();
  }

  private void setup(StringBuilder s) {
    s.append("## Setup\n\n");
    s.append("- Machine: ").append(Machine.describe(settings.work())).append(". JVM: ")
        .append(System.getProperty("java.vm.name")).append(' ').append(System.getProperty("java.version")).append(".\n");
    s.append(String.format(Locale.ROOT, "- Scale: %,d records of YCSB's default shape (10 fields of 100 bytes, keys "
        + "`user<hash>`; %,d bytes of data per record once encoded by `YcsbRecords`), %,d operations per workload, "
        + "%d client threads, the workloads' own zipfian request distribution.%n",
        settings.records(), 1080, settings.operations(), settings.threads()));
    s.append("- Phases: for each system a new store, then YCSB's load (`-load`, workload A's properties) and workloads "
        + "A (read/update 50/50), B (95/5), C (read only) and F (read/read-modify-write 50/50), each a fresh JVM "
        + "running YCSB 0.17.0's own `site.ycsb.Client` with the workload files in `benchmarks/src/main/resources/ycsb/` "
        + "(YCSB's standard properties; the jar does not ship them). Workloads run on the store the load left.\n");
    if (!settings.phases().equals(YcsbComparison.PHASES) || settings.rounds() > 1) {
      s.append("- **This run:** phases ").append(settings.phases().stream().map(Phase::label).toList())
          .append(settings.phases().stream().anyMatch(Phase::load) ? "" : ", on the stores an earlier run's load left")
          .append(settings.rounds() > 1 ? "; " + settings.rounds() + " rounds, the systems taking turns, the page cache "
              + "dropped before each turn (a row's #n is its round, and its × RocksDB is against that round's)" : "")
          .append(".\n");
    }
    ram(s);
    s.append("- Durability, the same for every system: each write reaches the operating system before it returns and "
        + "none is fsynced (SILT: its log; RocksDB: write-ahead log without sync; LMDB: a transaction per write with "
        + "`MDB_NOSYNC`; JE: auto-commit with `COMMIT_WRITE_NO_SYNC`). No compression.\n");
    s.append("- Peak RSS: the child JVM's maximum resident set, ")
        .append(YcsbChild.usesTime() ? "from `/usr/bin/time -v`" : "`VmHWM` polled every 100 ms")
        .append(". Store RAM: what the system says it holds when the phase closes it (SILT: `SiltStats.memoryBytes`, "
            + "its tables and its sorted store's index; RocksDB: block cache usage, memtables and table readers; JE: "
            + "its cache; LMDB: none to report). Disk: bytes of the files in the store's directory after the phase. "
            + "Open s: how long opening the store took; YCSB's clock, and so its throughput, includes it (the client "
            + "threads open their binding after the clock starts), so ops/s after the open divides the operations by "
            + "YCSB's run time less the open. JVM s: the "
            + "child JVM's wall time.\n");
    if (!settings.properties().isEmpty()) {
      s.append("- YCSB properties added to every phase: `").append(String.join(" ", settings.properties())).append("`.\n");
    }
    s.append('\n');
  }

  private void ram(StringBuilder s) {
    String caches = String.format(Locale.ROOT, "every binding gets the same cache budget, `varve.cacheBytes` = %,d bytes "
        + "(%d MiB): RocksDB's block cache, holding its index and filter blocks too (its two 64 MiB memtables are "
        + "outside it); JE's cache, on the Java heap; LMDB has no cache (its RAM is the page cache of its map), and "
        + "SILT none either (its RAM is its in-memory tables, which it sizes itself), so they do not use it",
        settings.cacheBytes(), settings.cacheBytes() >> 20);
    if (settings.bounded()) {
      s.append("- **RAM, bounded the same way for every system: a memory cgroup (v1) per system**, holding all its phases, "
          + "limits everything the child JVM charges: its heap, its native memory and the page cache its reads and "
          + "writes bring in. The page cache is dropped before each system's first phase, so that no pages of "
          + "another system's run are left in it uncharged. Bounds (the whole process, the JVM's own footprint "
          + "included): ").append(settings.ram()).append(" bytes; heaps `-Xmx` ").append(settings.heap())
          .append("; ").append(caches).append(". Cgroup peak: the cgroup's highest charge during the phase; ")
          .append("RAM bound: its limit.\n");
    } else {
      s.append("- **RAM, bounded the same way for every system:** every child JVM has `-Xmx").append(settings.heap())
          .append("` and the same options, and ").append(caches).append(". The page cache is not bounded (no memory "
              + "cgroup): all four read their files through it, and the pages of LMDB's map and of SILT's sorted "
              + "store, which are memory-mapped, count in their RSS once touched, while RocksDB's and JE's file "
              + "reads do not.\n");
    }
    s.append("- Disk reads / op: reads the store's disk completed between the store's open and its close (from "
        + "`/proc/diskstats`, the whole device on an otherwise idle machine), per operation of the phase. ")
        .append(settings.readAheadKib() == null ? "The disk's read-ahead was left as the machine has it."
            : "The disk's read-ahead was set to " + settings.readAheadKib() + " KiB for the run.")
        .append("\n");
  }

  private void siltAfterLoad(StringBuilder s) {
    for (Run run : runs) {
      if (run.system().equals("Silt") && run.phase().load() && !run.store().isEmpty()) {
        Map<String, String> st = run.store();
        s.append("## SILT after the load\n\n").append(String.format(Locale.ROOT,
            "Memory bytes per entry (`SiltStats.memoryBytesPerEntry`): **%s** (%s bytes in all). Where the entries "
                + "were when the load closed the store: %s in the sorted store, %s in %s hash stores, %s in %s log "
                + "stores (the one taking writes is allocated whole when it is created); %s conversions and %s merges "
                + "during the load.%n%n",
            st.get("memoryBytesPerEntry"), grouped(st.get("ramBytes")), grouped(st.get("sortedRecords")),
            grouped(st.get("hashEntries")), st.get("hashStores"), grouped(st.get("logEntries")), st.get("logStores"),
            st.get("conversions"), st.get("merges")));
      }
    }
  }

  private void table(StringBuilder s, Phase phase) {
    List<Run> rows = runs.stream().filter(r -> r.phase().equals(phase)).toList();
    if (rows.isEmpty()) {
      return;
    }
    List<String> ops = OPERATIONS.stream().filter(op -> rows.stream().anyMatch(r -> r.output().has(op))).toList();
    s.append(phase.load() ? String.format(Locale.ROOT, "## Load (%,d inserts)%n%n", settings.records())
        : String.format(Locale.ROOT, "## Workload %s (%,d operations)%n%n", phase.label(), settings.operations()));
    s.append("| System | ops/s | × RocksDB | ops/s after the open | × RocksDB |");
    ops.forEach(op -> s.append(' ').append(op).append(" avg / p99 µs |"));
    s.append(" Disk reads / op | Peak RSS MiB | RAM bound MiB | Cgroup peak MiB | Store RAM MiB | Disk MiB | Open s "
        + "| Problems | JVM s |\n|---|--:|--:|--:|--:|");
    ops.forEach(op -> s.append("--:|"));
    s.append("--:|--:|--:|--:|--:|--:|--:|--:|--:|\n");
    for (Run run : rows) {
      YcsbOutput out = run.output();
      Run rocks = rows.stream().filter(r -> r.system().equals("RocksDB") && r.round() == run.round()).findFirst()
          .orElse(null);
      s.append("| ").append(run.system()).append(settings.rounds() > 1 ? " #" + run.round() : "").append(" | ")
          .append(grouped(out.throughput())).append(" | ")
          .append(rocks == null ? "" : number(out.throughput() / rocks.output().throughput(), 2)).append(" | ")
          .append(grouped(afterOpen(run))).append(" | ")
          .append(rocks == null ? "" : number(afterOpen(run) / afterOpen(rocks), 2)).append(" |");
      for (String op : ops) {
        s.append(' ').append(number(out.value(op, YcsbOutput.AVERAGE), 0)).append(" / ")
            .append(number(out.value(op, YcsbOutput.P99), 0)).append(" |");
      }
      String ram = run.store().get("ramBytes");
      String reads = run.store().get("diskReads");
      long operations = run.phase().load() ? settings.records() : settings.operations();
      long bound = settings.ramBytes(run.system());
      s.append(' ').append(reads == null ? "?" : number(Long.parseLong(reads) / (double) operations, 3))
          .append(" | ").append(run.outcome().peakRssBytes() < 0 ? "?" : Long.toString(run.outcome().peakRssBytes() >> 20))
          .append(" | ").append(bound > 0 ? Long.toString(bound >> 20) : "none")
          .append(" | ").append(run.outcome().cgroupPeakBytes() < 0 ? "n/a" : Long.toString(run.outcome().cgroupPeakBytes() >> 20))
          .append(" | ").append(ram == null ? "?" : Long.parseLong(ram) < 0 ? "n/a" : mib(Long.parseLong(ram)))
          .append(" | ").append(run.diskBytes() >> 20)
          .append(" | ").append(run.store().containsKey("openMillis")
              ? number(Long.parseLong(run.store().get("openMillis")) / 1000.0, 1) : "?")
          .append(" | ").append(run.problems().isEmpty() ? "none" : "see below")
          .append(" | ").append(number(run.outcome().seconds(), 1)).append(" |\n");
    }
    s.append('\n');
  }

  /**
   * Throughput over the phase's operations alone: YCSB's run time less the store's open, which
   * its clock includes (NaN when the binding did not say how long the open took).
   */
  private double afterOpen(Run run) {
    String open = run.store().get("openMillis");
    double operations = run.phase().load() ? settings.records() : settings.operations();
    double seconds = operations / run.output().throughput();
    return open == null ? Double.NaN : operations / (seconds - Long.parseLong(open) / 1000.0);
  }

  private static String mib(long bytes) {
    return bytes < (10L << 20) ? number(bytes / 1048576.0, 2) : Long.toString(bytes >> 20);
  }

  private static String grouped(String count) {
    return count == null ? "?" : String.format(Locale.ROOT, "%,d", Long.parseLong(count));
  }

  private static String grouped(double value) {
    return Double.isNaN(value) ? "?" : String.format(Locale.ROOT, "%,.0f", value);
  }

  private static String number(double value, int decimals) {
    return Double.isNaN(value) ? "" : String.format(Locale.ROOT, "%." + decimals + "f", value);
  }

  /** The machine's processor, cores, RAM and the free disk at the work directory, as far as Linux tells. */
  private static final class Machine {
    static String describe(Path work) {
      String free;
      try {
        free = (Files.getFileStore(work).getUsableSpace() >> 30) + " GiB free at the work directory";
      } catch (IOException e) {
        free = "free disk unknown";
      }
      return MachineDescription.processorAndMemory() + ", " + free;
    }
  }
}
