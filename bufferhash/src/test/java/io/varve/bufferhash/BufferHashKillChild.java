package io.varve.bufferhash;

import java.nio.ByteBuffer;
import java.nio.file.Path;

/**
 * The child JVM of {@link BufferHashKillTest}: writes keys 0, 1, 2, ... (and deletes key i - 100
 * at every seventh step) until killed, printing {@code acked N} once every write up to step N is
 * acknowledged as durable.
 */
public final class BufferHashKillChild {
  private BufferHashKillChild() {}

  static byte[] key(long i) {
    return ("kill-key-" + i).getBytes(java.nio.charset.StandardCharsets.UTF_8);
  }

  static byte[] value(long i) {
    return ByteBuffer.allocate(8 + (int) (i % 23)).putLong(i * 31).array();
  }

  /** The key step {@code i} deletes, or -1. */
  static long deletedAt(long step) {
    return step % 7 == 0 && step >= 100 ? step - 100 : -1;
  }

  public static void main(String[] args) throws Exception {
    Path dir = Path.of(args[0]);
    Durability durability = Durability.valueOf(args[1]);
    java.util.Random random = new java.util.Random(Long.parseLong(args[2]));
    try (BufferHash table = BufferHashKillTest.builder(dir, durability).open()) {
      System.out.println("started");
      System.out.flush();
      int untilSync = 1 + random.nextInt(200);
      for (long i = 0; ; i++) {
        table.put(key(i), value(i));
        long deleted = deletedAt(i);
        if (deleted >= 0) {
          table.delete(key(deleted));
        }
        boolean acked = durability == Durability.SYNC_EVERY_WRITE ? i % 50 == 0 : --untilSync == 0;
        if (acked) {
          if (durability == Durability.SYNC_ON_CALL) {
            table.sync();
            untilSync = 1 + random.nextInt(200);
          }
          System.out.println("acked " + i);
          System.out.flush();
        }
      }
    }
  }
}
