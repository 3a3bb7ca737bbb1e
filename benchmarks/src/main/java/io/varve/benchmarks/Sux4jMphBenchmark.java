package io.varve.benchmarks;

import it.unimi.dsi.bits.TransformationStrategies;
import it.unimi.dsi.bits.TransformationStrategy;
import it.unimi.dsi.sux4j.mph.GOVMinimalPerfectHashFunction;
import it.unimi.dsi.sux4j.mph.Hashes;
import java.io.File;
import java.io.IOException;
import java.lang.reflect.Field;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;

/**
 * sux4j's {@link GOVMinimalPerfectHashFunction} over the same keys as {@link EctRankBenchmark}: each
 * 128-bit hash of {@link BenchmarkData} as a 16-byte key ({@link BenchmarkData#keyBytes}, {@link
 * TransformationStrategies#rawByteArray()}). Two lookups:
 *
 * <ul>
 *   <li>{@link #getLong()}: the whole lookup from the 16-byte key, SpookyHash of the key included;
 *   <li>{@link #getLongBySignature()}: from the key's precomputed 128-bit signature, the
 *       like-for-like point against {@link EctRankBenchmark#rank()} (which is also given a hash).
 * </ul>
 *
 * Setup prints {@code numBits() / n} ({@code [space] ...} line). The build spills hashes to
 * temporary files under {@code java.io.tmpdir} (override with {@code -Dvarve.bench.tmp=DIR}): about
 * 10^7 &times; 16 bytes, and a few GB of heap at 10^7 keys.
 *
 * <pre>
 * java -jar benchmarks/target/benchmarks.jar Sux4jMphBenchmark
 * </pre>
 *
 * Single-threaded: the lookup cursor is shared state. JMH settings: {@code LookupBenchmark}.
 */
public class Sux4jMphBenchmark extends LookupBenchmark {
  /** The number of keys. */
  @Param("10000000")
  public int keys;

  GOVMinimalPerfectHashFunction<byte[]> mph;
  /** Member indexes in lookup order. */
  int[] order;
  /** The keys looked up, in lookup order (allocated in that order, so they lie mostly in sequence). */
  byte[][] queryKeys;
  /** Their sux4j signatures (SpookyHash-4 of the key under the function's seed), in lookup order. */
  long[][] querySignatures;

  @Setup(Level.Trial)
  public void setup() throws IOException {
    long start = System.nanoTime();
    BenchmarkData data = BenchmarkData.sortedHashes(keys, BenchmarkData.SEED);
    mph = build(data);
    long built = System.nanoTime();
    order = startLookups(keys);
    queryKeys = new byte[order.length][];
    querySignatures = new long[order.length][];
    TransformationStrategy<byte[]> transform = TransformationStrategies.rawByteArray();
    long seed = globalSeed(mph);
    for (int i = 0; i < order.length; i++) {
      queryKeys[i] = data.keyBytes(order[i]);
      querySignatures[i] = new long[2];
      Hashes.spooky4(transform.toBitVector(queryKeys[i]), seed, querySignatures[i]);
    }
    System.out.printf(
        "%n[space] GOV MPHF n=%d: %.4f bits/key (numBits %d); build %.1f s%n",
        keys, (double) mph.numBits() / keys, mph.numBits(), (built - start) / 1e9);
  }

  /** Builds the function over every hash of {@code data} as a 16-byte key. */
  static GOVMinimalPerfectHashFunction<byte[]> build(BenchmarkData data) throws IOException {
    String tmp = System.getProperty("varve.bench.tmp");
    return GovFunctions.build(data.size(), data::keyBytes, tmp == null ? null : new File(tmp));
  }

  /** The seed {@link GOVMinimalPerfectHashFunction#getLong} hashes keys with (a protected field). */
  static long globalSeed(GOVMinimalPerfectHashFunction<?> function) {
    try {
      Field field = GOVMinimalPerfectHashFunction.class.getDeclaredField("globalSeed");
      field.setAccessible(true);
      return field.getLong(function);
    } catch (ReflectiveOperationException | RuntimeException e) {
      throw new IllegalStateException("cannot read GOVMinimalPerfectHashFunction.globalSeed", e);
    }
  }

  /** The whole lookup: SpookyHash of the 16-byte key, then the function. */
  @Benchmark
  public long getLong() {
    return mph.getLong(queryKeys[advance(queryKeys.length)]);
  }

  /** The function given the key's precomputed signature (hashing excluded, as in ECT rank). */
  @Benchmark
  public long getLongBySignature() {
    return mph.getLongBySignature(querySignatures[advance(querySignatures.length)]);
  }
}
