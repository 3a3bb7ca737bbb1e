package io.varve.benchmarks;

import io.varve.core.blocked.BlockedIndex;
import io.varve.core.blocked.BlockedIndexParameters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;

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
 * Single-threaded: the lookup cursor is shared state. JMH settings: {@code LookupBenchmark}.
 */
public class BlockedRankBenchmark extends RankBenchmark {
  /** The average number of keys per 1024-bit block. */
  @Param({"256", "300", "320"})
  public int keysPerBlock;

  /** The number of indexed hashes. */
  @Param("10000000")
  public int keys;

  BlockedIndex index;

  @Setup(Level.Trial)
  public void setup() {
    double seconds = prepare(keys, data -> index = data.buildBlocked(new BlockedIndexParameters(keysPerBlock)));
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
        seconds);
  }

  /** The rank of the next member hash in the lookup order. */
  @Benchmark
  public long rank() {
    return rankNext(index);
  }
}
