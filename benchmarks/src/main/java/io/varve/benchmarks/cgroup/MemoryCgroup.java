package io.varve.benchmarks.cgroup;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A memory cgroup (v1) that bounds the RAM of one child process of a whole-process harness: its
 * anonymous memory and the page cache it brings in together. The parent {@linkplain #create
 * creates} it under its own cgroup and starts the child in it ({@link ChildJvm}); the child, once
 * warmed up, {@linkplain #limitToChargePlus limits} it to what it holds at that point plus the RAM
 * the run may use, so that the JVM's own footprint (code, JIT, metaspace) is not counted against
 * the system measured, while everything the system adds is.
 *
 * <p>Needs root on Linux with the cgroup v1 memory controller at {@code /sys/fs/cgroup/memory}.
 * Not thread-safe; one instance per run.
 */
public final class MemoryCgroup implements AutoCloseable {
  private static final Path ROOT = Path.of("/sys/fs/cgroup/memory");

  private final Path dir;

  private MemoryCgroup(Path dir) {
    this.dir = dir;
  }

  /** A new memory cgroup named {@code prefix-name-pid} under this process's own. */
  public static MemoryCgroup create(String prefix, String name) throws IOException {
    String own = "/";
    for (String line : Files.readAllLines(Path.of("/proc/self/cgroup"))) {
      String[] parts = line.split(":", 3);
      if (parts.length == 3 && parts[1].equals("memory")) {
        own = parts[2];
      }
    }
    Path parent = Path.of(ROOT + own);
    if (!Files.isDirectory(parent)) {
      throw new IllegalStateException("no cgroup v1 memory controller at " + parent);
    }
    Path dir = parent.resolve(prefix + "-" + name + "-" + ProcessHandle.current().pid());
    Files.createDirectories(dir);
    return new MemoryCgroup(dir);
  }

  /** The cgroup's directory, which the child receives to set its own limit. */
  public Path dir() {
    return dir;
  }

  /**
   * {@code command} as a process to start in {@code cgroup}: a shell that moves itself into the
   * cgroup and then executes the command, so that every page the child touches is charged there;
   * the command itself when {@code cgroup} is null.
   */
  public static List<String> commandIn(MemoryCgroup cgroup, List<String> command) {
    if (cgroup == null) {
      return List.copyOf(command);
    }
    String quoted = command.stream().map(MemoryCgroup::shellQuoted).collect(Collectors.joining(" "));
    return List.of("sh", "-c", "echo $$ > " + cgroup.dir.resolve("cgroup.procs") + " && exec " + quoted);
  }

  /** {@code argument} as one word for {@code sh}, whatever characters it holds. */
  static String shellQuoted(String argument) {
    return "'" + argument.replace("'", "'\\''") + "'";
  }

  /** Removes the cgroup; the kernel refuses while its last pages are uncharged, hence the retries. */
  @Override
  public void close() {
    for (int attempt = 0; attempt < 50; attempt++) {
      try {
        Files.deleteIfExists(dir);
        return;
      } catch (IOException e) {
        try {
          Thread.sleep(100);
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
  }

  /**
   * Called by the child in {@code cgroup}: reclaims the page cache charged so far (class files of
   * the jar, scratch files of a warm-up: reclaimable, so leaving it in the baseline would give the
   * run more RAM than it is allowed), reads what remains charged, limits the cgroup to that plus
   * {@code ramBytes} and resets the peak. Returns the baseline, in bytes.
   */
  public static long limitToChargePlus(Path cgroup, long ramBytes) throws IOException {
    Files.writeString(cgroup.resolve("memory.force_empty"), "0");
    long baseline = Long.parseLong(Files.readString(cgroup.resolve("memory.usage_in_bytes")).trim());
    Files.writeString(cgroup.resolve("memory.limit_in_bytes"), Long.toString(baseline + ramBytes));
    Files.writeString(cgroup.resolve("memory.max_usage_in_bytes"), "0");
    return baseline;
  }

  /**
   * Called by the parent before its child starts: limits the cgroup to {@code bytes} in all (the
   * JVM's own footprint included) and resets the peak.
   */
  public void limitTo(long bytes) throws IOException {
    Files.writeString(dir.resolve("memory.limit_in_bytes"), Long.toString(bytes));
    resetPeak(dir);
  }

  /** Resets the highest charge, so that {@link #peakBytes} covers what runs from now on. */
  public static void resetPeak(Path cgroup) throws IOException {
    Files.writeString(cgroup.resolve("memory.max_usage_in_bytes"), "0");
  }

  /** The highest charge since {@link #limitToChargePlus}, in bytes. */
  public static long peakBytes(Path cgroup) throws IOException {
    return Long.parseLong(Files.readString(cgroup.resolve("memory.max_usage_in_bytes")).trim());
  }

  /** One field of the cgroup's {@code memory.stat} (for example {@code rss} or {@code cache}), or -1. */
  public static long statBytes(Path cgroup, String name) throws IOException {
    for (String line : Files.readAllLines(cgroup.resolve("memory.stat"))) {
      if (line.startsWith(name + " ")) {
        return Long.parseLong(line.substring(name.length() + 1).trim());
      }
    }
    return -1;
  }
}
