package io.varve.bufferhash;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import io.varve.core.testing.InterruptedReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * An interrupted thread's lookup, write, sync or close neither fails nor breaks the table for the
 * others (a {@code FileChannel} closes itself when a thread blocked in it, or entering it, is
 * interrupted), and its interrupt stays set for it. Before, one interrupted lookup closed the log
 * for every thread: later lookups and flushes failed, and close failed, losing the buffers.
 */
class BufferHashInterruptTest {
  @TempDir Path temp;

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static BufferHash filled(Path dir, Durability durability) throws Exception {
    BufferHash table = BufferHashKillTest.builder(dir, durability).open();
    for (int i = 0; i < 2_000; i++) {
      table.put(bytes("k" + i), bytes("v" + i));
    }
    table.sync();
    return table;
  }

  @ParameterizedTest
  @EnumSource(Durability.class)
  void anInterruptedThreadReadsWritesSyncsAndClosesAndKeepsItsInterrupt(Durability durability) throws Exception {
    Path dir = temp.resolve(durability.name());
    BufferHash table = filled(dir, durability);
    Thread.currentThread().interrupt();
    try {
      for (int i = 0; i < 2_000; i += 97) {
        assertArrayEquals(bytes("v" + i), table.get(bytes("k" + i)), "k" + i);
      }
      for (int i = 0; i < 2_000; i++) {
        table.put(bytes("n" + i), bytes("w" + i)); // fills buffers: flushes to the log
      }
      table.sync();
      table.put(bytes("buffered"), bytes("b"));
      table.close();
      assertTrue(Thread.currentThread().isInterrupted(), "the interrupt stays set");
    } finally {
      Thread.interrupted();
    }
    try (BufferHash reopened = BufferHashKillTest.builder(dir, durability).open()) {
      for (int i = 0; i < 2_000; i++) {
        assertArrayEquals(bytes("v" + i), reopened.get(bytes("k" + i)), "k" + i);
        assertArrayEquals(bytes("w" + i), reopened.get(bytes("n" + i)), "n" + i);
      }
      assertArrayEquals(bytes("b"), reopened.get(bytes("buffered")), "what close kept");
    }
  }

  @Test
  void interruptsOfOneReaderDoNotFailTheOthers() throws Exception {
    try (BufferHash table = filled(temp.resolve("many"), Durability.SYNC_ON_CALL)) {
      int rounds =
          InterruptedReader.race(
              () -> {
                for (int i = 0; i < 2_000; i += 7) {
                  if (!new String(table.get(bytes("k" + i)), StandardCharsets.UTF_8).equals("v" + i)) {
                    throw new AssertionError("k" + i);
                  }
                }
              },
              round -> {
                int i = round % 2_000;
                assertArrayEquals(bytes("v" + i), table.get(bytes("k" + i)));
                table.put(bytes("other-" + i), bytes("x"));
              });
      table.sync();
      assertTrue(rounds > 100, "rounds: " + rounds);
    }
  }

  @ParameterizedTest
  @EnumSource(Durability.class)
  void aTableOpensOnAnInterruptedThread(Durability durability) throws Exception {
    Path dir = temp.resolve("open-" + durability.name());
    try (BufferHash table = filled(dir, durability)) {
      table.put(bytes("buffered"), bytes("b")); // in the buffers file or the write-ahead log
    }
    Thread.currentThread().interrupt();
    try (BufferHash reopened = BufferHashKillTest.builder(dir, durability).open()) {
      assertTrue(Thread.currentThread().isInterrupted(), "the interrupt stays set");
      assertArrayEquals(bytes("b"), reopened.get(bytes("buffered")));
      assertArrayEquals(bytes("v7"), reopened.get(bytes("k7")));
    } finally {
      Thread.interrupted();
    }
  }
}
