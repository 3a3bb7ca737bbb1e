package io.varve.benchmarks.ycsb;

import io.varve.benchmarks.cgroup.MemoryCgroup;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs one YCSB phase (a {@code site.ycsb.Client} JVM) as a child process with its output in two
 * files, and measures the child's peak resident set: from {@code /usr/bin/time -v} when the
 * machine has it (exact: the kernel's maximum RSS of the JVM at exit), otherwise by reading the
 * child's {@code VmHWM} from {@code /proc} every 100 ms (which misses a peak only in the last 100
 * ms). Stateless; thread-safe.
 */
final class YcsbChild {
  private static final Path TIME = Path.of("/usr/bin/time");

  /**
   * How a child ended: its exit status, its peak RSS (-1 when unknown), its wall time and the peak
   * charge of its memory cgroup (-1 when it ran in none).
   */
  record Outcome(int exit, long peakRssBytes, double seconds, long cgroupPeakBytes) {}

  private YcsbChild() {}

  /** Whether peaks come from {@code /usr/bin/time} (else from polling {@code VmHWM}). */
  static boolean usesTime() {
    return Files.isExecutable(TIME);
  }

  /**
   * Runs {@code command}, in {@code cgroup} when it is not null (whose peak is reset first, so that
   * the outcome's covers this child alone).
   */
  static Outcome run(List<String> command, Path stdout, Path stderr, MemoryCgroup cgroup)
      throws IOException, InterruptedException {
    List<String> full = new ArrayList<>();
    Path timeFile = stderr.resolveSibling(stderr.getFileName() + ".time");
    boolean timed = usesTime();
    if (timed) {
      full.addAll(List.of(TIME.toString(), "-v", "-o", timeFile.toString()));
    }
    full.addAll(command);
    if (cgroup != null) {
      MemoryCgroup.resetPeak(cgroup.dir());
    }
    long start = System.nanoTime();
    Process process = new ProcessBuilder(MemoryCgroup.commandIn(cgroup, full)).redirectOutput(stdout.toFile()).redirectError(stderr.toFile()).start();
    long polled = -1;
    while (!process.waitFor(100, TimeUnit.MILLISECONDS)) {
      if (!timed) {
        polled = Math.max(polled, vmHwmBytes(process.pid()));
      }
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    long peak = timed ? timeMaxRssBytes(timeFile) : polled;
    long cgroupPeak = cgroup == null ? -1 : MemoryCgroup.peakBytes(cgroup.dir());
    return new Outcome(process.exitValue(), peak, seconds, cgroupPeak);
  }

  /** {@code VmHWM} of a running process, or -1 once it is gone. */
  private static long vmHwmBytes(long pid) {
    try {
      for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
        if (line.startsWith("VmHWM:")) {
          return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
        }
      }
    } catch (IOException | RuntimeException e) {
      return -1;
    }
    return -1;
  }

  /** GNU time's "Maximum resident set size (kbytes)", or -1. */
  private static long timeMaxRssBytes(Path timeFile) throws IOException {
    if (!Files.exists(timeFile)) {
      return -1;
    }
    for (String line : Files.readAllLines(timeFile)) {
      String trimmed = line.trim();
      if (trimmed.startsWith("Maximum resident set size (kbytes):")) {
        return Long.parseLong(trimmed.substring(trimmed.indexOf(':') + 1).trim()) * 1024;
      }
    }
    return -1;
  }
}
