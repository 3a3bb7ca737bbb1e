package io.varve.silt;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.varve.core.files.FileTrees;
import io.varve.core.testing.DelegatingChannel;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An older copy of the newest log put back (a backup, a snapshot, a file-level rollback) is
 * refused with a {@link LogShorterThanSyncException} when it lacks writes a sync acknowledged,
 * instead of opening without them as if a crash had cut its tail; {@link
 * SiltOptions#dropDamagedLogTail} opens it with what it holds. The mark may lag the log (a crash
 * between the two forces, a torn slot): a log at least as long as the mark opens whole.
 */
class SiltSyncMarkTest {
  @TempDir Path temp;

  static final SiltOptions OPTIONS = SiltOptions.builder().logStoreEntries(64).maxLogBytes(64 << 10).backgroundMerges(false).build();

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static Path newestLog(Path dir) throws IOException {
    List<Long> logs = SiltManifest.read(dir).logNumbers();
    return dir.resolve(SiltManifest.logName(logs.get(logs.size() - 1)));
  }

  private static void put(SiltStore store, Map<String, String> model, int from, int to, String tag) throws IOException {
    for (int i = from; i < to; i++) {
      store.put(bytes("k" + i), bytes(tag + i));
      model.put("k" + i, tag + i);
    }
  }

  private static void check(SiltStore store, Map<String, String> model, int keys, String context) {
    for (int i = 0; i < keys; i++) {
      String expected = model.get("k" + i);
      byte[] found = store.get(bytes("k" + i));
      if (expected == null) {
        assertNull(found, context + ": k" + i);
      } else {
        assertArrayEquals(bytes(expected), found, context + ": k" + i);
      }
    }
  }

  /**
   * A store synced twice; the newest log as it was at the first sync is put back. Before sync
   * marks it opened without the second sync's writes (15 keys of 30 lost), as if a crash had
   * cut them.
   */
  @Test
  void anOlderCopyOfTheNewestLogIsRefused() throws IOException {
    Path dir = temp.resolve("store");
    Map<String, String> model = new TreeMap<>();
    byte[] backup;
    long synced;
    try (SiltStore store = SiltStore.open(dir, OPTIONS)) {
      put(store, model, 0, 15, "a");
      store.sync();
      backup = Files.readAllBytes(newestLog(dir));
      put(store, model, 15, 30, "b");
      store.sync();
      synced = Files.size(newestLog(dir));
    }
    Path log = newestLog(dir);
    Files.write(log, backup);
    LogShorterThanSyncException refused = assertThrows(LogShorterThanSyncException.class, () -> SiltStore.open(dir, OPTIONS).close());
    System.out.println("SiltSyncMarkTest: " + refused.getMessage());
    assertTrue(refused.getMessage().contains(log.toString()) && refused.getMessage().contains("shorter than its last sync"), refused.getMessage());
    assertEquals(log, refused.file());
    assertEquals(backup.length, refused.logBytes());
    assertEquals(synced, refused.syncedBytes());
    assertArrayEquals(backup, Files.readAllBytes(log), "the refused open changed the log");
    SiltStoreModelTest.assertOnlyNamedFiles(dir);
  }

  /**
   * With {@link SiltOptions#dropDamagedLogTail} the older copy opens with what it holds, and its
   * mark follows it: the next open, without the option, takes it, and writes go on.
   */
  @Test
  void dropDamagedLogTailOpensAnOlderCopyWithWhatItHolds() throws IOException {
    Path dir = temp.resolve("store");
    Map<String, String> model = new TreeMap<>();
    byte[] backup;
    try (SiltStore store = SiltStore.open(dir, OPTIONS)) {
      put(store, model, 0, 15, "a");
      store.sync();
      backup = Files.readAllBytes(newestLog(dir));
    }
    Map<String, String> atBackup = new TreeMap<>(model);
    try (SiltStore store = SiltStore.open(dir, OPTIONS)) {
      put(store, model, 10, 30, "b");
    }
    Files.write(newestLog(dir), backup);
    try (SiltStore store = SiltStore.open(dir, OPTIONS.toBuilder().dropDamagedLogTail(true).build())) {
      check(store, atBackup, 30, "opened with dropDamagedLogTail");
    }
    try (SiltStore store = SiltStore.open(dir, OPTIONS)) {
      check(store, atBackup, 30, "reopened without it");
      put(store, atBackup, 20, 25, "c");
    }
    try (SiltStore store = SiltStore.open(dir, OPTIONS)) {
      check(store, atBackup, 30, "after more writes");
    }
  }

