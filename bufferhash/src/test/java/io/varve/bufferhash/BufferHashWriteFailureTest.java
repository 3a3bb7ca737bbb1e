package io.varve.bufferhash;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.core.testing.FailingChannel;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A write or sync that fails (a full disk, a failed {@code fsync}), of the write-ahead log or of
 * the incarnation log, makes the table refuse writes: a later sync that succeeded could not vouch
 * for what the failed one lost, so nothing more may be acknowledged. Reads go on, and reopening
 * holds every write synced before.
 */
class BufferHashWriteFailureTest {
  @TempDir Path temp;

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** Makes the table's files whose names start with {@code prefix} fail when {@link FailingChannel} is armed, until closed. */
  private static AutoCloseable failing(String prefix) {
    FailingChannel.disarm();
    Channels.opener = (file, options) -> {
      FileChannel channel = FileChannel.open(file, options);
      return file.getFileName().toString().startsWith(prefix) ? FailingChannel.wrap(channel) : channel;
    };
    return () -> {
      FailingChannel.disarm();
      Channels.opener = FileChannel::open;
    };
  }

  @ParameterizedTest
  @CsvSource({"SYNC_ON_CALL, wal-, force", "SYNC_ON_CALL, wal-, write", "BUFFERS_IN_RAM, log, force", "BUFFERS_IN_RAM, log, write"})
  void aFailedSyncRefusesLaterWritesAndKeepsWhatWasSynced(Durability durability, String files, String failing) throws Exception {
    Path dir = temp.resolve(durability + "-" + failing);
    try (AutoCloseable hook = failing(files);
        BufferHash table = BufferHashKillTest.builder(dir, durability).open()) {
      for (int i = 0; i < 200; i++) {
        table.put(bytes("k" + i), bytes("v" + i));
      }
      table.sync();
      table.put(bytes("unsure"), bytes("u"));
      (failing.equals("force") ? FailingChannel.FAIL_NEXT_FORCE : FailingChannel.FAIL_NEXT_WRITE).set(true);
      assertThrows(UncheckedIOException.class, table::sync);
      UncheckedIOException refused = assertThrows(UncheckedIOException.class, () -> table.put(bytes("late"), bytes("x")));
      assertTrue(refused.getCause().getMessage().contains("takes no more writes"), refused.getCause().getMessage());
      assertThrows(UncheckedIOException.class, () -> table.delete(bytes("k1")));
      assertThrows(UncheckedIOException.class, table::sync);
      for (int i = 0; i < 200; i++) {
        assertArrayEquals(bytes("v" + i), table.get(bytes("k" + i)), "k" + i);
      }
      assertNull(table.get(bytes("late")));
    }
    try (BufferHash reopened = BufferHashKillTest.builder(dir, durability).open()) {
      for (int i = 0; i < 200; i++) {
        assertArrayEquals(bytes("v" + i), reopened.get(bytes("k" + i)), "k" + i);
      }
      assertNull(reopened.get(bytes("late")));
      reopened.put(bytes("late"), bytes("x"));
      reopened.sync();
      assertArrayEquals(bytes("x"), reopened.get(bytes("late")));
    }
  }

  /**
   * A new table whose creation fails (a full disk as its log's length is set, a failed write or
   * {@code fsync} of its first state) takes its files with it: before, it left a log beside an
   * empty state, which every later open refused as a table that had lost its state.
   */
  @ParameterizedTest
  @CsvSource({"log, write", "log, force", "state, write", "state, force"})
  void aCreationThatFailsLeavesADirectoryThatCreatesOnTheNextOpen(String files, String failing) throws Exception {
    Path dir = temp.resolve("new-" + files + "-" + failing);
    try (AutoCloseable hook = failing(files)) {
      (failing.equals("force") ? FailingChannel.FAIL_NEXT_FORCE : FailingChannel.FAIL_NEXT_WRITE).set(true);
      java.io.IOException refused =
          assertThrows(java.io.IOException.class, () -> BufferHashKillTest.builder(dir, Durability.BUFFERS_IN_RAM).open().close());
      // The kernel's message names no file: the table's directory is added (it was bare).
      assertTrue(refused.getMessage().contains(dir.toString()) && refused.getMessage().contains("(injected"), refused.getMessage());
    }
    try (BufferHash table = BufferHashKillTest.builder(dir, Durability.BUFFERS_IN_RAM).open()) {
      table.put(bytes("k"), bytes("v"));
    }
    try (BufferHash table = BufferHashKillTest.builder(dir, Durability.BUFFERS_IN_RAM).open()) {
      assertArrayEquals(bytes("v"), table.get(bytes("k")));
    }
  }
}
