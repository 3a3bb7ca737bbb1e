package io.varve.silt;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.core.testing.FailingChannel;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A put or sync that fails (a full disk, a failed {@code fsync}) leaves the store read-only: no
 * later write is acknowledged, since a failed {@code fsync} may have dropped pages that a later one
 * would not report; reads go on, and reopening holds every acknowledged write and nothing else.
 */
class SiltWriteFailureTest {
  @TempDir Path temp;

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** Makes the store's logs fail when {@link FailingChannel} is armed, until closed. */
  private static AutoCloseable failingLogs() {
    FailingChannel.disarm();
    FileAccess.opener = (file, options) -> {
      FileChannel channel = FileChannel.open(file, options);
      return file.getFileName().toString().endsWith(".vlog") ? FailingChannel.wrap(channel) : channel;
    };
    return () -> {
      FailingChannel.disarm();
      FileAccess.opener = FileChannel::open;
    };
  }

  private static Map<String, String> fill(SiltStore store) throws IOException {
    Map<String, String> acknowledged = new TreeMap<>();
    for (int i = 0; i < 40; i++) {
      store.put(bytes("k" + i), bytes("v" + i));
      acknowledged.put("k" + i, "v" + i);
    }
    return acknowledged;
  }

  private static void assertHolds(SiltStore store, Map<String, String> acknowledged, String... absent) {
    acknowledged.forEach((k, v) -> assertArrayEquals(bytes(v), store.get(bytes(k)), k));
    for (String key : absent) {
      assertNull(store.get(bytes(key)), key);
    }
  }

  private static void assertRefusesWrites(SiltStore store) {
    IOException refused = assertThrows(IOException.class, () -> store.put(bytes("late"), bytes("x")));
    assertTrue(refused.getMessage().contains("takes no more writes"), refused.getMessage());
    assertThrows(IOException.class, () -> store.delete(bytes("k1")));
    assertThrows(IOException.class, store::sync);
    assertThrows(IOException.class, store::freezeLog);
  }

  @Test
  void aFailedSyncRefusesLaterWritesAndKeepsWhatWasAcknowledged() throws Exception {
    Path dir = temp.resolve("sync");
    Map<String, String> acknowledged;
    try (AutoCloseable failing = failingLogs();
        SiltStore store = SiltStore.open(dir, SiltStoreModelTest.SMALL)) {
      acknowledged = fill(store);
      FailingChannel.FAIL_NEXT_FORCE.set(true);
      assertThrows(IOException.class, store::sync);
      assertRefusesWrites(store);
      assertHolds(store, acknowledged, "late");
    }
    try (SiltStore reopened = SiltStore.open(dir, SiltStoreModelTest.SMALL)) {
      assertHolds(reopened, acknowledged, "late");
      reopened.put(bytes("late"), bytes("x"));
      assertArrayEquals(bytes("x"), reopened.get(bytes("late")));
    }
  }

  @Test
  void aWriteCutShortByAFullDiskIsDroppedOnReopen() throws Exception {
    Path dir = temp.resolve("full");
    Map<String, String> acknowledged;
    try (AutoCloseable failing = failingLogs();
        SiltStore store = SiltStore.open(dir, SiltStoreModelTest.SMALL)) {
      acknowledged = fill(store);
      FailingChannel.FAIL_NEXT_WRITE.set(true);
      assertThrows(IOException.class, () -> store.put(bytes("cut"), new byte[3000]));
      assertRefusesWrites(store);
      assertHolds(store, acknowledged, "cut", "late");
    }
    try (SiltStore reopened = SiltStore.open(dir, SiltStoreModelTest.SMALL)) {
      assertHolds(reopened, acknowledged, "cut", "late");
      assertTrue(reopened.stats().logEntries() >= acknowledged.size());
    }
  }

  @Test
  void aFailedSyncOfAPutSyncedOnEveryWriteFailsThatPutAndTheNext() throws Exception {
    Path dir = temp.resolve("every");
    SiltOptions syncing = SiltStoreModelTest.SMALL.toBuilder().syncEveryWrite(true).build();
    Map<String, String> acknowledged;
    try (AutoCloseable failing = failingLogs();
        SiltStore store = SiltStore.open(dir, syncing)) {
      acknowledged = fill(store);
      FailingChannel.FAIL_NEXT_FORCE.set(true);
      assertThrows(IOException.class, () -> store.put(bytes("unsure"), bytes("u")));
      assertRefusesWrites(store);
      assertHolds(store, acknowledged, "late");
    }
    try (SiltStore reopened = SiltStore.open(dir, syncing)) {
      assertHolds(reopened, acknowledged, "late");
    }
  }
}
