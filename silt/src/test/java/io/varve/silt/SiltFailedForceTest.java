package io.varve.silt;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A force that fails (a failed {@code fsync}, whose pages or directory entries the kernel may
 * drop) at any point of a random workload: of a log, a hash store being converted, the
 * manifest's temporary file or the directory after the manifest's rename. A power loss right after
 * it, with the directory's entries since its last force lost or kept, and another at the end of
 * the workload, must each leave a copy that opens and holds every write a returned {@code sync()}
 * covered.
 */
class SiltFailedForceTest {
  private static final int OPS = 160;
  /** Failing forces tried per seed, spread over all of them (each seed starts at another). */
  private static final int RUNS = 20;

  @TempDir Path temp;

  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {0xF0CE_0001L, 0xF0CE_0002L})
  void aFailedForceThenAPowerLossKeepsEverySyncedWrite(long seed) throws IOException {
    int forces;
    try (SiltCrashFiles files = SiltCrashFiles.install()) {
      run(seed, temp.resolve("counted"), files);
      forces = files.forces("");
    }
    assertTrue(forces > 2 * RUNS, "seed " + seed + ": only " + forces + " forces");
    int stride = Math.max(1, forces / RUNS);
    for (int failing = (int) Long.remainderUnsigned(seed, stride); failing < forces; failing += stride) {
      Path live = temp.resolve("live-" + failing);
      try (SiltCrashFiles files = SiltCrashFiles.install()) {
        files.failForce("", failing);
        String context = "seed " + seed + ", force " + (failing + 1) + " of " + forces + " failed";
        run(seed, live, files, failing, context);
        assertTrue(files.fired() != null, context + ": the failing force never came");
      }
    }
  }

  /** The workload of {@code seed} in {@code live}, nothing failing. */
  private void run(long seed, Path live, SiltCrashFiles files) throws IOException {
    run(seed, live, files, -1, "seed " + seed);
  }

  /**
   * The workload of {@code seed} in {@code live}; once the armed force fails, power-loss images
   * of that moment are checked, and another at the end.
   */
  private CrashWorkload run(long seed, Path live, SiltCrashFiles files, int failing, String context) throws IOException {
    CrashWorkload work = new CrashWorkload(seed, 50);
    SiltStore store;
    try {
      store = SiltStore.open(live, CrashWorkload.OPTIONS);
    } catch (IOException | UncheckedIOException e) {
      checkImages(files, live, work, context + " (the open that creates the store failed: " + e + ")", failing);
      return work;
    }
    boolean imaged = false;
    try {
      for (int op = 1; op <= OPS; op++) {
        IOException failed = null;
        try {
          work.step(store, true);
        } catch (IOException e) {
          failed = e;
        }
        if (files.fired() != null && !imaged) {
          imaged = true;
          checkImages(files, live, work, context + " at op " + op + " (" + files.fired() + " in " + work.last + ": " + failed + ")", failing);
        }
        if (failed != null) {
          break; // the store takes no more writes
        }
      }
    } finally {
      try {
        store.close();
        if (files.fired() == null) {
          work.model.acknowledge(); // close forces the log; after a failure it promises nothing
        }
      } catch (UncheckedIOException e) {
        // a failed force of close: what it covered is not acknowledged
      }
    }
    if (failing >= 0) {
      Path end = temp.resolve("end-" + failing);
      files.powerLoss(live, end, name -> true);
      work.check(end, CrashWorkload.OPTIONS, context + " (" + files.fired() + "), a power loss after the close");
    }
    return work;
  }

  private void checkImages(SiltCrashFiles files, Path live, CrashWorkload work, String context, int failing) throws IOException {
    Path lost = temp.resolve("lost-" + failing);
    files.powerLoss(live, lost, name -> true);
    work.check(lost, CrashWorkload.OPTIONS, context + ", a power loss right after, the directory's unforced entries lost");
    Path kept = temp.resolve("kept-" + failing);
    files.copyAsKilled(live, kept);
    files.loseUnforced(live, kept, name -> true);
    work.check(kept, CrashWorkload.OPTIONS, context + ", a power loss right after, the directory's entries kept");
  }
}
