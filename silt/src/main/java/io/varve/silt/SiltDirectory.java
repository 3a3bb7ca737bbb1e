package io.varve.silt;

import io.varve.builder.StoreBuilder;
import io.varve.core.files.DirectoryEntries;
import io.varve.core.files.ExclusiveUse;
import io.varve.core.files.FileTrees;
import io.varve.core.format.CorruptStoreException;
import io.varve.core.format.HeapLimit;
import io.varve.reader.Store;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Opening a SILT store's directory: creating it when new, checking that the manifest's files are
 * there, deleting the leftovers of work a crash cut short, and opening every part. Stateless;
 * thread-safe.
 */
final class SiltDirectory {
  private SiltDirectory() {}

  /**
   * Opens (or creates) the store in {@code directory}, which it holds for itself until the store
   * closes ({@link ExclusiveUse}).
   *
   * @throws IllegalStateException if another store, in this process or another, has it open
   * @throws IllegalArgumentException if {@code directory} holds other files but no store
   * @throws CorruptStoreException if a part is damaged or missing
   */
  static SiltState open(Path directory, SiltOptions options, java.util.function.LongSupplier newStoreId, boolean syncMark) throws IOException {
    refuseTablesLargerThanTheHeap(options);
    Path dir = directory.toAbsolutePath().normalize();
    DirectoryEntries.createDirectories(dir, FileAccess.opener::open); // a new store's name survives a power loss
    if (!SiltManifest.exists(dir)) {
      refuseForeignFiles(dir); // before the lock file goes into a directory that is not ours
    }
    ExclusiveUse lock = ExclusiveUse.acquire(dir.resolve(SiltManifest.LOCK_FILE), true, "a SILT store");
    try {
      return open(dir, lock, options, newStoreId, syncMark);
    } catch (IOException | RuntimeException | Error e) {
      lock.close();
      throw e;
    }
  }

  /** Under {@code lock}: opens (or creates) the store in {@code dir}. */
  private static SiltState open(Path dir, ExclusiveUse lock, SiltOptions options, java.util.function.LongSupplier newStoreId, boolean syncMark)
      throws IOException {
    if (!SiltManifest.exists(dir)) {
      create(dir, options, newStoreId.getAsLong(), syncMark);
    }
    SiltManifest manifest = SiltManifest.read(dir);
    SiltCheck check = manifest.check();
    for (String name : manifest.fileNames()) {
      CorruptStoreException.check(Files.exists(dir.resolve(name)), dir.resolve(name) + " is missing: the manifest names it");
    }
    deleteLeftovers(dir, manifest);
    List<LogStore> logs = new ArrayList<>();
    List<HashStore> hashStores = new ArrayList<>();
    SortedStore sorted = null;
    SiltSyncMark mark = null;
    try {
      Path sortedDir = dir.resolve(SiltManifest.sortedName(manifest.sortedNumber()));
      sorted = new SortedStore(manifest.sortedNumber(), Store.open(sortedDir));
      if (manifest.version() >= 2) {
        SortedStore.checkMeta(sortedDir, manifest.sortedMeta());
      }
      for (long number : manifest.hashNumbers()) {
        hashStores.add(0, HashStore.open(dir.resolve(SiltManifest.hashName(number)), number, check));
      }
      List<Long> numbers = manifest.logNumbers();
      long newestNumber = numbers.get(numbers.size() - 1);
      long synced = 0;
      if (manifest.syncMark()) {
        mark = SiltSyncMark.open(dir, check);
        SiltSyncMark.Mark last = mark.last();
        // A mark of a log frozen since says nothing of the newest (the manifest records the frozen one's length).
        CorruptStoreException.check(last.logNumber() <= newestNumber, mark.file() + ": the last sync reached log " + last.logNumber()
            + ", newer than the newest log the manifest names, " + newestNumber + " (an older copy of the manifest?)");
        synced = last.logNumber() == newestNumber ? last.syncedBytes() : 0;
      }
      for (int i = 0; i < numbers.size(); i++) {
        long number = numbers.get(i);
        boolean newest = i == numbers.size() - 1;
        LogStore log = LogStore.open(dir.resolve(SiltManifest.logName(number)), number, newest, options.maxLogBytes(),
            options.dropDamagedLogTail(), check, synced, manifest.hasher());
        logs.add(log);
        if (newest && mark != null && log.logBytes() < synced) {
          // dropDamagedLogTail took a log shorter than its last sync: the mark follows it, so that the
          // next open does not refuse what this one accepted; the log first, as at a sync (a copy
          // put back may not be on the device yet).
          log.force();
          mark.record(number, log.logBytes());
        }
        long recorded = manifest.logBytes().get(i);
        CorruptStoreException.check(newest || log.logBytes() == recorded,
            log.file() + ": a frozen log of " + log.logBytes() + " bytes, where the manifest recorded " + recorded);
      }
    } catch (IOException | RuntimeException e) {
      logs.forEach(Retained::release);
      hashStores.forEach(Retained::release);
      if (sorted != null) {
        sorted.release();
      }
      if (mark != null) {
        mark.close();
      }
      throw e;
    }
    LogStore active = logs.remove(logs.size() - 1);
    List<LogStore> frozen = new ArrayList<>(logs);
    java.util.Collections.reverse(frozen);
    return new SiltState(dir, lock, options, manifest, mark, new SiltView(active, frozen, hashStores, sorted));
  }

