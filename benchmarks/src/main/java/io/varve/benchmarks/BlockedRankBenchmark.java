package io.varve.benchmarks;

import io.varve.core.blocked.BlockedIndex;
import io.varve.core.blocked.BlockedIndexParameters;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * {@link BlockedIndex#rank} of one member hash per invocation (hash given, as in {@link
 * EctRankBenchmark}, over the same hashes and lookup order), for several {@code keysPerBlock}.
 * Setup prints the space ({@code [space] ...}).
 *
 * <pre>
 * java -jar benchmarks/target/benchmarks.jar BlockedRankBenchmark
 * java -jar benchmarks/target/benchmarks.jar "EctRankBenchmark.rank$|BlockedRankBenchmark|Sux4jMph"  # side by side
 * </pre>
 *
 * Single-threaded: the lookup cursor is shared state.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms4g", "-Xmx4g"})
public class BlockedRankBenchmark {
  /** The average number of keys per 1024-bit block. */
  @Param({"256", "300", "320"})
  public int keysPerBlock;

  /** The number of indexed hashes. */
  @Param("10000000")
  public int keys;

  BlockedIndex index;
  /** Member indexes in lookup order: the expected ranks. */
  int[] order;
  /** The hashes looked up, in lookup order (sequential, so the stream itself costs no misses). */
  long[] queryHi;
  long[] queryLo;
  private int cursor;

  @Setup(Level.Trial)
  public void setup() {
    long start = System.nanoTime();
    BenchmarkData data = BenchmarkData.sortedHashes(keys, BenchmarkData.SEED);
    index = data.buildBlocked(new BlockedIndexParameters(keysPerBlock));
    long built = System.nanoTime();
    order = BenchmarkData.lookupOrder(keys, BenchmarkData.LOOKUP_SEED);
    queryHi = data.hiAt(order);
    queryLo = data.loAt(order);
    cursor = 0;
    double n = keys;
    System.out.printf(
        "%n[space] blocked keysPerBlock=%d n=%d: %.4f bits/key (%d of %d blocks spilled, spill %.4f"
            + " bits/key); heap %.4f bits/key (%d bytes); data+build %.1f s%n",
        keysPerBlock,
        keys,
        index.bitsPerKey(),
        index.spilledBlocks(),
        index.blockCount(),
        index.spillBits() / n,
        index.ramBytesUsed() * 8 / n,
        index.ramBytesUsed(),
        (built - start) / 1e9);
  }

  /** The rank of the next member hash in the lookup order. */
  @Benchmark
  public long rank() {
    int i = cursor;
    long rank = index.rank(queryHi[i], queryLo[i]);
    cursor = BenchmarkData.nextLookup(i, queryHi.length);
    return rank;
  }

  /** The lookup the next {@link #rank()} call makes (for tests). */
  int nextLookup() {
    return cursor;
  }
}
