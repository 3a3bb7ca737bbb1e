package io.varve.benchmarks;

import io.varve.core.ect.EctIndex;
import io.varve.core.ect.EctParameters;
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
import org.openjdk.jmh.annotations.Warmup;

/**
 * {@link EctIndex#rank} of one member hash per invocation (hash given: the key hashing is not
 * included), cycling through a precomputed random lookup order. Setup prints the space of the
 * setting ({@code [space] ...} lines) so the run log holds space next to time.
 *
 * <pre>
 * java -jar benchmarks/target/benchmarks.jar EctRankBenchmark
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
public class EctRankBenchmark {
  /** {@code g}, the average keys per virtual bucket. */
  @Param({"64", "128", "256", "512"})
  public int bucketSize;

  /** {@code hmax}, the largest subtrie size coded with binomial Huffman codes. */
  @Param("64")
  public int huffmanMax;

  /** Trie levels that store skip lengths (0 = the paper's plain tries). */
  @Param({"0", "2", "3"})
  public int skipLevels;

  /** The number of indexed hashes. */
  @Param("10000000")
  public int keys;

  EctIndex index;
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
    index = data.buildEct(new EctParameters(bucketSize, huffmanMax, skipLevels));
    long built = System.nanoTime();
    order = BenchmarkData.lookupOrder(keys, BenchmarkData.LOOKUP_SEED);
    queryHi = data.hiAt(order);
    queryLo = data.loAt(order);
    cursor = 0;
    batchRanks = new long[order.length];
    batchCursor = 0;
    double n = keys;
    System.out.printf(
        "%n[space] ECT g=%d hmax=%d skip=%d n=%d: tries %.4f + directory %.4f = %.4f bits/key;"
            + " heap %.4f bits/key (%.4f bytes/key, %d bytes); data+build %.1f s%n",
        bucketSize,
        huffmanMax,
        skipLevels,
        keys,
        index.trieBits() / n,
        index.directoryBits() / n,
        index.bitsPerKey(),
        index.ramBytesUsed() * 8 / n,
        index.ramBytesUsed() / n,
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

  /** Lookups per {@link #rankBatch} call. */
  static final int BATCH = 1024;

  /** Where {@link #rankBatch} writes its ranks, parallel to the queries. */
  long[] batchRanks;

  private int batchCursor;

  /**
   * {@link EctIndex#rank(long[], long[], long[], int, int)} over the next {@value #BATCH} lookups
   * of the order (or the rest of it); the score is per lookup.
   */
  @Benchmark
  @OperationsPerInvocation(BATCH)
  public long[] rankBatch() {
    int start = batchCursor;
    int end = Math.min(queryHi.length, start + BATCH);
    index.rank(queryHi, queryLo, batchRanks, start, end);
    batchCursor = end == queryHi.length ? 0 : end;
    return batchRanks;
  }

  /** The first lookup of the next {@link #rankBatch} call (for tests). */
  int nextBatch() {
    return batchCursor;
  }

  /** The lookup the next {@link #rank()} call makes (for tests). */
  int nextLookup() {
    return cursor;
  }
}
