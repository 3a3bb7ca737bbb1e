package io.varve.benchmarks;

import io.varve.core.index.RankIndex;
import java.util.function.Consumer;

/**
 * A rank benchmark: an index over the hashes of {@link BenchmarkData}, given member hashes in lookup
 * order (the hash given, so key hashing is not measured). Subclasses hold the index and rank.
 */
abstract class RankBenchmark extends LookupBenchmark {
  /** Member indexes in lookup order: the expected ranks. */
  int[] order;
  /** The hashes looked up, in lookup order (sequential, so the stream itself costs no misses). */
  long[] queryHi;
  long[] queryLo;

  /**
   * Makes {@code keys} hashes, hands them to {@code build} to build the index, then makes the
   * lookups; returns the seconds the data and the build took.
   */
  final double prepare(int keys, Consumer<BenchmarkData> build) {
    long start = System.nanoTime();
    BenchmarkData data = BenchmarkData.sortedHashes(keys, BenchmarkData.SEED);
    build.accept(data);
    long built = System.nanoTime();
    order = startLookups(keys);
    queryHi = data.hiAt(order);
    queryLo = data.loAt(order);
    return (built - start) / 1e9;
  }

  /**
   * The benchmark call: ranks the next member hash of the lookup order with {@code index}. Inlined
   * into the subclass's call, where the index's class is known, so the rank call is bound statically.
   */
  final long rankNext(RankIndex index) {
    int i = advance(queryHi.length);
    return index.rank(queryHi[i], queryLo[i]);
  }
}
