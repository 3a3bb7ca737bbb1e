package io.varve.benchmarks.peers;

import io.varve.core.files.FileTrees;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * Varve and its peers side by side, on the same data in the same run: for every dataset and
 * system, a build (records/s, peak RSS, size on disk, index memory), warm lookups with JMH on 1
 * and 2 threads, cold lookups (page cache dropped) on 1, 2 and 16 threads, and the 10 % batch
 * update. Builds, cold runs and updates each run in a process of their own ({@link PeerTask});
 * results go to {@code results.tsv} as they come, then to {@code RESULTS.md}, PNG charts and the
 * README's headline table.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.varve.benchmarks.peers.PeerComparison \
 *     --out docs/benchmarks --work /tmp/varve-peers \
 *     --tsv pypi=/usr/share/package-lists/pypi.tsv --tsv npm=/usr/share/package-lists/npm.tsv
 * </pre>
 *
 * Options: {@code --datasets SPEC,...} (default: the four synthetic sets of the issue), {@code
 * --systems NAME,...} (default all), {@code --work DIR} (stores go to {@code DIR/stores}, deleted
 * after each system; logs of the last step to {@code DIR}), {@code --quick} (small synthetic sets, for a smoke run),
 * {@code --rebuild-limit N} (systems without an incremental path rebuild for the update only up to
 * N records; beyond, their build time stands for it, marked so), {@code --readme FILE} (whose
 * headline table to replace), {@code --report-only} (rewrite the report from results.tsv), {@code
 * --append} (add to results.tsv instead of starting it afresh: a later value of a metric replaces
 * the earlier one, so one system can be measured again), {@code --steps warm,cold,update} (which
 * steps follow each build; default all three: with {@code --append}, {@code --steps warm} measures
 * every system's build and warm lookups again in one run and keeps the earlier cold and update
 * figures).
 * Cold lookups need root (to drop the page cache); without it they are skipped and say so.
 */
public final class PeerComparison {
  static final List<String> DEFAULT_DATASETS =
      List.of("synthetic:8:8:10000000", "synthetic:8:8:100000000", "synthetic:20:100:10000000", "synthetic:20:1000:1000000");
  static final List<String> QUICK_DATASETS = List.of("synthetic:8:8:200000", "synthetic:20:100:100000");
  /** A build, cold run or update that takes longer is stopped and recorded as failed. */
  static final int TASK_TIMEOUT_MINUTES = 15;

  private PeerComparison() {}

