package io.varve.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/** The machine a benchmark ran on, as Linux tells it, for the reports. Stateless; thread-safe. */
public final class MachineDescription {
  private MachineDescription() {}

  /** "processor, N cores, M GiB RAM" ("unknown processor" and "?" where not Linux). */
  public static String processorAndMemory() {
    String cpu = "unknown processor";
    long memoryKib = -1;
    try {
      for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
        if (line.startsWith("model name")) {
          cpu = line.substring(line.indexOf(':') + 1).trim();
          break;
        }
      }
      for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
        if (line.startsWith("MemTotal:")) {
          memoryKib = Long.parseLong(line.replaceAll("[^0-9]", ""));
        }
      }
    } catch (IOException | RuntimeException e) {
      // Not Linux: say less.
    }
    return String.format(Locale.ROOT, "%s, %d cores, %s RAM", cpu, Runtime.getRuntime().availableProcessors(),
        memoryKib < 0 ? "?" : String.format(Locale.ROOT, "%.0f GiB", memoryKib / 1048576.0));
  }
}
