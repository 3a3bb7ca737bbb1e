package io.varve.benchmarks;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What the single-lookup benchmarks share: their JMH settings (the annotations are inherited) and a
 * cursor that cycles through a precomputed lookup order, so that a benchmark call pays for no
 * random number generator.
 *
 * <p>Single-threaded: the lookup cursor is shared state.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms4g", "-Xmx4g"})
abstract class LookupBenchmark {
  private int cursor;

  /** The random lookup order over {@code n} keys every benchmark uses; the cursor starts over. */
  final int[] startLookups(int n) {
    cursor = 0;
    return BenchmarkData.lookupOrder(n, BenchmarkData.LOOKUP_SEED);
  }

  /** The lookup this call makes, of {@code lookups}; the cursor moves to the next, cycling. */
  final int advance(int lookups) {
    int i = cursor;
    cursor = BenchmarkData.nextLookup(i, lookups);
    return i;
  }

  /** The lookup the next benchmark call makes (for tests). */
  final int nextLookup() {
    return cursor;
  }
}
