package io.varve.benchmarks;

import static io.varve.benchmarks.RankBenchmarkChecks.assertRanksInHashOrder;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class BlockedRankBenchmarkTest {
  @ParameterizedTest
  @ValueSource(ints = {256, 300, 320})
  void rankIsThePositionInHashOrder(int keysPerBlock) {
    BlockedRankBenchmark bench = new BlockedRankBenchmark();
    bench.keysPerBlock = keysPerBlock;
    bench.keys = 40_000;
    bench.setup();
    assertRanksInHashOrder(bench, bench.keys, bench::rank);
    assertTrue(bench.index.bitsPerKey() > 3 && bench.index.bitsPerKey() < 4.5, "bits/key " + bench.index.bitsPerKey());
  }
}
