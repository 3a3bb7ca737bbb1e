package io.varve.builder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.core.files.HeldFiles;
import io.varve.core.files.LockProbeChild;
import io.varve.core.testing.ChildJvm;
import java.io.IOException;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a sweep removes: directories of dead runs (lock file free, or no lock file and untouched
 * for an hour), and nothing else: not a live run's, not this process's own, not a foreign name.
 * Live runs in other processes are covered by the kill test (reader's {@code KillTest}).
 */
class TemporaryDirectoriesTest {
  @TempDir Path parent;

  private List<String> names() throws IOException {
    try (Stream<Path> entries = Files.list(parent)) {
      return entries.map(p -> p.getFileName().toString()).sorted().collect(Collectors.toList());
    }
  }

  /** What kill -9 leaves: a directory with files, and its lock file, unlocked. */
  private Path deadRun(String name) throws IOException {
    Path dir = Files.createDirectory(parent.resolve(name));
    Files.write(dir.resolve("partition-17"), new byte[1000]);
    Files.createDirectories(dir.resolve("batch/.varve-build-1"));
    Files.write(parent.resolve(name + ".lock"), new byte[0]);
    return dir;
  }

  @Test
  void deadRunsAreRemovedOwnAndForeignOnesKept() throws IOException {
    deadRun(".varve-build-1a2b");
    deadRun(".varve-merge-3c");
    deadRun(".store.staging-4d");
    Files.write(parent.resolve(".varve-build-99.lock"), new byte[0]); // a lock whose directory is gone
    Path mine = TemporaryDirectories.create(parent, ".varve-build-", true);
    Files.createDirectory(parent.resolve(".not-ours"));
    Files.createDirectory(parent.resolve("store"));
    Files.createDirectory(parent.resolve(".varve-build-fresh")); // no lock file yet, just made
    assertEquals(0, TemporaryDirectories.sweep(parent), "create already swept");
    List<String> left = names();
    assertEquals(
        List.of(".not-ours", ".varve-build-fresh", mine.getFileName().toString(), mine.getFileName() + ".lock", "store").stream()
            .sorted()
            .collect(Collectors.toList()),
        left);
    TemporaryDirectories.delete(mine);
    assertFalse(Files.exists(mine));
    assertFalse(Files.exists(parent.resolve(mine.getFileName() + ".lock")));
  }

  @Test
  void aDirectoryWithoutLockIsRemovedOnlyWhenUntouchedForAnHour() throws IOException {
    Path old = Files.createDirectory(parent.resolve(".varve-merge-01d"));
    Path file = Files.write(old.resolve("spill"), new byte[10]);
    FileTime twoHoursAgo = FileTime.from(Instant.now().minusSeconds(7200));
    Files.setLastModifiedTime(file, twoHoursAgo);
    Files.setLastModifiedTime(old, twoHoursAgo);
    Path young = Files.createDirectory(parent.resolve(".varve-merge-0a9"));
    Files.setLastModifiedTime(young, twoHoursAgo);
    Files.write(young.resolve("spill"), new byte[10]); // written just now
    assertEquals(1, TemporaryDirectories.sweep(parent));
    assertFalse(Files.exists(old));
    assertTrue(Files.exists(young));
  }

  @Test
  void aBuildRemovesWhatDeadBuildsLeftBesideItsTarget() throws IOException {
    deadRun(".varve-build-5e");
    deadRun(".target.staging-6f");
    try (StoreBuilder builder = StoreBuilder.create(parent.resolve("target"))) {
      builder.put(new byte[] {1}, new byte[] {2});
      builder.build();
    }
    assertEquals(List.of("target"), names());
  }

  @Test
  void aMergeAndAReindexSweepToo() throws IOException {
    Path base = parent.resolve("base");
    try (StoreBuilder builder = StoreBuilder.create(base)) {
      builder.put(new byte[] {1}, new byte[] {2});
      builder.build();
    }
    deadRun(".varve-merge-7a");
    try (StoreMerger merger = StoreMerger.create(parent.resolve("merged")).base(base)) {
      merger.put(new byte[] {3}, new byte[] {4});
      merger.merge();
    }
    assertEquals(List.of("base", "merged"), names());
    deadRun(".sparse.staging-8b");
    StoreReindexer.reindex(base, parent.resolve("sparse"), 4096, null);
    assertEquals(List.of("base", "merged", "sparse"), names());
  }

  /**
   * Another process sweeps the parent just after a lock file is created, before it is locked: the
   * sweep takes it for a dead run's and deletes it. Until 2026-11-28 the creator then locked the
   * deleted file and made its directory without a lock file, guarded only by the hour a lockless
   * directory is kept; now it starts again under another name, and its directory keeps its lock.
   */
  @Test
  void aSweepByAnotherProcessBeforeTheLockIsTakenLeavesNoDirectoryUnguarded() throws Exception {
    List<Path> swept = new ArrayList<>();
    TemporaryDirectories.lockFileCreated = lockFile -> {
      if (swept.isEmpty()) {
        swept.add(lockFile);
        assertEquals("removed 0", sweepInAnotherProcess()); // only the lock file, not yet a directory
        assertFalse(Files.exists(lockFile), "the other process's sweep deleted the unlocked lock file");
      }
    };
    Path mine;
    try {
      mine = TemporaryDirectories.create(parent, ".varve-build-", true);
    } finally {
      TemporaryDirectories.lockFileCreated = lockFile -> {};
    }
    assertEquals(1, swept.size());
    try {
      Path lockFile = parent.resolve(mine.getFileName() + ".lock");
      assertTrue(Files.exists(lockFile), "the directory made has its lock file: " + names());
      assertEquals("held", LockProbeChild.probe(lockFile));
      assertEquals("removed 0", sweepInAnotherProcess());
      assertEquals(List.of(mine.getFileName().toString(), mine.getFileName() + ".lock"), names());
    } finally {
      TemporaryDirectories.delete(mine);
    }
    assertEquals(List.of(), names());
  }

  private String sweepInAnotherProcess() {
    try {
      ChildJvm.Result child = ChildJvm.run("64m", SweepChild.class, parent.toString());
      assertEquals(0, child.exitCode(), child.output());
      return child.output().strip();
    } catch (IOException | InterruptedException e) {
      throw new AssertionError(e);
    }
  }

  /**
   * A copy of this class in another class loader (two Spark jobs' isolated loaders in one
   * executor) must not probe this copy's lock: opening and closing the lock file would drop the
   * lock, and a sweep by another process would then delete a live build's directory. A child
   * process saw the lock free after such a sweep before the register was the JVM's.
   */
  @Test
  void aSweepByASecondCopyOfThisClassLeavesOurLockHeld() throws Exception {
    Path mine = TemporaryDirectories.create(parent, ".varve-build-", true);
    Path lockFile = parent.resolve(mine.getFileName() + ".lock");
    URL builderClasses = TemporaryDirectories.class.getProtectionDomain().getCodeSource().getLocation();
    URL coreClasses = HeldFiles.class.getProtectionDomain().getCodeSource().getLocation();
    try (URLClassLoader otherLoader = new URLClassLoader(new URL[] {builderClasses, coreClasses}, ClassLoader.getPlatformClassLoader())) {
      Class<?> otherCopy = otherLoader.loadClass(TemporaryDirectories.class.getName());
      assertFalse(otherCopy == TemporaryDirectories.class, "a second copy of the class");
      Method sweep = otherCopy.getDeclaredMethod("sweep", Path.class);
      sweep.setAccessible(true);
      assertEquals(0, sweep.invoke(null, parent));
      assertEquals("held", LockProbeChild.probe(lockFile), "the lock survives the other copy's sweep");
      assertTrue(Files.isDirectory(mine));
    } finally {
      TemporaryDirectories.delete(mine);
    }
    assertEquals(List.of(), names());
  }
}
