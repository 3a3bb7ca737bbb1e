package io.varve.benchmarks;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.IOException;
import java.nio.file.Files;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Both sides of the sharded lookup benchmark look up the same keys and return the same, right values. */
class ShardedLookupBenchmarkTest {
  @ParameterizedTest
  @ValueSource(ints = {1, 8, 64})
  void storeAndShardedStoreAnswerEachQueryAlike(int shards) throws IOException {
    ShardedLookupBenchmark bench = new ShardedLookupBenchmark();
    bench.keys = 5_000;
    bench.shards = shards;
    bench.setup();
    try {
      assertEquals(5_000, bench.store.size());
      assertEquals(5_000, bench.sharded.size());
      assertEquals(shards, bench.sharded.shardCount());
      StoreLookupBenchmark.Cursor single = new StoreLookupBenchmark.Cursor();
      StoreLookupBenchmark.Cursor routed = new StoreLookupBenchmark.Cursor();
      for (int call = 0; call < 6_000; call++) {
        int query = single.next;
        assertEquals(query, routed.next);
        byte[] expected = StoreLookupBenchmark.value(bench.queryIds[query]);
        assertArrayEquals(expected, bench.storeGet(single), "storeGet " + call);
        assertArrayEquals(expected, bench.shardedGet(routed), "shardedGet " + call);
      }
      StoreLookupBenchmark.Batch batch = new StoreLookupBenchmark.Batch();
      for (int round = 0; round < 3; round++) {
        int first = single.next;
        byte[][] fromStore = bench.storeGetAll(single, batch).clone();
        byte[][] fromShards = bench.shardedGetAll(routed, batch);
        assertEquals(single.next, routed.next);
        for (int i = 0; i < StoreLookupBenchmark.BATCH; i++) {
          int query = (first + i) % bench.queries.length;
          byte[] expected = StoreLookupBenchmark.value(bench.queryIds[query]);
          assertArrayEquals(expected, fromStore[i], "storeGetAll " + i);
          assertArrayEquals(expected, fromShards[i], "shardedGetAll " + i);
        }
      }
    } finally {
      bench.tearDown();
    }
    assertFalse(Files.exists(bench.directory));
  }
}
