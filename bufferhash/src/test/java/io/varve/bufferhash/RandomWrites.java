package io.varve.bufferhash;

import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/** The random writes of the crash tests, made to a table and to a model of it, and the check of what survived. Stateless. */
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

  /**
   * Puts {@code count} random entries of distinct random keys (8 to 23 bytes; values up to 15),
   * syncing after every {@code syncEvery} (0: never); returns them.
   */
  static Map<ByteBuffer, byte[]> putFresh(BufferHash table, Random random, int count, int syncEvery) {
    Map<ByteBuffer, byte[]> model = new LinkedHashMap<>();
    for (int i = 1; i <= count; i++) {
      byte[] key = new byte[8 + random.nextInt(16)];
      random.nextBytes(key);
      byte[] value = new byte[random.nextInt(16)];
      random.nextBytes(value);
      table.put(key, value);
      model.put(ByteBuffer.wrap(key), value);
      if (syncEvery > 0 && i % syncEvery == 0) {
        table.sync();
      }
    }
    return model;
  }

  /** Opens {@code builder}'s table and checks that it holds every entry of {@code model}. */
  static void checkHolds(BufferHashBuilder builder, Map<ByteBuffer, byte[]> model, String context) throws java.io.IOException {
    try (BufferHash table = BufferHashTornFlushTest.open(builder, context)) {
      for (Map.Entry<ByteBuffer, byte[]> entry : model.entrySet()) {
        org.junit.jupiter.api.Assertions.assertArrayEquals(entry.getValue(), table.get(entry.getKey().array()), context + ": a durable write");
      }
    }
  }

  /**
   * A small table for the crash tests: a 1 MiB log, 256 KiB of RAM, 4 super tables of buffers of
   * {@code bufferBytes}, 16 KiB write-ahead segments.
   */
  static BufferHashBuilder smallTable(java.nio.file.Path dir, Durability durability, int bufferBytes) {
    return BufferHash.builder(dir)
        .logBytes(1 << 20)
        .memoryBytes(256 * 1024)
        .entryBytes(40)
        .bufferBytes(bufferBytes)
        .superTables(4)
        .seed(0x5EEDB0FFL) // fixed: BufferHashSyncRacingAFailedCloseTest places keys by it
        .durability(durability)
        .walSegmentBytes(16 * 1024);
  }
}
