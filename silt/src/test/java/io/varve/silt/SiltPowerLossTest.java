package io.varve.silt;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A power loss at any point of a random workload, foreground conversions and merges included, or
 * while background threads convert and merge: the unforced writes of every file, or of a random
 * subset of the files, or a random subset of the newest log's unforced pages, are lost, and so is
 * every change of the directory's entries since it was last forced. The copy must open and hold
 * every write a returned {@code sync()} covered, with its newest value; deleted keys stay deleted.
 */
class SiltPowerLossTest {
  private static final int OPS = 360;
  private static final int CRASH_EVERY = 24;

  @TempDir Path temp;

  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {0x5117_0001L, 0x5117_0002L, 0x5117_0003L})
  void aPowerLossAtAnyPointKeepsEverySyncedWrite(long seed) throws IOException {
    CrashWorkload work = new CrashWorkload(seed, 60);
    Random crashes = new Random(~seed);
    Path live = temp.resolve("live");
    int images = 0;
    try (SiltCrashFiles files = SiltCrashFiles.install();
        SiltStore store = SiltStore.open(live, CrashWorkload.OPTIONS)) {
      for (int op = 1; op <= OPS; op++) {
        work.step(store, true);
        if (op % CRASH_EVERY != 0) {
          continue;
        }
        String context = "seed " + seed + ", a power loss after op " + op + " (" + work.last + ")";
        Path all = temp.resolve("all-" + op);
        files.powerLoss(live, all, name -> true);
        work.check(all, CrashWorkload.OPTIONS, context + ", every file's unforced writes lost");

        Path some = temp.resolve("some-" + op);
        long subset = crashes.nextLong();
        files.powerLoss(live, some, name -> ((name.hashCode() ^ subset) & 1) == 0);
        work.check(some, CrashWorkload.OPTIONS, context + ", some files' unforced writes lost (subset " + subset + ")");

        images++;
      }
    }
    assertTrue(images > 0, "seed " + seed + ": no crash image taken");
  }

  /**
   * Logs of many pages, written between syncs: a power loss keeps any subset of the newest log's
   * unforced pages (the kernel writes dirty pages back in no set order), the rest of every file
   * as last forced.
   */
  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {0x9A6E_0001L, 0x9A6E_0002L})
  void aPowerLossKeepingAnySubsetOfTheNewestLogsUnforcedPagesKeepsEverySyncedWrite(long seed) throws IOException {
    SiltOptions options = CrashWorkload.OPTIONS.toBuilder().logStoreEntries(64).maxLogBytes(64 << 10).build();
    CrashWorkload work = new CrashWorkload(seed, 40, 600, 0.03, 0.005);
    Random crashes = new Random(~seed);
    Path live = temp.resolve("live");
    int images = 0;
    int refused = 0;
    try (SiltCrashFiles files = SiltCrashFiles.install();
        SiltStore store = SiltStore.open(live, options)) {
      for (int op = 1; op <= OPS; op++) {
        work.step(store, true);
        String newest = newestLog(live);
        List<Long> pages = files.unforcedPages(live, newest);
        if (pages.size() < 2 || op % 3 != 0) {
          continue;
        }
        long lostPages = crashes.nextLong();
        String context = "seed " + seed + ", a power loss after op " + op + " (" + work.last + "), pages " + pages + " of " + newest
            + " unforced, those of mask " + Long.toHexString(lostPages) + " lost";
        Path torn = temp.resolve("pages-" + op);
        files.powerLoss(live, torn, name -> !name.equals(newest));
        files.loseUnforcedPages(live, torn, newest, page -> (lostPages >>> (page % 64) & 1) == 1);
        // A hole of lost pages before a page the crash kept, at the newest log's tail, is refused
        // (docs/FORMAT.md, "Crashes": a bad record with records after it is an error): allowed, but
        // counted, and such an image must then open with the option that drops the hole and what
        // follows, every synced write kept.
        boolean opened = work.checkUnlessRefused(torn, options, context, e -> e.getMessage().contains(newest + ": "));
        if (!opened) {
          work.check(torn, options.toBuilder().dropDamagedLogTail(true).build(), context + ", opened with dropDamagedLogTail");
        }
        images++;
        refused += opened ? 0 : 1;
      }
    }
    assertTrue(images > 10, "seed " + seed + ": only " + images + " crash images of logs with unforced pages");
    assertTrue(refused < images / 2, "seed " + seed + ": " + refused + " of " + images + " images refused");
  }

  /**
   * Conversions and merges on the background threads, a power loss at random moments of them:
   * each image is taken while no hooked write or force runs, but anywhere between them.
   */
  @Test
  void aPowerLossDuringBackgroundWorkKeepsEverySyncedWrite() throws IOException {
    long seed = 0xBAC6_0001L;
    CrashWorkload work = new CrashWorkload(seed, 60);
    Random crashes = new Random(~seed);
    Path live = temp.resolve("live");
    try (SiltCrashFiles files = SiltCrashFiles.install();
        SiltStore store = SiltStore.open(live, CrashWorkload.BACKGROUND)) {
      for (int op = 1; op <= 2 * OPS; op++) {
        work.step(store, false);
        if (crashes.nextInt(CRASH_EVERY) != 0) {
          continue;
        }
        String context = "seed " + seed + ", a power loss after op " + op + " (" + work.last + "), background work "
            + store.stats();
        Path image = temp.resolve("image-" + op);
        files.powerLoss(live, image, name -> true);
        work.check(image, CrashWorkload.OPTIONS, context);
      }
      SiltStats stats = store.stats();
      assertTrue(stats.conversions() > 0 && stats.merges() > 0, "seed " + seed + ": no background work to crash in: " + stats);
    }
  }

  /** The name of the log taking writes in {@code dir}: the highest numbered. */
  static String newestLog(Path dir) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files.map(p -> p.getFileName().toString()).filter(n -> n.matches("log-\\d{16}\\.vlog")).max(String::compareTo).orElseThrow();
    }
  }
}
