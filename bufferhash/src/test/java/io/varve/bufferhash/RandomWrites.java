package io.varve.bufferhash;

import java.util.List;
import java.util.Random;

/** One random write of the crash tests, made to a table and to its {@link DurableModel}. Stateless. */
final class RandomWrites {
  private RandomWrites() {}

  /**
   * Puts (75 %), deletes (24 %) or syncs (1 %); the model learns of the write first (it may reach
   * the table even if the call fails), and that it is durable once the table says so.
   */
  static void step(BufferHash table, DurableModel model, List<byte[]> keys, Random random, Durability durability) {
    byte[] key = keys.get(random.nextInt(keys.size()));
    int kind = random.nextInt(100);
    if (kind < 75) {
      byte[] value = BufferHashModelTest.value(random);
      model.write(key, value);
      table.put(key, value);
    } else if (kind < 99) {
      model.write(key, null);
      table.delete(key);
    } else {
      table.sync();
      model.acknowledge();
      return;
    }
    if (durability == Durability.SYNC_EVERY_WRITE) {
      model.acknowledge();
    }
  }
}
