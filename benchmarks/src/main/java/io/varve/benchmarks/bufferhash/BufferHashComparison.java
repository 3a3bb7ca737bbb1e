package io.varve.benchmarks.bufferhash;

import io.varve.benchmarks.HarnessArguments;
import io.varve.benchmarks.cgroup.ChildJvm;
import io.varve.benchmarks.cgroup.MemoryCgroup;
import io.varve.benchmarks.peers.ProcessStats;
import io.varve.core.files.FileTrees;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * BufferHash side by side with the mutable stores a Java user would pick instead (Berkeley DB JE,
 * RocksDB, LMDB), as issue 20 and the paper's section 7 ask: 20-byte fingerprints to 8-byte values,
 * a data set several times the RAM given to each system, inserts/s while loading it, lookups/s at
 * 40 % and 0 % success, RAM per stored key, and BufferHash's storage reads per lookup (Table 2).
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.varve.benchmarks.bufferhash.BufferHashComparison \
 *     --work /tmp/varve-bufferhash --out docs/benchmarks/bufferhash [--ram-mib 64] [--data-mib 256 | --records N]
 *     [--lookups 200000] [--lookup-seconds 60] [--rounds 2] [--systems BUFFERHASH,JE,ROCKSDB,LMDB] [--no-cgroup]
 *     [--bufferhash-bytes-per-key 2]
 * </pre>
 *
 * Each run is one system in a child JVM of its own ({@link ComparisonTask}) inside a memory cgroup
 * (v1) limited, after the JIT warm-up, to the child's charge plus the RAM budget: the system's own
 * memory and the page cache it brings in share that budget, as on a host that has that much RAM for
 * it. The page cache is dropped before each run. Rounds repeat every system, in an order rotated
 * each round, because this machine is shared and noisy: compare the ratios to the reference system
 * (the first one named) within a round, not absolute rates across runs. Needs root on Linux with
 * the cgroup v1 memory controller, unless {@code --no-cgroup} (then RAM is not bounded, and the
 * results say so). {@code --bufferhash-bytes-per-key} is the RAM BufferHash gets per record (see
 * {@link BufferHashStore}). Writes {@code results.tsv} and {@code results.md} to the output
 * directory.
 */
public final class BufferHashComparison {
  private BufferHashComparison() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> options = parse(args);
    Path work = Path.of(options.getOrDefault("work", "/tmp/varve-bufferhash"));
    Path out = Path.of(options.getOrDefault("out", "docs/benchmarks/bufferhash"));
    long ram = Long.parseLong(options.getOrDefault("ram-mib", "64")) << 20;
    long dataBytes = options.containsKey("data-mib") ? Long.parseLong(options.get("data-mib")) << 20 : 4 * ram;
    long records = options.containsKey("records") ? Long.parseLong(options.get("records"))
        : dataBytes / Fingerprints.RECORD_BYTES;
    long lookups = Long.parseLong(options.getOrDefault("lookups", "200000"));
    double lookupSeconds = Double.parseDouble(options.getOrDefault("lookup-seconds", "60"));
    int rounds = Integer.parseInt(options.getOrDefault("rounds", "2"));
    boolean bounded = !options.containsKey("no-cgroup");
    double bufferHashBytesPerKey = Double.parseDouble(options.getOrDefault("bufferhash-bytes-per-key", Double.toString(BufferHashStore.BYTES_PER_KEY)));
    List<StoreKind> systems = new ArrayList<>();
    for (String name : options.getOrDefault("systems", defaultSystems()).split(",")) {
      systems.add(StoreKind.valueOf(name.trim().toUpperCase(Locale.ROOT)));
    }
    Files.createDirectories(work);
    Files.createDirectories(out);

