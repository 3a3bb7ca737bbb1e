package io.varve.benchmarks.bcms;

import io.varve.bcms.CountMinSketch;
import io.varve.bcms.SketchParameters;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The plain count-min sketch in a memory-mapped file (its hot path: the mapping's accesses and the
 * guard around them), updates and estimates of 64-bit items, depth 5, 64-bit counters, at a width
 * whose counters fit in the CPU caches (2^16: 2.5 MiB) and one that does not (2^22: 160 MiB). The
 * file is in the page cache: this measures the CPU cost, not the disk's. {@code updateAll} and
 * {@code estimateAll} take the items {@value #BATCH} at a time (scores per item), which pays the
 * runtime call that guards each mapped call once per 64 items (docs/benchmarks/bcms/MAPPED.md).
 *
 * <pre>
 * java -jar benchmarks/target/benchmarks.jar MappedSketchBenchmark
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xmx1g"})
public class MappedSketchBenchmark {
  /** Items cycled through per run; a power of two. */
  static final int ITEMS = 1 << 20;

  static final int DEPTH = 5;

  @Param({"65536", "4194304"})
  public int width;

  Path dir;
  CountMinSketch sketch;
  long[] items;
  int next;
  /** The items cut into batches of {@link #BATCH}. */
  long[][] batches;
  long[] estimates = new long[BATCH];

  static final int BATCH = 1024;

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    dir = Files.createTempDirectory("mapped-sketch-bench");
    sketch = CountMinSketch.create(dir.resolve("bench.cms"), SketchParameters.ofDimensions(width, DEPTH).withSeed(7));
    SplittableRandom random = new SplittableRandom(42);
    items = new long[ITEMS];
    for (int i = 0; i < ITEMS; i++) {
      items[i] = random.nextLong();
    }
    batches = new long[ITEMS / BATCH][];
    for (int b = 0; b < batches.length; b++) {
      batches[b] = Arrays.copyOfRange(items, b * BATCH, (b + 1) * BATCH);
    }
    for (int i = 0; i < width; i++) {
      sketch.update(items[i & (ITEMS - 1)], 1);
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() throws IOException {
    sketch.close();
    Files.deleteIfExists(dir.resolve("bench.cms"));
    Files.deleteIfExists(dir);
  }

  @Benchmark
  public void update() {
    sketch.update(items[next++ & (ITEMS - 1)], 1);
  }

  @Benchmark
  public long estimate() {
    return sketch.estimate(items[next++ & (ITEMS - 1)]);
  }

  @Benchmark
  @OperationsPerInvocation(BATCH)
  public void updateAll() {
    sketch.updateAll(batches[next++ & (batches.length - 1)], 1);
  }

  @Benchmark
  @OperationsPerInvocation(BATCH)
  public long[] estimateAll() {
    sketch.estimateAll(batches[next++ & (batches.length - 1)], estimates);
    return estimates;
  }
}
