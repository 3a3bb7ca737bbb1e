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
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A write or sync of the write-ahead log that fails (a full disk, a failed {@code fsync}) makes the
 * table refuse writes: a later sync that succeeded could not vouch for the records the failed one
 * lost, so none may be acknowledged. Reads go on, and reopening holds every write synced before.
 */
class BufferHashWriteFailureTest {
  @TempDir Path temp;

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** Makes the table's write-ahead segments fail when {@link FailingChannel} is armed, until closed. */
  private static AutoCloseable failingSegments() {
    FailingChannel.disarm();
    WriteAheadLog.opener = (file, options) -> FailingChannel.wrap(FileChannel.open(file, options));
    return () -> {
      FailingChannel.disarm();
      WriteAheadLog.opener = FileChannel::open;
    };
  }

  @ParameterizedTest
  @ValueSource(strings = {"force", "write"})
  void aFailedSyncRefusesLaterWritesAndKeepsWhatWasSynced(String failing) throws Exception {
    Path dir = temp.resolve(failing);
    try (AutoCloseable hook = failingSegments();
        BufferHash table = BufferHashKillTest.builder(dir, Durability.SYNC_ON_CALL).open()) {
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
    try (BufferHash reopened = BufferHashKillTest.builder(dir, Durability.SYNC_ON_CALL).open()) {
      for (int i = 0; i < 200; i++) {
        assertArrayEquals(bytes("v" + i), reopened.get(bytes("k" + i)), "k" + i);
      }
      assertNull(reopened.get(bytes("late")));
      reopened.put(bytes("late"), bytes("x"));
      reopened.sync();
      assertArrayEquals(bytes("x"), reopened.get(bytes("late")));
    }
  }
}
