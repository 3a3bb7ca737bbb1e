package io.varve.reader;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
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
 * What counting a lookup in flight costs, the guard that {@link Store#close()} waits on: {@code
 * exact}, today's {@link LookupGuard} (a slot per thread, exact), against {@code longAdder}, the
 * {@code LongAdder} count it replaced (kept here only as the baseline: it could miss a reader and
 * let close unmap under it). One operation is an enter and an exit around no work, so the score is
 * the whole overhead a lookup pays. In this package because the guard is package-private.
 *
 * <pre>
 * java -jar benchmarks/target/benchmarks.jar LookupGuardBenchmark -t 1   # also -t 2, -t 16
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(2)
public class LookupGuardBenchmark {
  /** {@code exact} ({@link LookupGuard}) or {@code longAdder} (the count before issue 19). */
  @Param({"exact", "longAdder"})
  public String guard;

  Guard counter;

  /** The two ways to count lookups in flight. */
  interface Guard {
    int enter();

    void exit(int slot);
  }

  @Setup
  public void setup() {
    counter = create(guard);
  }

  static Guard create(String kind) {
    switch (kind) {
      case "exact":
        LookupGuard exact = new LookupGuard("benchmark");
        return new Guard() {
          @Override
          public int enter() {
            int slot = exact.slot();
            exact.enter(slot);
            return slot;
          }

          @Override
          public void exit(int slot) {
            exact.exit(slot);
          }
        };
      case "longAdder":
        return new LongAdderGuard();
      default:
        throw new IllegalArgumentException("guard " + kind);
    }
  }

  /** The guard as Store had it before issue 19, line for line. */
  static final class LongAdderGuard implements Guard {
    private final LongAdder readsInProgress = new LongAdder();
    private volatile boolean closed;

    @Override
    public int enter() {
      readsInProgress.increment();
      if (closed) {
        readsInProgress.decrement();
        throw new IllegalStateException("closed");
      }
      return 0;
    }

    @Override
    public void exit(int slot) {
      readsInProgress.decrement();
    }

    long sum() {
      return readsInProgress.sum();
    }
  }

  /** An enter and an exit, as every lookup makes. */
  @Benchmark
  public int enterExit() {
    int slot = counter.enter();
    try {
      return slot;
    } finally {
      counter.exit(slot);
    }
  }
}
