package io.varve.bufferhash;

import io.varve.bufferhash.BufferHashTornFlushTest.SwitchedListener;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

/**
 * What a randomized crash test drives a table with: its seeded random, the keys it writes, the
 * model of what is durable, and the eviction listener that tells the model (switchable between a
 * table's lives). Not thread-safe.
 */
final class CrashWorkload {
  final Random random;
  final List<byte[]> keys;
  final DurableModel model = new DurableModel();
  final SwitchedListener listener = new SwitchedListener(model::evicted);

  CrashWorkload(long seed) {
    this.random = new Random(seed);
    this.keys = BufferHashModelTest.keyUniverse(random, 1_500);
  }

  /** One random write, sync or delete ({@link RandomWrites#step}). */
  void step(BufferHash table, Durability durability) {
    RandomWrites.step(table, model, keys, random, durability);
  }

  /** Checks every key against {@code against} ({@link BufferHashTornFlushTest#checkAll}); returns what the table holds. */
  Map<ByteBuffer, byte[]> checkAll(BufferHash table, DurableModel against, Set<ByteBuffer> evictedOnOpen, String context) {
    return BufferHashTornFlushTest.checkAll(table, keys, against, evictedOnOpen, context);
  }
}