  /**
   * When {@link SiltOptions#dropDamagedLogTail} opens an older copy put back, the mark is rewritten
   * to the copy's length, and the copy must be forced first: the copy may not be on the device yet,
   * and a power loss after a mark that leads its log makes the next open refuse what this one
   * accepted. Watched as the order of the forces and the mark's writes through the store's opener.
   */
  @Test
  void dropDamagedLogTailForcesTheCopyBeforeTheMarkFollowsIt() throws IOException {
    Path dir = temp.resolve("store");
    byte[] backup;
    try (SiltStore store = SiltStore.open(dir, OPTIONS)) {
      put(store, new TreeMap<>(), 0, 15, "a");
      store.sync();
      backup = Files.readAllBytes(newestLog(dir));
      put(store, new TreeMap<>(), 15, 30, "b");
    }
    String log = newestLog(dir).getFileName().toString();
    Files.write(newestLog(dir), backup);
    List<String> events = Collections.synchronizedList(new ArrayList<>());
    FileAccess.Opener previous = FileAccess.opener;
    FileAccess.opener = (file, options) -> new EventChannel(file.getFileName().toString(), FileChannel.open(file, options), events);
    try {
      SiltStore.open(dir, OPTIONS.toBuilder().dropDamagedLogTail(true).build()).close();
    } finally {
      FileAccess.opener = previous;
    }
    int markWrite = events.indexOf("write " + SiltSyncMark.FILE);
    assertTrue(markWrite >= 0, "the mark followed the copy: " + events);
    assertTrue(events.subList(0, markWrite).contains("force " + log), "the copy " + log + " forced before the mark's write: " + events);
  }

  /** Records the writes and forces of one file, in order, into a list shared by every file. */
  private static final class EventChannel extends DelegatingChannel {
    private final String name;
    private final List<String> events;

    EventChannel(String name, FileChannel real, List<String> events) {
      super(real);
      this.name = name;
      this.events = events;
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
      events.add("write " + name);
      return real.write(src);
    }

    @Override
    public int write(ByteBuffer src, long position) throws IOException {
      events.add("write " + name);
      return real.write(src, position);
    }

    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
      events.add("write " + name);
      return real.write(srcs, offset, length);
    }