  /**
   * Makes an empty store: an empty sorted store, one empty log, the manifest naming both, with the
   * id {@code storeId} (0: a store without one, of version 1, as made before ids), and a sync mark
   * when {@code syncMark} and the store has an id (version 3; else version 2).
   */
  private static void create(Path dir, SiltOptions options, long storeId, boolean syncMark) throws IOException {
    refuseForeignFiles(dir);
    try (Stream<Path> files = Files.list(dir)) {
      List<Path> all = files.toList();
      // Without a manifest, SILT files are what a creation cut short leaves (an empty sorted store
      // 1, log 2 without records, a temporary manifest), or a store that lost its manifest: that
      // one is refused, not wiped.
      for (Path p : all) {
        String name = p.getFileName().toString();
        boolean creation = name.startsWith(".") || name.equals(SiltManifest.LOCK_FILE) || name.equals(SiltManifest.FILE + ".tmp")
            || name.equals(SiltSyncMark.FILE)
            || name.equals(SiltManifest.sortedName(1)) || name.equals(SiltManifest.logName(2)) && Files.size(p) <= SiltLog.HEADER_BYTES;
        CorruptStoreException.check(creation, p + " is a SILT file, but the store has no manifest (" + SiltManifest.FILE + ")");
      }
    }
    deleteLeftovers(dir, null);
    long sortedNumber = 1;
    long logNumber = 2;
    try (StoreBuilder builder = StoreBuilder.create(dir.resolve(SiltManifest.sortedName(sortedNumber)))) {
      builder.build();
    }
    SiltManifest manifest = new SiltManifest(storeId, syncMark && storeId != 0, 3, sortedNumber, 0, List.of(), List.of(logNumber), List.of(0L));
    int sortedMeta = storeId == 0 ? 0 : SortedStore.metaCheck(dir.resolve(SiltManifest.sortedName(sortedNumber)));
    manifest = manifest.withSorted(sortedNumber, sortedMeta, List.of());
    LogStore.create(dir.resolve(SiltManifest.logName(logNumber)), logNumber, options.logTableBuckets(), options.maxLogBytes(), manifest.check())
        .release();
    if (manifest.syncMark()) {
      SiltSyncMark.create(dir, manifest.check(), logNumber, SiltLog.HEADER_BYTES).close(); // the manifest's write forces its name
    }
    manifest.write(dir);
  }

  /**
   * Throws before anything is created if the log stores' tables that the store holds at its peak
   * (the one taking writes and the frozen ones writers wait for) cannot fit the heap's maximum: they
   * would be allocated freeze after freeze until one failed with an OutOfMemoryError, which any
   * thread of the process could meet instead.
   */
  private static void refuseTablesLargerThanTheHeap(SiltOptions options) {
    long peak = SiltTuning.peakLogTableBytes(options);
    HeapLimit.check(peak, "logStoreEntries " + options.logStoreEntries() + " is",
        ": " + SiltTuning.PEAK_LOG_STORES + " log stores' tables, " + peak + " bytes, are held at once at the peak (the one taking"
            + " writes and the frozen ones awaiting conversion); give fewer log store entries (SiltTuning.optionsFor picks them for"
            + " a memory budget), or a larger heap");
  }

  /** Throws if {@code dir}, which has no manifest, holds files that are not a SILT store's. */
  private static void refuseForeignFiles(Path dir) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      List<Path> foreign = files.filter(p -> !isOurs(p.getFileName().toString())).toList();
      if (!foreign.isEmpty()) {
        throw new IllegalArgumentException(dir + " holds no SILT store but other files, such as " + foreign.get(0).getFileName());
      }
    }
  }

  private static boolean isOurs(String name) {
    return name.equals(SiltManifest.FILE) || name.equals(SiltManifest.LOCK_FILE) || SiltManifest.isStoreFileName(name)
        || name.startsWith(".");
  }

  /** Deletes logs, hash stores and sorted stores that {@code manifest} does not name (work a crash cut short). */
  private static void deleteLeftovers(Path dir, SiltManifest manifest) throws IOException {
    Set<String> keep = manifest == null ? Set.of() : manifest.fileNames();
    try (Stream<Path> files = Files.list(dir)) {
      for (Path p : files.toList()) {
        String name = p.getFileName().toString();
        if (SiltManifest.isStoreFileName(name) && !keep.contains(name)) {
          FileTrees.deleteTree(p);
        }
      }
    }
  }

}
