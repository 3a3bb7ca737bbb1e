package io.varve.silt;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Crashes during what an open does before the store is quiet again: cutting off the newest log's
 * torn tail, converting the frozen log stores that wait, merging the hash stores. A killed store
 * with work of each kind waiting is recovered with each of those forces failing in turn, then
 * loses every unforced write and directory entry, and must open with every write its last life
 * synced; and a store killed right after an open that did that work keeps them too.
 */
class SiltRecoveryCrashTest {
  private static final long SEED = 0x2EC0_0001L;

  @TempDir Path temp;

  @Test
  void aCrashAtAnyForceOfRecoveryKeepsWhatTheLastLifeSynced() throws IOException {
    CrashWorkload work = new CrashWorkload(SEED, 50);
    Path killed = killWithWorkWaiting(work);
    int forces;
    Path counted = temp.resolve("counted");
    try (SiltCrashFiles files = SiltCrashFiles.install()) {
      files.copyAsKilled(killed, counted);
      files.markDurable(counted);
      recover(counted);
      forces = files.forces("");
    }
    assertTrue(forces >= 6, "seed " + SEED + ": recovery forces only " + forces + " times");
    for (int failing = 0; failing < forces; failing++) {
      String context = "seed " + SEED + ", force " + (failing + 1) + " of " + forces + " of recovery failed";
      Path live = temp.resolve("live-" + failing);
      Path crashed = temp.resolve("crashed-" + failing);
      try (SiltCrashFiles files = SiltCrashFiles.install()) {
        files.copyAsKilled(killed, live);
        files.markDurable(live);
        files.failForce("", failing);
        try {
          recover(live);
        } catch (IOException | UncheckedIOException expected) {
          // the failed force, or what it failed
        }
        assertTrue(files.fired() != null, context + ": the failing force never came");
        files.powerLoss(live, crashed, name -> true);
      }
      work.check(crashed, CrashWorkload.OPTIONS, context + " (a power loss after it)");
    }
  }

  /** A store opened with background work on, the image taken at once and at a few moments after. */
  @Test
  void aPowerLossRightAfterAnOpenKeepsWhatTheLastLifeSynced() throws IOException {
    CrashWorkload work = new CrashWorkload(SEED + 1, 50);
    Path killed = killWithWorkWaiting(work);
    Path live = temp.resolve("live");
    try (SiltCrashFiles files = SiltCrashFiles.install()) {
      files.copyAsKilled(killed, live);
      files.markDurable(live);
      try (SiltStore store = SiltStore.open(live, CrashWorkload.BACKGROUND)) {
        for (int image = 0; image < 6; image++) {
          Path crashed = temp.resolve("crashed-" + image);
          files.powerLoss(live, crashed, name -> true);
          work.check(crashed, CrashWorkload.OPTIONS, "seed " + (SEED + 1) + ", a power loss " + image + " moments after the open, " + store.stats());
          Thread.onSpinWait();
        }
      }
    }
  }

  /** What the background would do after an open: the open itself, then conversions and merges. */
  private static void recover(Path dir) throws IOException {
    try (SiltStore store = SiltStore.open(dir, CrashWorkload.OPTIONS)) {
      store.convertNow();
      store.mergeNow();
    }
  }

  /**
   * A store killed with work of every kind waiting: frozen logs and hash stores, synced writes in
   * each, and unsynced ones at the end of the newest log, the last of them torn.
   */
  private Path killWithWorkWaiting(CrashWorkload work) throws IOException {
    Path dir = temp.resolve("store");
    Path killed = temp.resolve("killed");
    try (SiltCrashFiles files = SiltCrashFiles.install();
        SiltStore store = SiltStore.open(dir, CrashWorkload.OPTIONS)) {
      for (int round = 0; round < 4; round++) {
        for (int op = 0; op < 40; op++) {
          work.step(store, false);
        }
        store.freezeLog();
        if (round == 1) {
          store.convertNow(); // two hash stores wait for a merge, two frozen logs for conversion
        }
      }
      for (int op = 0; op < 20; op++) {
        work.step(store, false);
      }
      store.sync();
      work.model.acknowledge();
      for (int op = 0; op < 10; op++) {
        byte[] key = work.keys.get(work.random.nextInt(work.keys.size()));
        work.model.write(key, new byte[] {(byte) op});
        store.put(key, new byte[] {(byte) op});
      }
      files.copyAsKilled(dir, killed);
      SiltStats stats = store.stats();
      assertTrue(stats.logStores() >= 2 && stats.hashStores() >= 2, "seed " + work.seed + ": no work waits: " + stats);
    }
    try (FileChannel log = FileChannel.open(killed.resolve(SiltPowerLossTest.newestLog(killed)), StandardOpenOption.WRITE)) {
      ByteBuffer torn = ByteBuffer.allocate(8 + 20).putInt(100).putInt(0x7E57).put(new byte[20]);
      log.write(torn.flip(), log.size());
    }
    return killed;
  }
}