    @Override
    public void force(boolean metaData) throws IOException {
      events.add("force " + name);
      real.force(metaData);
    }
  }

  /**
   * A crash between the log's force and the mark's leaves the mark behind the log; a crash during
   * the mark's write tears the slot it writes. Either way the log, at least as long as the mark
   * left, opens whole.
   */
  @Test
  void aMarkBehindTheLogOrATornSlotOpensTheWholeLog() throws IOException {
    Path dir = temp.resolve("store");
    Map<String, String> model = new TreeMap<>();
    byte[] firstMark;
    try (SiltStore store = SiltStore.open(dir, OPTIONS)) {
      put(store, model, 0, 10, "a");
      store.sync();
      firstMark = Files.readAllBytes(dir.resolve(SiltSyncMark.FILE));
      put(store, model, 10, 20, "b");
      store.sync();
    }
    byte[] mark = Files.readAllBytes(dir.resolve(SiltSyncMark.FILE));

    Path behind = temp.resolve("behind");
    FileTrees.copyTree(dir, behind);
    Files.write(behind.resolve(SiltSyncMark.FILE), firstMark);
    try (SiltStore store = SiltStore.open(behind, OPTIONS)) {
      check(store, model, 20, "a mark one sync behind");
    }

    // The last sync's slot torn: the one before it answers, and the next sync writes over the torn one.
    long generation = java.nio.ByteBuffer.wrap(mark).getLong(8) > java.nio.ByteBuffer.wrap(mark).getLong(4096 + 8) ? 0 : 1;
    Path torn = temp.resolve("torn");
    FileTrees.copyTree(dir, torn);
    byte[] tornMark = mark.clone();
    tornMark[(int) generation * SiltSyncMark.SLOT_SPACING + 30] ^= 0x40;
    Files.write(torn.resolve(SiltSyncMark.FILE), tornMark);
    try (SiltStore store = SiltStore.open(torn, OPTIONS)) {
      check(store, model, 20, "the newest slot torn");
      put(store, model, 20, 25, "c");
      store.sync();
    }
    byte[] after = Files.readAllBytes(torn.resolve(SiltSyncMark.FILE));
    assertArrayEquals(java.util.Arrays.copyOfRange(tornMark, (int) (1 - generation) * SiltSyncMark.SLOT_SPACING,
            (int) (1 - generation) * SiltSyncMark.SLOT_SPACING + SiltSyncMark.SLOT_BYTES),
        java.util.Arrays.copyOfRange(after, (int) (1 - generation) * SiltSyncMark.SLOT_SPACING,
            (int) (1 - generation) * SiltSyncMark.SLOT_SPACING + SiltSyncMark.SLOT_BYTES),
        "the sync after the tear wrote over the slot that held the only valid mark");
    try (SiltStore store = SiltStore.open(torn, OPTIONS)) {
      check(store, model, 25, "after a sync over the torn slot");
    }
  }

  /** A sync with no write since the last one forces the log only: the mark is written when it has news. */
  @Test
  void aSyncWithNothingNewLeavesTheMarkAlone() throws IOException {
    Path dir = temp.resolve("store");
    try (SiltStore store = SiltStore.open(dir, OPTIONS)) {
      byte[] created = Files.readAllBytes(dir.resolve(SiltSyncMark.FILE));
      store.put(bytes("k"), bytes("v"));
      store.sync();
      byte[] synced = Files.readAllBytes(dir.resolve(SiltSyncMark.FILE));
      assertTrue(!java.util.Arrays.equals(created, synced), "a sync after a write left the mark as it was");
      store.sync();
      store.sync();
      assertArrayEquals(synced, Files.readAllBytes(dir.resolve(SiltSyncMark.FILE)), "syncs with nothing new wrote the mark");
    }
  }

  /**
   * A power loss may take the mark's unforced writes (a sync forces the log, not the mark), never
   * both slots: the copy opens with every synced write. A store closed forces its mark: a power
   * loss after the close keeps it, and an older copy of the newest log is still refused.
   */
  @Test
  void aPowerLossKeepsAValidMarkAndACloseForcesIt() throws IOException {
    Path dir = temp.resolve("store");
    Map<String, String> model = new TreeMap<>();
    byte[] backup;
    try (SiltCrashFiles files = SiltCrashFiles.install()) {
      try (SiltStore store = SiltStore.open(dir, OPTIONS)) {
        for (int sync = 0; sync < 6; sync++) {
          put(store, model, 5 * sync, 5 * sync + 5, "s" + sync);
          store.sync();
          Path image = temp.resolve("power-loss-" + sync);
          files.powerLoss(dir, image, name -> true);
          try (SiltStore copy = SiltStore.open(image, OPTIONS)) {
            check(copy, model, 30, "a power loss after sync " + sync);
          }
        }
        backup = Files.readAllBytes(newestLog(dir));
        put(store, model, 30, 35, "last");
      }
      Path image = temp.resolve("power-loss-after-close");
      files.powerLoss(dir, image, name -> true);
      Files.write(newestLog(image), backup);
      assertThrows(LogShorterThanSyncException.class, () -> SiltStore.open(image, OPTIONS).close(), "the close's mark was lost");
    }
  }

  /** A snapshot of the newest log, and what the store held when it was taken. */
  private record Snapshot(long log, byte[] bytes, Map<String, String> model) {}

  /**
   * A random workload of puts, deletes, syncs and freezes, with snapshots of the newest log taken
   * at random points; now and then the store is copied as a killed process leaves it, and each
   * snapshot of its newest log put back in a copy: one shorter than the last sync reached must be
   * refused, any other must open and serve what the store held when it was taken (a TreeMap
   * model).
   */
  @Test
  void aRandomWorkloadRefusesExactlyTheCopiesShorterThanTheLastSync() throws IOException {
    long seed = 0x5117_5EC0_0001L;
    System.out.println("SiltSyncMarkTest seed " + Long.toHexString(seed));
    Random random = new Random(seed);
    Path live = temp.resolve("live");
    Map<String, String> model = new TreeMap<>();
    List<Snapshot> snapshots = new ArrayList<>();
    long syncedLog = -1;
    long syncedBytes = 0;
    int refused = 0;
    int opened = 0;
    try (SiltStore store = SiltStore.open(live, OPTIONS)) {
      for (int op = 1; op <= 600; op++) {
        int what = random.nextInt(100);
        String key = "k" + random.nextInt(40);
        if (what < 60) {
          String value = "v" + op + "-" + "x".repeat(random.nextInt(30));
          store.put(bytes(key), bytes(value));
          model.put(key, value);
        } else if (what < 72) {
          store.delete(bytes(key));
          model.remove(key);
        } else if (what < 82) {
          store.sync();
          Path log = newestLog(live);
          syncedLog = SiltManifest.read(live).logNumbers().get(SiltManifest.read(live).logNumbers().size() - 1);
          syncedBytes = Files.size(log);
        } else if (what < 84) {
          store.freezeLog();
        } else {
          List<Long> logs = SiltManifest.read(live).logNumbers();
          snapshots.add(new Snapshot(logs.get(logs.size() - 1), Files.readAllBytes(newestLog(live)), new TreeMap<>(model)));
        }
        if (op % 100 != 0) {
          continue;
        }
        Path image = temp.resolve("image-" + op);
        FileTrees.copyTree(live, image); // as a killed process leaves it: no close, no sync
        Files.deleteIfExists(image.resolve(SiltManifest.LOCK_FILE));
        List<Long> logs = SiltManifest.read(image).logNumbers();
        long newest = logs.get(logs.size() - 1);
        long mustHave = syncedLog == newest ? syncedBytes : SiltLog.HEADER_BYTES;
        for (Snapshot s : snapshots) {
          if (s.log() != newest) {
            continue; // a frozen log's length is the manifest's to check
          }
          String context = "seed " + Long.toHexString(seed) + ", op " + op + ", a copy of " + s.bytes().length + " bytes where the last sync reached " + mustHave;
          Path copy = temp.resolve("copy");
          FileTrees.deleteTree(copy);
          FileTrees.copyTree(image, copy);
          Files.write(newestLog(copy), s.bytes());
          if (s.bytes().length < mustHave) {
            LogShorterThanSyncException e = assertThrows(LogShorterThanSyncException.class, () -> SiltStore.open(copy, OPTIONS).close(), context);
            assertEquals(mustHave, e.syncedBytes(), context);
            refused++;
          } else {
            try (SiltStore reopened = SiltStore.open(copy, OPTIONS)) {
              check(reopened, s.model(), 40, context);
            } catch (LogShorterThanSyncException e) {
              fail(context + ": refused", e);
            }
            opened++;
          }
        }
        FileTrees.deleteTree(image);
      }
    }
    System.out.println("SiltSyncMarkTest: " + refused + " copies refused, " + opened + " opened");
    assertTrue(refused > 3 && opened > 3, refused + " refused, " + opened + " opened: the workload did not reach both");
  }
}
