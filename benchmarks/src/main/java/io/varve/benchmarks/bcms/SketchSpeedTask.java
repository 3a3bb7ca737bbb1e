package io.varve.benchmarks.bcms;

import io.varve.bcms.FrequencySketch;
import io.varve.bcms.SketchParameters;
import io.varve.benchmarks.cgroup.MemoryCgroup;
import io.varve.benchmarks.peers.ProcessStats;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;

/**
 * One timed run of inserts or queries on an existing sketch file, in its own JVM, meant to run
 * inside a memory cgroup (v1) of its own: after warming the JIT on a small scratch sketch it reads
 * its cgroup's charge and sets the cgroup's limit to that plus the RAM the run may use, so that
 * page cache and sketch buffers together stay within that RAM. Prints one line {@code RESULT
 * key=value ...}.
 *
 * <p>Arguments: {@code kind file insert|query seconds minOps ramBytes bufferBytes firstItem cgroupDir}.
 */
public final class SketchSpeedTask {
  private SketchSpeedTask() {}

  public static void main(String[] args) throws Exception {
    SketchKind kind = SketchKind.valueOf(args[0]);
    Path file = Path.of(args[1]);
    boolean insert = args[2].equals("insert");
    double seconds = Double.parseDouble(args[3]);
    long minOps = Long.parseLong(args[4]);
    long ramBytes = Long.parseLong(args[5]);
    long bufferBytes = Long.parseLong(args[6]);
    long firstItem = Long.parseLong(args[7]);
    Path cgroup = args.length > 8 ? Path.of(args[8]) : null;

    warmUp(kind, file.resolveSibling("warm-up-" + kind + ".sketch"));
    long baseline = 0;
    if (cgroup != null) {
      System.gc();
      baseline = MemoryCgroup.limitToChargePlus(cgroup, ramBytes);
      System.out.println("cgroup baseline " + baseline / 1024 + " KiB, page cache "
          + MemoryCgroup.statBytes(cgroup, "cache") / 1024 + " KiB");
    }
    long[] before = ProcessStats.diskIos(file);
    long start = System.nanoTime();
    long ops = 0;
    long flushNanos = 0;
    long checksum = 0;
    try (FrequencySketch sketch = kind.open(file, bufferBytes)) {
      long deadline = start + (long) (seconds * 1e9);
      if (insert) {
        while (ops < minOps || System.nanoTime() < deadline) {
          for (int i = 0; i < 1024; i++) {
            sketch.update(PaperConfiguration.item(firstItem + ops++));
          }
        }
        long flushStart = System.nanoTime();
        sketch.flush();
        flushNanos = System.nanoTime() - flushStart;
      } else {
        SplittableRandom random = new SplittableRandom(firstItem);
        while (ops < minOps || System.nanoTime() < deadline) {
          for (int i = 0; i < 256; i++) {
            checksum += sketch.estimate(random.nextLong());
          }
          ops += 256;
        }
      }
      long elapsed = System.nanoTime() - start;
      long[] after = ProcessStats.diskIos(file);
      long peak = cgroup == null ? -1
          : MemoryCgroup.peakBytes(cgroup) - baseline;
      System.out.println("RESULT ops=" + ops + " seconds=" + elapsed / 1e9 + " flushSeconds=" + flushNanos / 1e9
          + " reads=" + (after == null ? -1 : after[0] - before[0])
          + " writes=" + (after == null ? -1 : after[1] - before[1])
          + " ramPeak=" + peak + " checksum=" + checksum);
    }
  }

  /** Compiles the hot paths on a small scratch sketch, then deletes it and its page cache. */
  private static void warmUp(SketchKind kind, Path scratch) throws Exception {
    Files.deleteIfExists(scratch);
    SketchParameters parameters = SketchParameters.ofDimensions(20_000, 5);
    try (FrequencySketch sketch = kind.create(scratch, parameters, 256 * 1024)) {
      SplittableRandom random = new SplittableRandom(1);
      long sum = 0;
      for (int i = 0; i < 300_000; i++) {
        sketch.update(random.nextLong());
        sum += sketch.estimate(random.nextLong());
      }
      if (sum < 0) {
        throw new AssertionError();
      }
    }
    Files.delete(scratch);
  }
}
