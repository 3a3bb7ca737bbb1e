package io.varve.benchmarks;

import io.varve.core.succinct.EliasFano;
import it.unimi.dsi.fastutil.longs.LongArrayList;
import it.unimi.dsi.sux4j.util.EliasFanoMonotoneLongBigList;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;

/**
 * Random access {@code get(i)} on Varve's {@link EliasFano} against sux4j's {@link
 * EliasFanoMonotoneLongBigList#getLong}, both over the same monotone sequence (gaps uniform in
 * {@code [0, 2 * meanGap)}), both at the same precomputed random indexes. Setup prints both
 * structures' bits per element ({@code [space] ...} lines).
 *
 * <pre>
 * java -jar benchmarks/target/benchmarks.jar EliasFanoBenchmark
 * </pre>
 *
 * Single-threaded: the lookup cursor is shared state. JMH settings: {@code LookupBenchmark}.
 */
public class EliasFanoBenchmark extends LookupBenchmark {
  /** The number of elements. */
  @Param("10000000")
  public int elements;

  /** The mean gap between consecutive elements (2^8: about 10 bits per element). */
  @Param("256")
  public long meanGap;

  EliasFano varve;
  EliasFanoMonotoneLongBigList sux4j;
  /** The indexes read, in lookup order. */
  long[] queryIndex;

  @Setup(Level.Trial)
  public void setup() {
    long[] values = values();
    long upperBound = values[values.length - 1];
    varve = EliasFano.builder(values.length, upperBound).addAll(values).build();
    // sux4j documents upperBound as "an upper bound to the values"; last + 1 is valid whether it
    // is read as inclusive or exclusive.
    sux4j =
        new EliasFanoMonotoneLongBigList(
            values.length, upperBound + 1, LongArrayList.wrap(values).iterator());
    int[] order = startLookups(elements);
    queryIndex = new long[order.length];
    for (int i = 0; i < order.length; i++) {
      queryIndex[i] = order[i];
    }
    double n = elements;
    System.out.printf(
        "%n[space] EliasFano n=%d meanGap=%d: varve encoded %.4f bits/element, heap %.4f bits/element"
            + " (with select samples); sux4j numBits %.4f bits/element%n",
        elements,
        meanGap,
        varve.encodedBits() / n,
        varve.ramBytesUsed() * 8 / n,
        sux4j.numBits() / n);
  }

  /** The sequence both structures encode (regenerated deterministically; for setup and tests). */
  long[] values() {
    return BenchmarkData.monotoneValues(elements, meanGap, BenchmarkData.SEED);
  }

  @Benchmark
  public long varveGet() {
    return varve.get(queryIndex[advance(queryIndex.length)]);
  }

  @Benchmark
  public long sux4jGetLong() {
    return sux4j.getLong(queryIndex[advance(queryIndex.length)]);
  }
}
