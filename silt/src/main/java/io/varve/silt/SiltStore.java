package io.varve.silt;

import io.varve.core.format.CorruptStoreException;
import io.varve.reader.Store;
import io.varve.reader.StoreClosedException;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * A mutable key-value store the SILT way (Lim et al., SOSP 2011): puts and deletes are appended to
 * a log store (an on-disk log and a cuckoo table of tags in memory, six bytes per slot); a full log
 * store is frozen, a new one takes the writes, and the frozen one is converted in the background
 * into a hash store (its entries rewritten in the table's order, so that only the tags stay in
 * memory, two bytes per slot); hash stores are merged in the background into the sorted store, a
 * Varve store, which holds almost every key with a few bits of memory each and serves it with one
 * disk read.
 *
 * <pre>{@code
 * try (SiltStore store = SiltStore.open(Path.of("/data/silt"))) {
 *   store.put(key, value);
 *   store.delete(otherKey);
 *   store.sync();               // both are durable now
 *   byte[] v = store.get(key);  // the newest value, or null
 * }
 * }</pre>
 *
 * <p>A get looks in the log store taking writes, then the frozen ones and the hash stores, newest
 * first, then the sorted store: the newest write of a key wins, and a delete hides older values. Merges apply
 * deletes to the sorted store and drop them.
 *
 * <p>Durability: the logs are the write-ahead log. Writes reach the operating system before
 * {@code put} returns, so a killed process loses none; {@link #sync()} (or {@link
 * SiltOptions#syncEveryWrite()}) forces them to the device, so that they survive a crash of the
 * machine, and record in the store's sync mark how far they reached: opening refuses a newest log
 * shorter than that ({@link LogShorterThanSyncException}: an older copy of it put back), and drops
 * a last record that a crash cut short after it. A merge
 * publishes its sorted store by an atomic rename of the manifest, so a crash during one leaves
 * the store as before it. A put, delete, sync or freeze that fails with an {@code IOException} (a
 * full disk, a failed {@code fsync}) leaves the store read-only: later writes and syncs throw,
 * since what reached the disk is uncertain, and gets go on; reopening replays what the log holds.
 *
 * <p>Thread-safe: any number of threads read, also during merges; writes are serialized. A reader
 * holds the parts it reads until it is done, so a merge closes nothing under it. Use after {@link
 * #close()} throws {@link StoreClosedException}.
 */
public final class SiltStore implements Closeable {
  private final SiltState state;
  private final BackgroundWork work;

  private SiltStore(SiltState state) {
    this.state = state;
    this.work = new BackgroundWork(state);
  }

  /** Opens the store in {@code directory} with {@link SiltOptions#DEFAULTS}, creating it if it does not exist. */
  public static SiltStore open(Path directory) throws IOException {
    return open(directory, SiltOptions.DEFAULTS);
  }

  /**
   * Opens the store in {@code directory}, creating it if the directory does not exist or is
   * empty; replays its logs, and converts or merges in the background what waits for it.
   *
   * The store holds the directory for itself until it closes: a second open, in this process or
   * another, is refused, since two writers would overwrite each other's log records.
   *
   * @throws IllegalStateException if another {@code SiltStore} has {@code directory} open
   * @throws IllegalArgumentException if {@code directory} holds other files but no store, or the
   *     log stores' tables held at the peak ({@code options.logStoreEntries()}, six bytes a slot,
   *     four tables) are larger than the heap's maximum ({@link Runtime#maxMemory}); nothing is
   *     created then
   * @throws CorruptStoreException if the manifest, a log, a hash store or the sorted store is
   *     damaged or missing
   */
  public static SiltStore open(Path directory, SiltOptions options) throws IOException {
    return open(directory, options, SiltCheck::newStoreId);
  }

  /**
   * {@link #open(Path, SiltOptions)}, a new store taking its id from {@code newStoreId} (for
   * goldens: a fixed id, or 0 for a store as made before ids, of version 1).
   */
  static SiltStore open(Path directory, SiltOptions options, java.util.function.LongSupplier newStoreId) throws IOException {
    return open(directory, options, newStoreId, true);
  }

  /**
   * {@link #open(Path, SiltOptions, java.util.function.LongSupplier)}, a new store with an id
   * keeping a sync mark (manifest version 3) only when {@code syncMark} (for goldens of version 2).
   */
  static SiltStore open(Path directory, SiltOptions options, java.util.function.LongSupplier newStoreId, boolean syncMark) throws IOException {
    Objects.requireNonNull(options, "options");
    // The sorted store's reader and the manifest read through plain channels, which an interrupted
    // thread's read closes, failing the open: the interrupt waits until the store is open.
    boolean interrupted = Thread.interrupted();
    try {
      SiltStore store = new SiltStore(SiltDirectory.open(directory, options, newStoreId, syncMark));
      store.state.writeLock.lock();
      try {
        store.work.scheduleIfDue();
      } finally {
        store.state.writeLock.unlock();
      }
      return store;
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** The store's directory. */
  public Path directory() {
    return state.directory;
  }

  /** The options it was opened with. */
  public SiltOptions options() {
    return state.options;
  }

  /** The newest value of {@code key}, or null when the store does not hold it (or it was deleted). */
  public byte[] get(byte[] key) {
    Objects.requireNonNull(key, "key");
    long[] hash = new long[2];
    state.hasher.hash(key, hash);
    SiltView view = state.acquire();
    try {
      byte[] value = view.active.get(key, hash[0], hash[1]);
      for (int i = 0; value == null && i < view.frozen.size(); i++) {
        value = view.frozen.get(i).get(key, hash[0], hash[1]);
      }
      for (int i = 0; value == null && i < view.hashStores.size(); i++) {
        value = view.hashStores.get(i).get(key, hash[0], hash[1]);
      }
      if (value != null) {
        return value == SiltLog.DELETED ? null : value;
      }
      return view.sorted.store().get(key);
    } finally {
      view.release();
    }
  }

  /** Whether the store holds {@code key}. */
  public boolean contains(byte[] key) {
    return get(key) != null;
  }

  /** Inserts {@code key} with {@code value}, or replaces its value (the arrays are not kept). */
  public void put(byte[] key, byte[] value) throws IOException {
    write(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
  }

  /** Deletes {@code key}; nothing happens if the store does not hold it. */
  public void delete(byte[] key) throws IOException {
    write(Objects.requireNonNull(key, "key"), null);
  }

  private void write(byte[] key, byte[] value) throws IOException {
    int recordBytes = SiltLog.recordBytes(key.length, value == null ? -1 : value.length);
    if (recordBytes > state.options.maxLogBytes() - SiltLog.HEADER_BYTES) {
      throw new IllegalArgumentException(
          "a record of " + recordBytes + " bytes does not fit a log of " + state.options.maxLogBytes() + " bytes (SiltOptions.maxLogBytes)");
    }
    long[] hash = new long[2];
    state.hasher.hash(key, hash);
    work.awaitCapacity();
    state.writeLock.lock();
    try {
      LogStore active = state.checkWritable().active;
      if (!active.write(key, value, hash[0], hash[1])) {
        freezeLocked();
        active = state.current().active;
        if (!active.write(key, value, hash[0], hash[1])) {
          throw new IllegalStateException("a new log store refused a record of " + recordBytes + " bytes");
        }
      }
      if (state.options.syncEveryWrite()) {
        state.sync(active);
      }
      state.written.incrementAndGet(0);
      state.written.addAndGet(1, key.length + (value == null ? 0 : value.length));
      state.written.incrementAndGet(2);
      state.written.addAndGet(3, recordBytes);
    } catch (IOException e) {
      throw state.writeFailed(e);
    } finally {
      state.writeLock.unlock();
    }
  }

  /** Forces every write so far to the device: they survive a crash of the machine. */
  public void sync() throws IOException {
    state.writeLock.lock();
    try {
      state.sync(state.checkWritable().active);
    } catch (IOException e) {
      throw state.writeFailed(e);
    } finally {
      state.writeLock.unlock();
    }
  }

  /**
   * Freezes the log store taking writes and starts a new one (done by itself when a log store is
   * full). The frozen one keeps serving reads until it is converted to a hash store.
   */
  public void freezeLog() throws IOException {
    state.writeLock.lock();
    try {
      state.checkWritable();
      freezeLocked();
    } catch (IOException e) {
      throw state.writeFailed(e);
    } finally {
      state.writeLock.unlock();
    }
  }

  /** Under the write lock: the log store taking writes is frozen, and a new one takes its place. */
  private void freezeLocked() throws IOException {
    SiltView view = state.current();
    view.active.force();
    SiltManifest manifest = state.manifest();
    long number = manifest.nextNumber();
    LogStore next = LogStore.create(
        state.resolve(SiltManifest.logName(number)), number, state.options.logTableBuckets(), state.options.maxLogBytes(), manifest.check());
    List<Long> logs = new ArrayList<>(manifest.logNumbers());
    List<Long> bytes = new ArrayList<>(manifest.logBytes());
    bytes.set(bytes.size() - 1, view.active.logBytes()); // frozen and forced: its length is final
    logs.add(number);
    bytes.add(0L);
    state.publishManifest(manifest.take().with(manifest.hashNumbers(), logs, bytes), next);
    List<LogStore> frozen = new ArrayList<>();
    frozen.add(view.active);
    frozen.addAll(view.frozen);
    state.publish(new SiltView(next, frozen, view.hashStores, view.sorted));
    work.scheduleIfDue();
  }

  /**
   * Converts every frozen log store to a hash store now, and waits (a background conversion
   * running meanwhile is waited for first).
   *
   * @throws IOException if a conversion fails (the log store stays, and readable)
   */
  public void convertNow() throws IOException {
    state.checkOpen();
    boolean interrupted = Thread.interrupted(); // see mergeNow
    try {
      work.convertNow();
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /**
   * Converts every frozen log store, then merges every hash store into a new sorted store, now, and
   * waits. The log store taking writes stays: {@link #freezeLog()} first to merge everything.
   *
   * @throws IOException if the merge fails (the store stays as it was, and readable)
   * @throws StoreClosedException if the store is closed, or closes during the merge
   */
  public void mergeNow() throws IOException {
    state.checkOpen();
    // Conversions and merges write their new files through plain channels, which an interrupted
    // thread's first write closes, failing the work: an interrupt set before the call waits
    // until it returns (one that comes during the work may still fail it, leaving the store as it was).
    boolean interrupted = Thread.interrupted();
    try {
      work.convertNow();
      work.mergeNow();
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /**
   * A background conversion or merge that failed since the last one that succeeded, or null. One
   * that succeeds by {@link #convertNow()} or {@link #mergeNow()} clears it too.
   */
  public Throwable mergeFailure() {
    return work.failure();
  }

  /** What the store wrote since it was opened. */
  public SiltWriteStats writeStats() {
    AtomicLongArray w = state.written;
    return new SiltWriteStats(w.get(0), w.get(1), w.get(2), w.get(3), w.get(4), w.get(5), w.get(6), w.get(7));
  }

  /** What the store holds now. */
  public SiltStats stats() {
    SiltView view = state.acquire();
    try {
      long entries = view.active.entries();
      long bytes = view.active.logBytes();
      long memory = view.active.ramBytesUsed();
      for (LogStore log : view.frozen) {
        entries += log.entries();
        bytes += log.logBytes();
        memory += log.ramBytesUsed();
      }
      long hashEntries = 0;
      for (HashStore store : view.hashStores) {
        hashEntries += store.entries();
        memory += store.ramBytesUsed();
      }
      Store sorted = view.sorted.store();
      memory += sorted.stats().memoryBytes();
      return new SiltStats(sorted.size(), 1 + view.frozen.size(), entries, bytes, view.hashStores.size(), hashEntries, memory,
          work.conversions(), work.merges());
    } finally {
      view.release();
    }
  }

  /**
   * Gives up a running merge (its hash stores stay, and are merged after the next open), waits for
   * a running conversion, forces the log taking writes, and closes the store. Readers still in
   * flight finish on the parts they hold. Closing twice does nothing.
   */
  @Override
  public void close() {
    work.stopAndLock();
    state.writeLock.lock();
    try {
      SiltView view = state.closeView();
      if (view == null) {
        return;
      }
      try {
        // A store closed is synced: its mark too, so that an older copy of the log is refused.
        state.sync(view.active);
        state.forceSyncMark();
      } catch (IOException e) {
        throw new UncheckedIOException("forcing " + view.active.file() + " and the store's sync mark", e);
      } finally {
        // The store's own references, besides the view's: every part closes once readers let go.
        view.parts().forEach(Retained::release);
        view.release();
        try {
          state.closeSyncMark();
        } catch (IOException e) {
          // Nothing is lost: its writes were forced above, or their failure was thrown.
        }
        state.directoryLock.close(); // nothing writes any more: readers in flight only read
      }
    } finally {
      state.writeLock.unlock();
      work.unlock();
    }
  }

  @Override
  public String toString() {
    return "SILT store " + state.directory;
  }
}
