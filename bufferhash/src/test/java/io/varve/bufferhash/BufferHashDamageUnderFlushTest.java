package io.varve.bufferhash;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.core.format.CorruptStoreException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * An incarnation damaged under the open table, that a flush's eviction must read (for the listener
 * or a partial discard), fails that flush with {@link CorruptStoreException}, and from then on the
 * table refuses writes (reads go on). Before, every later flush met the damage again: each write
 * that sealed a buffer threw and left one more sealed buffer in RAM (12.5 MB for a 256 KiB budget
 * after 200,000 puts), and with the LRU policy every read from the SSD did the same.
 */
class BufferHashDamageUnderFlushTest {
  @TempDir Path temp;

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static EvictionPolicy policy(String name) {
    return switch (name) {
      case "fifo" -> EvictionPolicy.fifo();
      case "lru" -> EvictionPolicy.lru();
      case "updateBased" -> EvictionPolicy.updateBased();
      default -> EvictionPolicy.priority((k, v) -> k.length % 2 == 0);
    };
  }

  @ParameterizedTest
  @ValueSource(strings = {"fifo", "lru", "updateBased", "priority"})
  void aDamagedIncarnationMetByAFlushRefusesLaterWritesAndHoldsRamInItsBudget(String policy) throws Exception {
    Path dir = temp.resolve(policy);
    try (BufferHash table = RandomWrites.smallTable(dir, Durability.BUFFERS_IN_RAM, 4096).evictionPolicy(policy(policy)).evictionListener((k, v) -> {}).open()) {
      int written = 0;
      while (table.stats().flushes() < 60) {
        table.put(bytes("k" + written), bytes("v" + written));
        written++;
      }
      // The first incarnation, the oldest: the next eviction reads it.
      try (RandomAccessFile log = new RandomAccessFile(dir.resolve("log").toFile(), "rw")) {
        log.seek(100);
        int b = log.read();
        log.seek(100);
        log.write(b ^ 1);
      }
      long ramBefore = table.ramBytesUsed();
      CorruptStoreException damage = null;
      int refused = 0;
      for (int i = 0; i < 20_000; i++) {
        try {
          table.put(bytes("x" + i), new byte[40]);
        } catch (CorruptStoreException e) {
          assertTrue(damage == null, "only the first flush meets the damage, later writes are refused: " + e);
          assertTrue(e.getMessage().contains(dir.resolve("log").toString()), e.getMessage());
          damage = e;
        } catch (UncheckedIOException e) {
          assertNotNull(damage, "refused before the damage was met: " + e);
          assertInstanceOf(CorruptStoreException.class, e.getCause().getCause(), "the refusal names the damage");
          refused++;
        }
      }
      assertNotNull(damage, "the eviction met the damaged incarnation");
      assertTrue(refused > 0, "later writes are refused");
      assertThrows(UncheckedIOException.class, table::sync);
      for (int round = 0; round < 3; round++) {
        for (int i = 0; i < written; i++) {
          try {
            table.get(bytes("k" + i)); // reads go on; under LRU a read from the SSD writes a copy
          } catch (CorruptStoreException e) {
            // a key of the damaged unit
          }
        }
      }
      long ramAfter = table.ramBytesUsed();
      assertTrue(ramAfter <= ramBefore + 32 * 1024, policy + ": RAM " + ramBefore + " before the damage, " + ramAfter + " after");
    }
  }
}