  public static void main(String[] args) throws Exception {
    Path out = Path.of("docs/benchmarks");
    Path work = Path.of(System.getProperty("java.io.tmpdir"), "varve-peers");
    Path readme = Path.of("README.md");
    List<String> datasets = new ArrayList<>(DEFAULT_DATASETS);
    List<String> tsvs = new ArrayList<>();
    List<Peer> systems = Peers.all();
    long rebuildLimit = 20_000_000;
    double coldSeconds = 20;
    boolean reportOnly = false;
    boolean append = false;
    Set<Step> steps = EnumSet.allOf(Step.class);
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--out" -> out = Path.of(args[++i]);
        case "--work" -> work = Path.of(args[++i]);
        case "--readme" -> readme = Path.of(args[++i]);
        case "--datasets" -> datasets = new ArrayList<>(List.of(args[++i].split(",")));
        case "--quick" -> datasets = new ArrayList<>(QUICK_DATASETS);
        case "--tsv" -> {
          String[] nameAndPath = args[++i].split("=", 2);
          tsvs.add("tsv:" + nameAndPath[0] + ":" + nameAndPath[1]);
        }
        case "--systems" -> systems = Arrays.stream(args[++i].split(",")).map(Peers::byName).toList();
        case "--rebuild-limit" -> rebuildLimit = Long.parseLong(args[++i]);
        case "--cold-seconds" -> coldSeconds = Double.parseDouble(args[++i]);
        case "--report-only" -> reportOnly = true;
        case "--append" -> append = true;
        case "--steps" -> steps = Step.parse(args[++i]);
        default -> throw new IllegalArgumentException("unknown option " + args[i] + " (see the class Javadoc)");
      }
    }
    datasets.addAll(tsvs);
    Path results = out.resolve("results.tsv");
    if (!reportOnly) {
      Measurements measurements = append ? Measurements.read(results) : Measurements.create(results);
      String earlierCommand = append ? measurements.text("*", "*", "command") + "; then " : "";
      long start = System.nanoTime();
      for (String spec : datasets) {
        Dataset dataset = Dataset.parse(spec);
        for (Peer peer : systems) {
          new PeerComparison.Run(measurements, dataset, peer, work.resolve("stores"), rebuildLimit, coldSeconds, steps).all();
          System.out.printf(Locale.ROOT, "[%5.1f min] %s: %s done%n", (System.nanoTime() - start) / 6e10, dataset.name(), peer.name());
        }
      }
      measurements.put("*", "*", append ? "appendedMinutes" : "totalMinutes", (System.nanoTime() - start) / 6e10);
      measurements.put("*", "*", "command", earlierCommand + "PeerComparison " + String.join(" ", args));
    }
    Report.write(Measurements.read(results), out, readme);
  }

  /** The steps that may follow a build. */
  enum Step {
    WARM,
    COLD,
    UPDATE;

    static Set<Step> parse(String list) {
      Set<Step> steps = EnumSet.noneOf(Step.class);
      for (String name : list.split(",")) {
        try {
          steps.add(Step.valueOf(name.trim().toUpperCase(Locale.ROOT)));
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException("unknown step " + name + " (steps: warm, cold, update)", e);
        }
      }
      return steps;
    }
  }

  /** The measurements of one system on one dataset. */
  private record Run(
      Measurements measurements, Dataset dataset, Peer peer, Path work, long rebuildLimit, double coldSeconds, Set<Step> steps) {
    void all() throws Exception {
      Path base = work.resolve("base");
      Path updated = work.resolve("updated");
      FileTrees.deleteTree(work);
      Files.createDirectories(work);
      try {
        put("records", dataset.base().size());
        Map<String, String> build = task("build", base.toString());
        if (build == null) {
          return;
        }
        record("build.", build);
        if (steps.contains(Step.WARM)) {
          for (int threads : new int[] {1, 2}) {
            warm(peer, base, threads);
          }
          for (Peer variant : peer.warmVariants()) {
            warmVariant(variant, base);
          }
        }
        if (steps.contains(Step.COLD)) {
          Map<String, String> cold = task("cold", base.toString(), Double.toString(coldSeconds));
          if (cold != null) {
            record("cold.", cold);
          }
        }
        if (!steps.contains(Step.UPDATE)) {
          return;
        }
        if (dataset.merged().size() > rebuildLimit && peer.updateMethod() == Peer.UpdateMethod.REBUILD) {
          put("update.method", "REBUILD");
          put("update.seconds", build.get("seconds"));
          put("update.note", "not rerun above " + rebuildLimit + " records: the build time stands for the rebuild");
        } else {
          Map<String, String> update = task("update", base.toString(), updated.toString());
          if (update != null) {
            record("update.", update);
          }
        }
      } finally {
        FileTrees.deleteTree(work);
      }
    }

    /**
     * Opens the store in {@code dir} as {@code variant} reads it (its memory recorded as the
     * variant's {@code build.indexBytes}), then measures its warm lookups.
     */
    private void warmVariant(Peer variant, Path dir) throws IOException, InterruptedException {
      Run run = new Run(measurements, dataset, variant, work, rebuildLimit, coldSeconds, steps);
      run.put("records", dataset.base().size());
      Map<String, String> opened = run.task("open", dir.toString());
      if (opened == null) {
        return;
      }
      run.put("build.indexBytes", opened.get("indexBytes"));
      run.put("variantOf", peer.name());
      for (int threads : new int[] {1, 2}) {
        run.warm(variant, dir, threads);
      }
    }

    private void warm(Peer system, Path dir, int threads) throws IOException {
      try {
        Collection<RunResult> results =
            new Runner(
                    new OptionsBuilder()
                        .include(PeerLookupBenchmark.class.getName() + ".get$")
                        .param("system", system.name())
                        .param("dataset", dataset.spec())
                        .param("directory", dir.toString())
                        .threads(threads)
                        .forks(1)
                        .warmupIterations(3)
                        .warmupTime(TimeValue.seconds(1))
                        .measurementIterations(3)
                        .measurementTime(TimeValue.seconds(1))
                        .output(work.getParent().resolve("jmh.log").toString())
                        .build())
                .run();
        RunResult result = results.iterator().next();
        put("warm.t" + threads, result.getPrimaryResult().getScore());
        put("warm.t" + threads + ".error", result.getPrimaryResult().getScoreError());
      } catch (Exception e) {
        put("warm.t" + threads + ".failed", e.toString());
      }
    }

    /** Runs a {@link PeerTask}; its RESULT fields, or null after recording the failure. */
    private Map<String, String> task(String name, String... args) throws IOException, InterruptedException {
      List<String> command = new ArrayList<>();
      command.add(ProcessHandle.current().info().command().orElse("java"));
      command.addAll(PeerJvmOptions.ALL);
      command.add("-cp");
      command.add(System.getProperty("java.class.path"));
      command.add(PeerTask.class.getName());
      command.add(name);
      command.add(peer.name());
      command.add(dataset.spec());
      command.addAll(List.of(args));
      Path log = work.getParent().resolve("task.log");
      Path output = work.getParent().resolve("task.out");
      Process process = new ProcessBuilder(command).redirectError(log.toFile()).redirectOutput(output.toFile()).start();
      if (!process.waitFor(TASK_TIMEOUT_MINUTES, TimeUnit.MINUTES)) {
        process.destroyForcibly().waitFor();
        put(name + ".failed", "timed out after " + TASK_TIMEOUT_MINUTES + " minutes");
        System.err.println(dataset.name() + " / " + peer.name() + " " + name + " timed out");
        return null;
      }
      Map<String, String> fields = null;
      for (String line : Files.readAllLines(output, StandardCharsets.UTF_8)) {
        Map<String, String> parsed = PeerTask.parseResult(line);
        fields = parsed != null ? parsed : fields;
      }
      if (process.exitValue() != 0 || fields == null) {
        List<String> errors = Files.readAllLines(log);
        String reason =
            errors.stream().filter(l -> l.contains("Exception") || l.contains("Error")).findFirst().orElse("exit " + process.exitValue());
        put(name + ".failed", reason);
        System.err.println(dataset.name() + " / " + peer.name() + " " + name + " failed: " + reason);
        return null;
      }
      return fields;
    }

    private void record(String prefix, Map<String, String> fields) throws IOException {
      for (Map.Entry<String, String> field : fields.entrySet()) {
        put(prefix + field.getKey(), field.getValue());
      }
    }

    private void put(String metric, Object value) throws IOException {
      measurements.put(dataset.name(), peer.name(), metric, value);
    }
  }
}