    ComparisonReport report = new ComparisonReport(args, ram, records, bounded, systems);
    // As the count-min sketch experiment does: with the device's read-ahead (8 MiB here) one random
    // read can bring megabytes into a cgroup of a few tens of MiB, and pages under read cannot be
    // reclaimed, so the kernel may kill the run. Restored at the end, also when the harness is
    // interrupted (a shutdown hook: finally blocks do not run on SIGTERM).
    String oldReadAhead = bounded ? ProcessStats.setReadAheadKib(work, "0") : null;
    Thread restore = new Thread(() -> ProcessStats.setReadAheadKib(work, oldReadAhead));
    if (oldReadAhead != null) {
      Runtime.getRuntime().addShutdownHook(restore);
    }
    runRounds(report, out, systems, work, ram, records, lookups, lookupSeconds, rounds, bounded, bufferHashBytesPerKey);
    if (oldReadAhead != null) {
      Runtime.getRuntime().removeShutdownHook(restore);
      restore.run();
    }
    System.out.println(Files.readString(out.resolve("results.md")));
  }

  private static void runRounds(ComparisonReport report, Path out, List<StoreKind> systems, Path work, long ram,
      long records, long lookups, double lookupSeconds, int rounds, boolean bounded,
      double bufferHashBytesPerKey) throws Exception {
    for (int round = 0; round < rounds; round++) {
      for (int i = 0; i < systems.size(); i++) {
        StoreKind kind = systems.get((i + round) % systems.size());
        System.out.printf(Locale.ROOT, "round %d: %s, %,d records, RAM %d MiB%n", round + 1, kind.label, records,
            ram >> 20);
        try {
          Map<String, String> result = run(kind, work, ram, records, lookups, lookupSeconds, round, bounded, bufferHashBytesPerKey);
          ComparisonReport.Run run = ComparisonReport.Run.of(round + 1, kind, result);
          System.out.println(run.summary());
          report.add(run);
        } catch (IllegalStateException e) {
          // A run the kernel killed (out of memory in its cgroup) is a result too: report it, go on.
          System.out.println(kind.label + " failed: " + e.getMessage());
          report.addFailure(round + 1, kind, e.getMessage());
        }
        report.write(out);
      }
    }
  }

  /** Every system this build has, BufferHash first (the reference of the ratios). */
  private static String defaultSystems() {
    StringBuilder names = new StringBuilder();
    for (StoreKind kind : StoreKind.values()) {
      names.append(names.length() == 0 ? "" : ",").append(kind.name());
    }
    return names.toString();
  }

  private static Map<String, String> run(StoreKind kind, Path work, long ram, long records, long lookups,
      double lookupSeconds, int round, boolean bounded, double bufferHashBytesPerKey) throws Exception {
    Path dir = work.resolve(kind.name().toLowerCase(Locale.ROOT));
    FileTrees.deleteTree(dir);
    if (bounded && !ProcessStats.dropPageCache()) {
      throw new IllegalStateException("cannot drop the page cache: bounded runs need root (or --no-cgroup)");
    }
    List<String> jvm = new ArrayList<>(heapFlags(ram));
    jvm.addAll(List.of(
        // lmdbjava reaches into direct buffers' addresses.
        "--add-opens=java.base/java.nio=ALL-UNNAMED", "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
        "--enable-native-access=ALL-UNNAMED",
        "-D" + BufferHashStore.BYTES_PER_KEY_PROPERTY + "=" + bufferHashBytesPerKey));
    List<String> arguments = new ArrayList<>(List.of(kind.name(), dir.toString(), Long.toString(ram),
        Long.toString(records), Long.toString(lookups), Double.toString(lookupSeconds), Long.toString(1000 + round)));
    String name = kind.name().toLowerCase(Locale.ROOT) + "-" + (round + 1);
    try (MemoryCgroup cgroup = bounded ? MemoryCgroup.create("varve-bufferhash", name) : null) {
      if (cgroup != null) {
        arguments.add(cgroup.dir().toString());
      }
      // glibc's malloc otherwise gives each thread an arena of its own and raises its mmap threshold
      // after RocksDB frees its first large blocks (filters, index blocks), so that later ones
      // fragment the heap: RocksDB's runs were killed in their cgroup with 30 MiB of anonymous
      // memory beyond a cache of 8 MiB, and not with these two settings (measured).
      return ChildJvm.run(cgroup, Map.of("MALLOC_ARENA_MAX", "2", "MALLOC_MMAP_THRESHOLD_", "131072"), jvm,
          ComparisonTask.class, arguments);
    } finally {
      FileTrees.deleteTree(dir);
    }
  }

  /** The child's heap and collector, sized to the budget. */
  private static List<String> heapFlags(long ram) {
    long heapMib = (ram >> 20) + 16;
    return List.of(
        // The heap may hold the young generation (touched before the baseline) and an old one as
        // large as the budget: with more room the serial collector grows the old generation with
        // garbage instead of collecting it, and the kernel killed JE and BufferHash (measured).
        "-Xms" + Math.min(32, heapMib) + "m", "-Xmx" + heapMib + "m", "-Xmn" + Math.min(16, heapMib / 2) + "m", "-XX:+UseSerialGC",
        // Grow the heap no more than collections require: heap pages, once touched, stay charged.
        "-XX:MinHeapFreeRatio=10", "-XX:MaxHeapFreeRatio=20");
  }

  private static Map<String, String> parse(String[] args) {
    return HarnessArguments.parse(args, name -> name.equals("no-cgroup"));
  }
}
