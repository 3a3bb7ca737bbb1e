package io.varve.benchmarks.peers;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Linux counters of this process and of a disk. Stateless; thread-safe. */
public final class ProcessStats {
  private ProcessStats() {}

  /** This process's peak resident set (VmHWM), in bytes; -1 where /proc is missing. */
  public static long peakRssBytes() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (line.startsWith("VmHWM:")) {
          return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
        }
      }
    } catch (IOException | RuntimeException e) {
      return -1;
    }
    return -1;
  }

  /**
   * Reads completed and sectors read by the block device holding {@code path} (from
   * /proc/diskstats), or null when that cannot be told.
   */
  public static long[] diskReads(Path path) {
    return diskStats(path, 3, 5);
  }

  /**
   * Reads completed and writes completed by the block device holding {@code path} (from
   * /proc/diskstats), or null when that cannot be told.
   */
  public static long[] diskIos(Path path) {
    return diskStats(path, 3, 7);
  }

  /** The given fields of the /proc/diskstats line of the device holding {@code path}, or null. */
  private static long[] diskStats(Path path, int... fields) {
    try {
      String device = Files.getFileStore(path).name();
      String name = device.substring(device.lastIndexOf('/') + 1);
      for (String line : Files.readAllLines(Path.of("/proc/diskstats"))) {
        String[] columns = line.trim().split("\\s+");
        if (columns.length > 7 && columns[2].equals(name)) {
          long[] values = new long[fields.length];
          for (int i = 0; i < fields.length; i++) {
            values[i] = Long.parseLong(columns[fields[i]]);
          }
          return values;
        }
      }
    } catch (IOException | RuntimeException e) {
      return null;
    }
    return null;
  }

  /**
   * Sets the read-ahead of the block device holding {@code path}; returns the value it had, or
   * null when it cannot be changed (not Linux, not root, no such device).
   */
  public static String setReadAheadKib(Path path, String kib) {
    try {
      String device = Files.getFileStore(path).name();
      Path setting = Path.of("/sys/block", device.substring(device.lastIndexOf('/') + 1), "queue/read_ahead_kb");
      String old = Files.readString(setting).trim();
      Files.writeString(setting, kib);
      return old;
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  /**
   * Waits (collecting garbage, which unmaps unreachable mapped buffers) until no file under {@code
   * dir} is mapped by this process; false when some still is after a few seconds.
   */
  static boolean awaitUnmapped(Path dir) throws InterruptedException {
    String prefix = dir.toAbsolutePath().toString() + "/";
    for (int attempt = 0; attempt < 50; attempt++) {
      try {
        if (Files.readAllLines(Path.of("/proc/self/maps")).stream().noneMatch(line -> line.contains(prefix))) {
          return true;
        }
      } catch (IOException e) {
        return false;
      }
      System.gc();
      Thread.sleep(100);
    }
    return false;
  }

  /** Writes dirty pages and drops the page cache (needs root); false when not allowed. */
  public static boolean dropPageCache() {
    try {
      new ProcessBuilder("sync").inheritIO().start().waitFor();
      Files.writeString(Path.of("/proc/sys/vm/drop_caches"), "3");
      return true;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }
}
