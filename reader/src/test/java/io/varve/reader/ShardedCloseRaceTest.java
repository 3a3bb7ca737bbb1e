package io.varve.reader;


import io.varve.builder.ShardedStoreBuilder;
import io.varve.core.testing.TestRecords;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link CloseRaceTest} for a sharded store: a thread in long {@code getAll}s across all shards and
 * four threads calling {@code get} and {@code contains} while another closes the store. Every
 * answer must be right or a {@link StoreClosedException}; a close that unmapped a shard under a
 * reader would crash this JVM. After close, every call fails with {@link StoreClosedException}.
 */
class ShardedCloseRaceTest {
  private static final int ROUNDS = Integer.getInteger("varve.closeRace.rounds", 300) / 10;
  private static final int GETTERS = 4;

  @TempDir Path temp;

  @Test
  void closeWhileOtherThreadsReadIsSafe() throws Exception {
    long seed = 0x5C105EL;
    System.out.println("ShardedCloseRaceTest seed " + Long.toHexString(seed) + ", " + ROUNDS + " rounds");
    Map<ByteBuffer, byte[]> records = TestRecords.variable(20_000, seed, 24, 40);
    Path root = temp.resolve("sharded");
    try (ShardedStoreBuilder builder = ShardedStoreBuilder.create(root, 7)) {
      for (Map.Entry<ByteBuffer, byte[]> e : records.entrySet()) {
        builder.put(e.getKey().array(), e.getValue());
      }
      builder.build();
    }
    List<byte[]> keys = new ArrayList<>();
    records.keySet().forEach(k -> keys.add(k.array()));
    SplittableRandom random = new SplittableRandom(seed);
    byte[][] batch = CloseRace.batch(keys, 30_000, random);
    for (int round = 0; round < ROUNDS; round++) {
      CloseRace.round(CloseRace.of(ShardedStore.open(root)), records, keys, batch, GETTERS, random, round);
    }
  }
}
