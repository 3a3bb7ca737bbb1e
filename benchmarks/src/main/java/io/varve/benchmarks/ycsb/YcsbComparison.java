package io.varve.benchmarks.ycsb;

import io.varve.benchmarks.HarnessArguments;
import io.varve.benchmarks.WorkDirectory;
import io.varve.benchmarks.cgroup.MemoryCgroup;
import io.varve.benchmarks.peers.ProcessStats;
import io.varve.core.files.FileTrees;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * YCSB against the SILT store, RocksDB, LMDB and Berkeley DB JE in one run, with YCSB's own
 * {@code site.ycsb.Client}, its standard workloads A, B, C and F (the files in {@code ycsb/} of
 * this module's resources) and the bindings of this package.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.varve.benchmarks.ycsb.YcsbComparison \
 *     --records 200000 --operations 200000 --threads 2 [--systems Silt,RocksDB,LMDB,JE] \
 *     [--work /tmp/varve-ycsb] [--out docs/benchmarks/ycsb] [--heap 2g[,Silt=256m]] [--cache-bytes 256m] \
 *     [--ram 2g[,Silt=500m]] [--read-ahead-kib 128] [--properties silt.hashStoresPerMerge=4,...] [--keep] \
 *     [--phases load,A,B,C,F] [--rounds 1]
 * </pre>
 *
 * For each system, in this order: a new store, then five phases, each a fresh JVM running YCSB's
 * Client: the load ({@code -load} with workload A's properties, {@code recordcount} records),
 * then workloads A, B, C and F ({@code operationcount} operations each) on the loaded store.
 * Every JVM gets the same {@code -Xmx} and the same cache budget ({@code varve.cacheBytes}, which
 * each binding applies as its Javadoc says); its peak RSS ({@link YcsbChild}), the store
 * directory's bytes after the phase and what the store says it holds in RAM ({@value
 * KeyValueDb#STATS_PREFIX} lines) are recorded. {@code --properties} are passed to every phase as
 * YCSB {@code -p} properties. Writes {@code RESULTS.md} and {@code results.tsv} to {@code --out}
 * after every phase, and the phases' output to {@code --work}/logs. The store directory is
 * deleted after its system's last phase unless {@code --keep}.
 *
 * <p>{@code --ram} bounds each system's phases with a memory cgroup (root, cgroup v1): the JVM,
 * its native allocations and the page cache it brings in together, so that a store larger than
 * the bound is read from disk. {@code --heap} and {@code --ram} take a value for every system,
 * optionally followed by {@code System=value} exceptions. {@code --read-ahead-kib} sets the disk's
 * read-ahead for the run (and restores it).
 *
 * <p>{@code --phases} runs some of the phases (in their usual order); without the load, on the
 * stores a run with {@code --keep} left. {@code --rounds} repeats the phases, the systems taking
 * turns, each turn starting with the page cache dropped, for runs compared side by side on a
 * noisy machine.
 *
 * <p>Not thread-safe; one run per process.
 */
public final class YcsbComparison {
  /** The systems and their bindings, in the default order. */
  static final Map<String, Class<?>> BINDINGS = new LinkedHashMap<>();

  static {
    BINDINGS.put("Silt", SiltBinding.class);
    BINDINGS.put("RocksDB", RocksDbBinding.class);
    BINDINGS.put("LMDB", LmdbBinding.class);
    BINDINGS.put("JE", JeBinding.class);
  }

  /** A phase: its label, its workload file and whether it is YCSB's load. */
  record Phase(String label, String workload, boolean load) {}

  static final List<Phase> PHASES = List.of(
      new Phase("load", "workloada", true),
      new Phase("A", "workloada", false),
      new Phase("B", "workloadb", false),
      new Phase("C", "workloadc", false),
      new Phase("F", "workloadf", false));

  /**
   * The same for every system: the packages lmdbjava and Chronicle Bytes (under the SILT store's
   * sorted store) reach into, and native access for RocksDB and LMDB.
   */
  static final List<String> JVM_OPTIONS = List.of(
      "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED", "--add-exports=java.base/sun.nio.ch=ALL-UNNAMED",
      "--add-exports=java.base/jdk.internal.ref=ALL-UNNAMED", "--add-opens=java.base/java.io=ALL-UNNAMED",
      "--add-opens=java.base/java.nio=ALL-UNNAMED", "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
      "--enable-native-access=ALL-UNNAMED");

  /**
   * One phase of one system, measured; {@code problems} says what makes its numbers suspect (none
   * when the phase ran every operation cleanly).
   */
  record Run(String system, int round, Phase phase, YcsbOutput output, YcsbChild.Outcome outcome, long diskBytes,
      Map<String, String> store, List<String> problems) {}

  private YcsbComparison() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> options = HarnessArguments.parse(args, name -> name.equals("keep"));
    Settings settings = Settings.of(options);
    Path work = settings.work();
    Path logs = work.resolve("logs");
    Files.createDirectories(logs);
    Files.createDirectories(settings.out());
    Path workloads = copyWorkloads(work.resolve("workloads"));
    String oldReadAhead = settings.readAheadKib() == null ? null : ProcessStats.setReadAheadKib(work, settings.readAheadKib());
    if (settings.readAheadKib() != null && oldReadAhead == null) {
      throw new IllegalStateException("cannot set the read-ahead of the disk under " + work + " (not root?)");
    }
    try {
      YcsbReport report = new YcsbReport(settings, String.join(" ", args));
      for (int round = 1; round <= settings.rounds(); round++) {
        for (String system : settings.systems()) {
          runSystem(settings, system, round, workloads, logs, report);
        }
      }
      System.out.println("wrote " + settings.out().resolve(YcsbReport.MARKDOWN) + " and " + YcsbReport.TSV);
    } finally {
      if (oldReadAhead != null) {
        ProcessStats.setReadAheadKib(work, oldReadAhead);
      }
    }
  }

  /**
   * The phases of one system, on a new store. With a RAM bound they all run in one memory cgroup,
   * so that the page cache a phase leaves stays charged to the system for the next one; the page
   * cache is dropped first, so that no other system's pages are left uncharged in it.
   */
  private static void runSystem(Settings settings, String system, int round, Path workloads, Path logs,
      YcsbReport report) throws IOException, InterruptedException {
    Path dir = settings.work().resolve(system.toLowerCase(Locale.ROOT));
    boolean loads = settings.phases().stream().anyMatch(Phase::load);
    if (loads) {
      FileTrees.deleteTree(dir);
    } else if (!Files.isDirectory(dir)) {
      throw new IllegalStateException("no load among --phases and no store in " + dir + " (left by a run with --keep)");
    }
    MemoryCgroup cgroup = null;
    try {
      long ram = settings.ramBytes(system);
      if (ram > 0) {
        if (!ProcessStats.dropPageCache()) {
          throw new IllegalStateException("--ram needs root: cannot drop the page cache");
        }
        cgroup = MemoryCgroup.create("varve-ycsb", system.toLowerCase(Locale.ROOT));
        cgroup.limitTo(ram);
      }
      for (Phase phase : settings.phases()) {
        Run run = runPhase(settings, system, round, phase, dir, workloads, logs, cgroup);
        report.add(run);
        report.write(settings.out());
        System.out.printf(Locale.ROOT, "%-7s %-4s %,10.0f ops/s  peak RSS %,6d MiB  cgroup peak %,6d MiB  disk %,7d MiB"
                + "  %6.1f s%s%n",
            system, phase.label(), run.output().throughput(), run.outcome().peakRssBytes() >> 20,
            run.outcome().cgroupPeakBytes() >> 20, run.diskBytes() >> 20, run.outcome().seconds(),
            run.problems().isEmpty() ? "" : "  PROBLEMS: " + String.join("; ", run.problems()));
        if (run.outcome().exit() != 0 || (phase.load() && !run.problems().isEmpty())) {
          break; // a store not (fully) loaded: the later phases would measure nothing sensible
        }
      }
    } finally {
      if (!settings.keep() && round == settings.rounds()) {
        FileTrees.deleteTree(dir);
      }
      if (cgroup != null) {
        cgroup.close();
      }
    }
  }

  private static Run runPhase(Settings settings, String system, int round, Phase phase, Path dir, Path workloads,
      Path logs, MemoryCgroup cgroup) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-Xmx" + settings.heap().of(system));
    command.addAll(JVM_OPTIONS);
    command.addAll(List.of("-cp", System.getProperty("java.class.path"), "site.ycsb.Client",
        phase.load() ? "-load" : "-t", "-s",
        "-db", BINDINGS.get(system).getName(),
        "-P", workloads.resolve(phase.workload()).toString(),
        "-threads", Integer.toString(settings.threads()),
        "-p", "recordcount=" + settings.records(),
        "-p", "operationcount=" + settings.operations(),
        "-p", KeyValueDb.DIRECTORY_PROPERTY + "=" + dir,
        "-p", KeyValueDb.CACHE_BYTES_PROPERTY + "=" + settings.cacheBytes()));
    for (String property : settings.properties()) {
      command.addAll(List.of("-p", property));
    }
    String name = system.toLowerCase(Locale.ROOT) + "-" + phase.label() + (settings.rounds() > 1 ? "-" + round : "");
    Path stdout = logs.resolve(name + ".out");
    Path stderr = logs.resolve(name + ".err");
    YcsbChild.Outcome outcome = YcsbChild.run(command, stdout, stderr, cgroup);
    YcsbOutput output = YcsbOutput.parse(Files.readAllLines(stdout));
    long disk = Files.exists(dir) ? WorkDirectory.treeBytes(dir) : 0;
    Map<String, String> store = storeStats(stderr);
    List<String> problems = new ArrayList<>();
    if (outcome.exit() != 0) {
      problems.add("exit status " + outcome.exit());
    }
    long expected = phase.load() ? settings.records() : settings.operations();
    if (output.calls() < expected) {
      problems.add("only " + output.calls() + " of " + expected + " operations ran");
    }
    if (output.failures() > 0) {
      problems.add(output.failures() + " operations failed");
    }
    // YCSB's client threads print a failing init or cleanup and go on, exiting with status 0.
    long exceptions = Files.readAllLines(stderr).stream()
        .filter(line -> line.contains("Exception") && !line.startsWith("\t") && !line.startsWith("Caused by")).count();
    if (exceptions > 0) {
      problems.add(exceptions + " exceptions in " + stderr);
    }
    if (cgroup != null && MemoryCgroup.statBytes(cgroup.dir(), "total_swap") > 0) {
      problems.add("the cgroup swapped");
    }
    if (!store.containsKey("system")) {
      problems.add("the binding printed no " + KeyValueDb.STATS_PREFIX + " line (did the store close?)");
    }
    return new Run(system, round, phase, output, outcome, disk, store, problems);
  }

  /** The fields of the {@value KeyValueDb#STATS_PREFIX} lines a phase printed (one store's), or none. */
  static Map<String, String> storeStats(Path stderr) throws IOException {
    Map<String, String> stats = new HashMap<>();
    for (String line : Files.readAllLines(stderr)) {
      if (line.startsWith(KeyValueDb.STATS_PREFIX + " ")) {
        for (String field : line.substring(KeyValueDb.STATS_PREFIX.length() + 1).split(" ")) {
          int equals = field.indexOf('=');
          if (equals > 0) {
            stats.put(field.substring(0, equals), field.substring(equals + 1));
          }
        }
      }
    }
    return stats;
  }

  /** The workload files from the class path to {@code dir}, where YCSB's {@code -P} can read them. */
  static Path copyWorkloads(Path dir) throws IOException {
    Files.createDirectories(dir);
    for (Phase phase : PHASES) {
      try (InputStream in = YcsbComparison.class.getResourceAsStream("/ycsb/" + phase.workload())) {
        if (in == null) {
          throw new IllegalStateException("ycsb/" + phase.workload() + " is not on the class path");
        }
        Files.copy(in, dir.resolve(phase.workload()), StandardCopyOption.REPLACE_EXISTING);
      }
    }
    return dir;
  }

  /** The run's arguments. */
  record Settings(long records, long operations, int threads, List<String> systems, Path work, Path out,
      List<Phase> phases, int rounds, PerSystem heap, long cacheBytes, PerSystem ram, String readAheadKib,
      List<String> properties, boolean keep) {
    static Settings of(Map<String, String> options) {
      long records = Long.parseLong(options.getOrDefault("records", "200000"));
      List<String> systems = new ArrayList<>();
      for (String name : options.getOrDefault("systems", String.join(",", BINDINGS.keySet())).split(",")) {
        systems.add(system(name));
      }
      List<Phase> phases = new ArrayList<>();
      for (String label : options.getOrDefault("phases", "load,A,B,C,F").split(",")) {
        phases.add(PHASES.stream().filter(p -> p.label().equalsIgnoreCase(label.trim())).findFirst()
            .orElseThrow(() -> new IllegalArgumentException("unknown phase " + label + ", not one of load, A, B, C, F")));
      }
      phases.sort(java.util.Comparator.comparingInt(PHASES::indexOf));
      String properties = options.getOrDefault("properties", "");
      return new Settings(records,
          Long.parseLong(options.getOrDefault("operations", Long.toString(records))),
          Integer.parseInt(options.getOrDefault("threads", "2")),
          systems,
          Path.of(options.getOrDefault("work", "/tmp/varve-ycsb")),
          Path.of(options.getOrDefault("out", "docs/benchmarks/ycsb")),
          List.copyOf(phases),
          Integer.parseInt(options.getOrDefault("rounds", "1")),
          PerSystem.parse(options.getOrDefault("heap", "2g")),
          parseBytes(options.getOrDefault("cache-bytes", "256m")),
          PerSystem.parse(options.getOrDefault("ram", "0")),
          options.get("read-ahead-kib"),
          properties.isEmpty() ? List.of() : List.of(properties.split(",")),
          options.containsKey("keep"));
    }

    /** The bytes {@code system}'s memory cgroup may hold, or 0 when it runs unbounded. */
    long ramBytes(String system) {
      return parseBytes(ram.of(system));
    }

    /** Whether any system runs in a memory cgroup. */
    boolean bounded() {
      return systems.stream().anyMatch(system -> ramBytes(system) > 0);
    }

    static String system(String name) {
      return BINDINGS.keySet().stream().filter(s -> s.equalsIgnoreCase(name.trim())).findFirst()
          .orElseThrow(() -> new IllegalArgumentException("unknown system " + name + ", not one of " + BINDINGS.keySet()));
    }
    /** A byte count with an optional k, m or g (binary) suffix. */
    static long parseBytes(String text) {
      String t = text.trim().toLowerCase(Locale.ROOT);
      int shift = switch (t.charAt(t.length() - 1)) {
        case 'k' -> 10;
        case 'm' -> 20;
        case 'g' -> 30;
        default -> 0;
      };
      return Long.parseLong(shift == 0 ? t : t.substring(0, t.length() - 1)) << shift;
    }
  }

  /**
   * A setting that may differ by system: {@code 2g} for all, or {@code 2g,Silt=500m} for all but
   * the systems named.
   */
  record PerSystem(String fallback, Map<String, String> bySystem) {
    static PerSystem parse(String text) {
      String fallback = null;
      Map<String, String> bySystem = new HashMap<>();
      for (String part : text.split(",")) {
        int equals = part.indexOf('=');
        if (equals < 0) {
          fallback = part.trim();
        } else {
          bySystem.put(Settings.system(part.substring(0, equals)), part.substring(equals + 1).trim());
        }
      }
      if (fallback == null) {
        throw new IllegalArgumentException("no value for every system in " + text);
      }
      return new PerSystem(fallback, Map.copyOf(bySystem));
    }

    String of(String system) {
      return bySystem.getOrDefault(system, fallback);
    }

    @Override
    public String toString() {
      StringBuilder s = new StringBuilder(fallback);
      new TreeMap<>(bySystem).forEach((system, value) -> s.append(", ").append(system).append(' ').append(value));
      return s.toString();
    }
  }
}
