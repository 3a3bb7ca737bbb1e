package io.varve.reader;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.builder.ShardedStoreBuilder;
import io.varve.core.testing.TestRecords;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The lookup counts of a sharded store take the memory of one store's, whatever its shard count:
 * a {@link LookupGuard} that spread fully is {@code 128 * 8 * processors} bytes and more (64 KiB
 * on 64 cores; {@link StoreGuardMemoryTest}), and one per shard made a sharded store of 65,536
 * shards hold 4 GiB of counts on a 64-core host.
 * The shards now share their sharded store's guard; close still waits for every lookup in flight
 * ({@link ShardedCloseRaceTest}).
 */
class ShardedGuardMemoryTest {
  private static final long SEED = 0x6A2D5L;
  private static final int SHARDS = 64;

  @TempDir Path temp;

  @Test
  void aShardedStoreHoldsTheCountsOfOneStoreWhateverItsShardCount() throws IOException {
    System.out.println("ShardedGuardMemoryTest seed " + SEED);
    Map<ByteBuffer, byte[]> records = TestRecords.variable(5_000, SEED, 16, 32);
    Path root = temp.resolve("sharded");
    try (ShardedStoreBuilder builder = ShardedStoreBuilder.create(root, SHARDS)) {
      for (Map.Entry<ByteBuffer, byte[]> e : records.entrySet()) {
        builder.put(e.getKey().array(), e.getValue());
      }
      builder.build();
    }
    ShardedStore store = ShardedStore.open(root);
    try {
      Set<LookupGuard> guards = Collections.newSetFromMap(new IdentityHashMap<>());
      for (Store shard : store.shards()) {
        guards.add(shard.guard());
      }
      long bytes = guards.stream().mapToLong(LookupGuard::ramBytesUsed).sum();
      long oneStore = new LookupGuard("one store").ramBytesUsed();
      System.out.println("ShardedGuardMemoryTest: " + SHARDS + " shards hold " + guards.size() + " guards, " + bytes
          + " bytes of lookup counts (one store: " + oneStore + ")");
      assertEquals(oneStore, bytes, SHARDS + " shards: " + guards.size() + " guards");
      for (Map.Entry<ByteBuffer, byte[]> e : records.entrySet()) {
        assertArrayEquals(e.getValue(), store.get(e.getKey().array()));
      }
    } finally {
      store.close();
    }
    assertTrue(store.isClosed());
    for (Store shard : store.shards()) {
      assertTrue(shard.isClosed(), shard + " left open");
    }
    assertThrows(StoreClosedException.class, () -> store.get(new byte[3]));
  }
}
