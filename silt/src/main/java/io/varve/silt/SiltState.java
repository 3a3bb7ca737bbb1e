package io.varve.silt;

import io.varve.core.files.ExclusiveUse;
import io.varve.core.files.WriteFailure;
import io.varve.reader.StoreClosedException;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.ReentrantLock;

/**
 * What a {@link SiltStore}'s writer and its background work share: the view readers see, the
 * manifest, the write lock that guards both, and the counts of what was written. Thread-safe: the
 * view is read without a lock; it and the manifest change under the write lock.
 */
final class SiltState {
  final Path directory;
  final SiltOptions options;
  /** The hash of the store's keys ({@link SiltManifest#hasher()}). */
  final io.varve.core.hash.KeyHasher hasher;
  /** Sole use of the directory, released when the store closes. */
  final ExclusiveUse directoryLock;
  final ReentrantLock writeLock = new ReentrantLock();
  /** Operations, their bytes, log records, log bytes, hash entries, hash bytes, sorted records, sorted bytes. */
  final AtomicLongArray written = new AtomicLongArray(8);
  /** The parts readers see; null once closed. */
  private volatile SiltView current;
  /** Guarded by the write lock. */
  private SiltManifest manifest;
  /** How far the newest log was synced (manifest version 3), or null; written under the write lock. */
  private final SiltSyncMark syncMark;
  /** The first write or sync that failed, after which writes are refused. */
  private final WriteFailure writeFailure;

  SiltState(Path directory, ExclusiveUse directoryLock, SiltOptions options, SiltManifest manifest, SiltSyncMark syncMark, SiltView view) {
    this.syncMark = syncMark;
    this.hasher = manifest.hasher();
    this.directory = directory;
    this.directoryLock = directoryLock;
    this.options = options;
    this.manifest = manifest;
    this.current = view;
    this.writeFailure = new WriteFailure("the SILT store in " + directory);
  }

  Path resolve(String name) {
    return directory.resolve(name);
  }

  /** The view now, or null once closed. */
  SiltView current() {
    return current;
  }

  /** The view now, held for the caller, who releases it. */
  SiltView acquire() {
    for (;;) {
      SiltView view = current;
      if (view == null) {
        throw new StoreClosedException(directory.toString());
      }
      if (view.tryRetain()) {
        return view;
      }
    }
  }

  /** The view now. */
  SiltView checkOpen() {
    SiltView view = current;
    if (view == null) {
      throw new StoreClosedException(directory.toString());
    }
    return view;
  }

  /** Under the write lock: the view now, if the store takes writes (none after a failed write or sync). */
  SiltView checkWritable() throws IOException {
    SiltView view = checkOpen();
    writeFailure.check();
    return view;
  }

  /** Under the write lock: {@code e} failed a write or sync, so the store refuses writes from now on. Returns {@code e}. */
  IOException writeFailed(IOException e) {
    return writeFailure.record(e);
  }

  /** Under the write lock. */
  SiltManifest manifest() {
    return manifest;
  }

  /**
   * Under the write lock: forces {@code active}'s log, then records in the sync mark (if the store
   * keeps one) how far it reached. In that order, so that the mark never leads the log.
   */
  void sync(LogStore active) throws IOException {
    active.force();
    // After a failed write or force (a close of a store left read-only), what the log holds is
    // uncertain: a failed fsync may have dropped pages a later one does not bring back.
    if (syncMark != null && !writeFailure.failed()) {
      syncMark.record(active.number(), active.logBytes());
    }
  }

  /**
   * Under the write lock, at close, after {@link #sync}: forces the sync mark's last write (unless a
   * write or force failed, as there), so that a store closed keeps its mark through a power loss.
   */
  void forceSyncMark() throws IOException {
    if (syncMark != null && !writeFailure.failed()) {
      syncMark.force();
    }
  }

  /** Under the write lock, at close: closes the sync mark's file. */
  void closeSyncMark() throws IOException {
    if (syncMark != null) {
      syncMark.close();
    }
  }

  /** Under the write lock: replaces the view readers see. */
  void publish(SiltView view) {
    SiltView old = current;
    current = view;
    old.release();
  }

  /** Under the write lock: no view any more; returns the last. */
  SiltView closeView() {
    SiltView old = current;
    current = null;
    return old;
  }

  /** A number for a new file. */
  long takeNumber() {
    writeLock.lock();
    try {
      long number = manifest.nextNumber();
      manifest = manifest.take();
      return number;
    } finally {
      writeLock.unlock();
    }
  }

  /**
   * Under the write lock: publishes {@code next}, which names {@code newPart} (a file written and
   * forced). If the manifest's temporary file fails, {@code newPart} is deleted. If its rename or
   * the directory's force fails, the rename may stand or not, now or after a crash: {@code newPart}
   * stays for the new manifest, and the caller keeps the old manifest's parts for the old one,
   * which stays the one in memory; the next open deletes whichever parts the manifest it reads does
   * not name.
   */
  void publishManifest(SiltManifest next, Retained newPart) throws IOException {
    Path temporary;
    try {
      temporary = next.writeTemporary(directory);
    } catch (IOException | RuntimeException e) {
      newPart.deleteWhenReleased();
      newPart.release();
      throw e;
    }
    try {
      SiltManifest.replace(directory, temporary);
    } catch (IOException | RuntimeException e) {
      newPart.release();
      throw e;
    }
    manifest = next;
  }
}
