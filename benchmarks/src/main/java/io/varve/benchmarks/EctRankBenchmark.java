package io.varve.benchmarks;

import io.varve.core.ect.EctIndex;
import io.varve.core.ect.EctParameters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;

/**
 * {@link EctIndex#rank} of one member hash per invocation (hash given: the key hashing is not
 * included), cycling through a precomputed random lookup order. Setup prints the space of the
 * setting ({@code [space] ...} lines) so the run log holds space next to time.
 *
 * <pre>
 * java -jar benchmarks/target/benchmarks.jar EctRankBenchmark
 * </pre>
 *
 * Single-threaded: the lookup cursor is shared state. JMH settings: {@code LookupBenchmark}.
 */
public class EctRankBenchmark extends RankBenchmark {
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

  @Setup(Level.Trial)
  public void setup() {
    double seconds = prepare(keys, data -> index = data.buildEct(new EctParameters(bucketSize, huffmanMax, skipLevels)));
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
        seconds);
  }

  /** The rank of the next member hash in the lookup order. */
  @Benchmark
  public long rank() {
    return rankNext(index);
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
}
