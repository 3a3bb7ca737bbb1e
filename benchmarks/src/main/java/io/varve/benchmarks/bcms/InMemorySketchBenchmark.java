package io.varve.benchmarks.bcms;

import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * In-memory count-min sketch speed, Varve against Apache DataSketches, in one JMH run: updates and
 * estimates of 64-bit items, depth 5, 64-bit counters, at a width that fits in the CPU caches (2^16:
 * 2.5 MiB) and one that does not (2^22: 160 MiB). The sketches are first filled with as many items as
 * they have columns, so estimates read counters that are mostly non-zero.
 *
 * <pre>
 * /usr/lib/jvm/temurin-25-jdk-amd64/bin/java -jar benchmarks/target/benchmarks.jar InMemorySketchBenchmark
 * </pre>
 *
 * DataSketches' sketch is Java 25 bytecode: on an older JDK its runs fail with a message saying so.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xmx2g", "-XX:+UseParallelGC"})
public class InMemorySketchBenchmark {
  /** Items cycled through per run; a power of two. */
  static final int ITEMS = 1 << 20;

  static final int DEPTH = 5;

  @Param({"varve", "datasketches"})
  public String sketch;

  @Param({"65536", "4194304"})
  public int width;

  InMemoryCounter counter;
  long[] items;
  int next;

  @Setup
  public void setUp() {
    counter = InMemoryCounter.of(sketch, width, DEPTH, 7);
    SplittableRandom random = new SplittableRandom(42);
    items = new long[ITEMS];
    for (int i = 0; i < ITEMS; i++) {
      items[i] = random.nextLong();
    }
    for (int i = 0; i < width; i++) {
      counter.update(items[i & (ITEMS - 1)], 1);
    }
  }

  @Benchmark
  public void update() {
    counter.update(items[next++ & (ITEMS - 1)], 1);
  }

  @Benchmark
  public long estimate() {
    return counter.estimate(items[next++ & (ITEMS - 1)]);
  }
}
