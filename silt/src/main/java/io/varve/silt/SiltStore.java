package io.varve.silt;

import io.varve.builder.StoreBuilder;
import io.varve.builder.StoreMerger;
import io.varve.core.format.CorruptStoreException;
import io.varve.reader.Store;
import io.varve.reader.StoreClosedException;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.stream.Stream;

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
 * machine. Opening replays the logs, dropping a last record that a crash cut short. A merge
 * publishes its sorted store by an atomic rename of the manifest, so a crash during one leaves
 * the store as before it.
 *
 * <p>Thread-safe: any number of threads read, also during merges; writes are serialized. A reader
 * holds the parts it reads until it is done, so a merge closes nothing under it. Use after {@link
 * #close()} throws {@link StoreClosedException}.
 */
public final class SiltStore implements Closeable {
  private final Path directory;
  private final SiltOptions options;
  private final ReentrantLock writeLock = new ReentrantLock();
  /** Held by a conversion or a merge: one at a time. */
  private final ReentrantLock workLock = new ReentrantLock();
  private final ExecutorService merges;
  /** The parts readers see; null once closed. Replaced under the write lock. */
  private volatile SiltView current;
  /** Guarded by the write lock. */
  private SiltManifest manifest;
  private volatile long mergeCount;
  private volatile long conversionCount;
  private final java.util.concurrent.atomic.AtomicLongArray written = new java.util.concurrent.atomic.AtomicLongArray(8);
  private volatile Throwable mergeFailure;
  private boolean workScheduled;
  /** Signalled when background work publishes a view: stalled writers look again. */
  private final Object progress = new Object();
  /** Frozen log stores past which writers wait for conversions. */
  static final int MAX_FROZEN_LOGS = 2;

  private SiltStore(Path directory, SiltOptions options, SiltManifest manifest, SiltView view) {
    this.directory = directory;
    this.options = options;
    this.manifest = manifest;
    this.current = view;
    this.merges = options.backgroundMerges()
        ? Executors.newSingleThreadExecutor(r -> {
          Thread t = new Thread(r, "varve-silt-merge " + directory.getFileName());
          t.setDaemon(true);
          return t;
        })
        : null;
  }

  /** Opens the store in {@code directory} with {@link SiltOptions#DEFAULTS}, creating it if it does not exist. */
  public static SiltStore open(Path directory) throws IOException {
    return open(directory, SiltOptions.DEFAULTS);
  }

  /**
   * Opens the store in {@code directory}, creating it if the directory does not exist or is
   * empty; replays its logs.
   *
   * @throws IllegalArgumentException if {@code directory} holds other files but no store
   * @throws CorruptStoreException if the manifest, a log, a hash store or the sorted store is
   *     damaged or missing
   */
  public static SiltStore open(Path directory, SiltOptions options) throws IOException {
    Objects.requireNonNull(options, "options");
    Path dir = directory.toAbsolutePath().normalize();
    Files.createDirectories(dir);
    if (!SiltManifest.exists(dir)) {
      create(dir, options);
    }
    SiltManifest manifest = SiltManifest.read(dir);
    for (String name : manifest.fileNames()) {
      CorruptStoreException.check(Files.exists(dir.resolve(name)), dir.resolve(name) + " is missing: the manifest names it");
    }
    deleteLeftovers(dir, manifest);
    List<LogStore> logs = new ArrayList<>();
    List<HashStore> hashStores = new ArrayList<>();
    SortedStore sorted = null;
    try {
      sorted = new SortedStore(manifest.sortedNumber(), Store.open(dir.resolve(SiltManifest.sortedName(manifest.sortedNumber()))));
      for (long number : manifest.hashNumbers()) {
        hashStores.add(0, HashStore.open(dir.resolve(SiltManifest.hashName(number)), number));
      }
      List<Long> numbers = manifest.logNumbers();
      for (int i = 0; i < numbers.size(); i++) {
        long number = numbers.get(i);
        boolean newest = i == numbers.size() - 1;
        LogStore log = LogStore.open(dir.resolve(SiltManifest.logName(number)), number, newest, options.maxLogBytes());
        logs.add(log);
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
      throw e;
    }
    LogStore active = logs.remove(logs.size() - 1);
    List<LogStore> frozen = new ArrayList<>(logs);
    java.util.Collections.reverse(frozen);
    SiltStore store = new SiltStore(dir, options, manifest, new SiltView(active, frozen, hashStores, sorted));
    store.writeLock.lock();
    try {
      store.maybeScheduleWork();
    } finally {
      store.writeLock.unlock();
    }
    return store;
  }

  /** Makes an empty store: an empty sorted store, one empty log, the manifest naming both. */
  private static void create(Path dir, SiltOptions options) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      List<Path> all = files.toList();
      List<Path> foreign = all.stream().filter(p -> !isOurs(p.getFileName().toString())).toList();
      if (!foreign.isEmpty()) {
        throw new IllegalArgumentException(dir + " holds no SILT store but other files, such as " + foreign.get(0).getFileName());
      }
      // Without a manifest, SILT files are what a creation cut short leaves (an empty sorted store
      // 1, log 2 without records, a temporary manifest), or a store that lost its manifest: that
      // one is refused, not wiped.
      for (Path p : all) {
        String name = p.getFileName().toString();
        boolean creation = name.startsWith(".") || name.equals(SiltManifest.FILE + ".tmp") || name.equals(SiltManifest.sortedName(1))
            || name.equals(SiltManifest.logName(2)) && Files.size(p) <= SiltLog.HEADER_BYTES;
        CorruptStoreException.check(creation, p + " is a SILT file, but the store has no manifest (" + SiltManifest.FILE + ")");
      }
    }
    deleteLeftovers(dir, null);
    long sortedNumber = 1;
    long logNumber = 2;
    try (StoreBuilder builder = StoreBuilder.create(dir.resolve(SiltManifest.sortedName(sortedNumber)))) {
      builder.build();
    }
    LogStore.create(dir.resolve(SiltManifest.logName(logNumber)), logNumber, options.logTableBuckets(), options.maxLogBytes()).release();
    new SiltManifest(3, sortedNumber, List.of(), List.of(logNumber), List.of(0L)).write(dir);
  }

  private static boolean isOurs(String name) {
    return name.equals(SiltManifest.FILE) || SiltManifest.isStoreFileName(name) || name.startsWith(".");
  }

  /** Deletes logs, hash stores and sorted stores that {@code manifest} does not name (work a crash cut short). */
  private static void deleteLeftovers(Path dir, SiltManifest manifest) throws IOException {
    Set<String> keep = manifest == null ? Set.of() : manifest.fileNames();
    try (Stream<Path> files = Files.list(dir)) {
      for (Path p : files.toList()) {
        String name = p.getFileName().toString();
        if (SiltManifest.isStoreFileName(name) && !keep.contains(name)) {
          SortedStore.deleteTree(p);
        }
      }
    }
  }

  /** The store's directory. */
  public Path directory() {
    return directory;
  }

  public SiltOptions options() {
    return options;
  }

  private SiltView acquire() {
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

  /** The newest value of {@code key}, or null when the store does not hold it (or it was deleted). */
  public byte[] get(byte[] key) {
    Objects.requireNonNull(key, "key");
    long[] hash = new long[2];
    LogStore.HASHER.hash(key, hash);
    SiltView view = acquire();
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
    if (recordBytes > options.maxLogBytes() - SiltLog.HEADER_BYTES) {
      throw new IllegalArgumentException(
          "a record of " + recordBytes + " bytes does not fit a log of " + options.maxLogBytes() + " bytes (SiltOptions.maxLogBytes)");
    }
    long[] hash = new long[2];
    LogStore.HASHER.hash(key, hash);
    awaitBackgroundWork();
    writeLock.lock();
    try {
      SiltView view = checkOpen();
      LogStore active = view.active;
      if (!active.write(key, value, hash[0], hash[1])) {
        freezeLocked();
        active = current.active;
        if (!active.write(key, value, hash[0], hash[1])) {
          throw new IllegalStateException("a new log store refused a record of " + recordBytes + " bytes");
        }
      }
      if (options.syncEveryWrite()) {
        active.force();
      }
      written.incrementAndGet(0);
      written.addAndGet(1, key.length + (value == null ? 0 : value.length));
      written.incrementAndGet(2);
      written.addAndGet(3, recordBytes);
    } finally {
      writeLock.unlock();
    }
  }

  /**
   * Stalls a writer while background work lags: more than {@value #MAX_FROZEN_LOGS} frozen log
   * stores wait for conversion, or two hash stores more than a merge takes wait for one. Memory
   * stays bounded however fast writes come, as with LevelDB's write stalls.
   */
  private void awaitBackgroundWork() throws IOException {
    if (merges == null) {
      return;
    }
    synchronized (progress) {
      for (;;) {
        SiltView view = current;
        if (view == null || view.frozen.size() <= MAX_FROZEN_LOGS && view.hashStores.size() < options.hashStoresPerMerge() + 2) {
          return;
        }
        Throwable failure = mergeFailure;
        if (failure != null) {
          writeLock.lock();
          try {
            maybeScheduleWork(); // try again; the failure holds until work succeeds
          } finally {
            writeLock.unlock();
          }
          throw new IOException("writes wait for background work that failed: " + failure, failure);
        }
        try {
          progress.wait(100);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new java.io.InterruptedIOException("interrupted while writes waited for background work");
        }
      }
    }
  }

  private void signalProgress() {
    synchronized (progress) {
      progress.notifyAll();
    }
  }

  private SiltView checkOpen() {
    SiltView view = current;
    if (view == null) {
      throw new StoreClosedException(directory.toString());
    }
    return view;
  }

  /** Forces every write so far to the device: they survive a crash of the machine. */
  public void sync() throws IOException {
    writeLock.lock();
    try {
      checkOpen().active.force();
    } finally {
      writeLock.unlock();
    }
  }

  /**
   * Freezes the log store taking writes and starts a new one (done by itself when a log store is
   * full). The frozen one keeps serving reads until it is converted to a hash store.
   */
  public void freezeLog() throws IOException {
    writeLock.lock();
    try {
      checkOpen();
      freezeLocked();
    } finally {
      writeLock.unlock();
    }
  }

  private void freezeLocked() throws IOException {
    SiltView view = current;
    view.active.force();
    long number = manifest.nextNumber();
    LogStore next = LogStore.create(dir(SiltManifest.logName(number)), number, options.logTableBuckets(), options.maxLogBytes());
    try {
      List<Long> logs = new ArrayList<>(manifest.logNumbers());
      List<Long> bytes = new ArrayList<>(manifest.logBytes());
      bytes.set(bytes.size() - 1, view.active.logBytes()); // frozen and forced: its length is final
      logs.add(number);
      bytes.add(0L);
      SiltManifest published = manifest.take().with(manifest.sortedNumber(), manifest.hashNumbers(), logs, bytes);
      published.write(directory);
      manifest = published;
    } catch (IOException | RuntimeException e) {
      next.deleteWhenReleased();
      next.release();
      throw e;
    }
    List<LogStore> frozen = new ArrayList<>();
    frozen.add(view.active);
    frozen.addAll(view.frozen);
    publish(new SiltView(next, frozen, view.hashStores, view.sorted));
    maybeScheduleWork();
  }

  private Path dir(String name) {
    return directory.resolve(name);
  }

  /** Under the write lock: replaces the view readers see. */
  private void publish(SiltView view) {
    SiltView old = current;
    current = view;
    old.release();
  }

  /** Under the write lock: starts a background conversion (and merge, when due) if there is work. */
  private void maybeScheduleWork() {
    SiltView view = current;
    if (merges == null || workScheduled || view == null
        || view.frozen.isEmpty() && view.hashStores.size() < options.hashStoresPerMerge()) {
      return;
    }
    workScheduled = true;
    try {
      merges.execute(() -> {
        writeLock.lock();
        try {
          workScheduled = false;
        } finally {
          writeLock.unlock();
        }
        try {
          convert();
          SiltView now = current;
          if (now != null && now.hashStores.size() >= options.hashStoresPerMerge()) {
            merge();
          }
          mergeFailure = null;
        } catch (IOException | RuntimeException | Error e) {
          mergeFailure = e;
        } finally {
          signalProgress();
        }
        writeLock.lock();
        try {
          maybeScheduleWork(); // what came meanwhile
        } finally {
          writeLock.unlock();
        }
      });
    } catch (RejectedExecutionException closing) {
      // The store is closing: the frozen logs stay in the manifest and are converted after the next open.
      workScheduled = false;
    }
  }

  /**
   * Converts every frozen log store to a hash store now, and waits (a background conversion
   * running meanwhile is waited for first).
   *
   * @throws IOException if a conversion fails (the log store stays, and readable)
   */
  public void convertNow() throws IOException {
    checkOpen();
    convert();
  }

  /**
   * Converts every frozen log store, then merges every hash store into a new sorted store, now, and
   * waits. The log store taking writes stays: {@link #freezeLog()} first to merge everything.
   *
   * @throws IOException if the merge fails (the store stays as it was, and readable)
   */
  public void mergeNow() throws IOException {
    checkOpen();
    convert();
    merge();
  }

  private void convert() throws IOException {
    workLock.lock();
    try {
      for (;;) {
        SiltView view = current;
        if (view == null || view.frozen.isEmpty()) {
          return;
        }
        convertOldest(view.frozen.get(view.frozen.size() - 1));
      }
    } finally {
      workLock.unlock();
    }
  }

  /** Under the work lock: rewrites the oldest frozen log store as a hash store and publishes it. */
  private void convertOldest(LogStore log) throws IOException {
    long number = takeNumber();
    HashStore converted = HashStore.convert(log, dir(SiltManifest.hashName(number)), number);
    writeLock.lock();
    try {
      SiltView now = current;
      if (now == null) {
        converted.deleteWhenReleased();
        converted.release();
        return;
      }
      List<Long> hashes = new ArrayList<>(manifest.hashNumbers());
      hashes.add(number);
      List<Long> logs = new ArrayList<>(manifest.logNumbers());
      List<Long> bytes = new ArrayList<>(manifest.logBytes());
      int at = logs.indexOf(log.number());
      logs.remove(at);
      bytes.remove(at);
      publishManifest(manifest.with(manifest.sortedNumber(), hashes, logs, bytes), converted);
      List<LogStore> frozen = new ArrayList<>(now.frozen);
      frozen.remove(log);
      List<HashStore> hashStores = new ArrayList<>();
      hashStores.add(converted);
      hashStores.addAll(now.hashStores);
      publish(new SiltView(now.active, frozen, hashStores, now.sorted));
      log.deleteWhenReleased();
      log.release();
      conversionCount++;
      signalProgress();
      written.addAndGet(4, converted.entries());
      written.addAndGet(5, Files.size(converted.file()));
    } finally {
      writeLock.unlock();
    }
  }

  private long takeNumber() {
    writeLock.lock();
    try {
      long number = manifest.nextNumber();
      manifest = manifest.take();
      return number;
    } finally {
      writeLock.unlock();
    }
  }

  /** Under the write lock: writes {@code next}; if that fails, the new part is deleted. */
  private void publishManifest(SiltManifest next, Retained newPart) throws IOException {
    try {
      next.write(directory);
    } catch (IOException | RuntimeException e) {
      if (newPart instanceof HashStore h) {
        h.deleteWhenReleased();
      } else if (newPart instanceof SortedStore s) {
        s.deleteWhenReleased();
      }
      newPart.release();
      throw e;
    }
    manifest = next;
  }

  private void merge() throws IOException {
    workLock.lock();
    try {
      SiltView view;
      try {
        view = acquire();
      } catch (StoreClosedException e) {
        return;
      }
      try {
        if (!view.hashStores.isEmpty()) {
          mergeHashStores(view);
        }
      } finally {
        view.release();
      }
    } finally {
      workLock.unlock();
    }
  }

  /** Under the work lock: merges the view's hash stores into a new sorted store and publishes it. */
  private void mergeHashStores(SiltView view) throws IOException {
    List<HashStore> merging = new ArrayList<>(view.hashStores);
    java.util.Collections.reverse(merging); // oldest first: later records win
    long number = takeNumber();
    Path target = dir(SiltManifest.sortedName(number));
    try (StoreMerger merger = StoreMerger.create(target).base(view.sorted.directory()).memoryBudget(options.mergeMemoryBudget())) {
      for (HashStore store : merging) {
        store.scan((offset, key, value) -> {
          if (value == null) {
            merger.delete(key);
          } else {
            merger.put(key, value);
          }
        });
      }
      merger.merge();
    }
    SortedStore sorted;
    try {
      sorted = new SortedStore(number, Store.open(target));
    } catch (IOException | RuntimeException e) {
      SortedStore.deleteTree(target);
      throw e;
    }
    writeLock.lock();
    try {
      SiltView now = current;
      if (now == null) {
        sorted.deleteWhenReleased();
        sorted.release();
        return;
      }
      List<HashStore> remaining = new ArrayList<>(now.hashStores);
      remaining.removeAll(merging);
      List<Long> hashes = new ArrayList<>(manifest.hashNumbers());
      merging.forEach(h -> hashes.remove(Long.valueOf(h.number())));
      publishManifest(manifest.with(number, hashes, manifest.logNumbers(), manifest.logBytes()), sorted);
      publish(new SiltView(now.active, now.frozen, remaining, sorted));
      now.sorted.deleteWhenReleased();
      now.sorted.release();
      for (HashStore store : merging) {
        store.deleteWhenReleased();
        store.release();
      }
      mergeCount++;
      signalProgress();
      written.addAndGet(6, sorted.store().size());
      written.addAndGet(7, sorted.store().stats().fileBytes());
    } finally {
      writeLock.unlock();
    }
  }

  /** A merge that failed in the background since the store was opened, or null. */
  public Throwable mergeFailure() {
    return mergeFailure;
  }

  /** What the store wrote since it was opened. */
  public SiltWriteStats writeStats() {
    return new SiltWriteStats(written.get(0), written.get(1), written.get(2), written.get(3), written.get(4), written.get(5),
        written.get(6), written.get(7));
  }

  /** What the store holds now. */
  public SiltStats stats() {
    SiltView view = acquire();
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
          conversionCount, mergeCount);
    } finally {
      view.release();
    }
  }

  /**
   * Waits for a running merge, forces the log taking writes, and closes the store. Readers still
   * in flight finish on the parts they hold. Closing twice does nothing.
   */
  @Override
  public void close() {
    if (merges != null) {
      merges.shutdown();
      try {
        merges.awaitTermination(Long.MAX_VALUE, TimeUnit.NANOSECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    workLock.lock();
    writeLock.lock();
    try {
      SiltView view = current;
      if (view == null) {
        return;
      }
      current = null;
      try {
        view.active.force();
      } catch (IOException e) {
        throw new UncheckedIOException("forcing " + view.active.file(), e);
      } finally {
        // The store's own references, besides the view's: every part closes once readers let go.
        view.parts().forEach(Retained::release);
        view.release();
      }
    } finally {
      writeLock.unlock();
      workLock.unlock();
    }
  }

  @Override
  public String toString() {
    return "SILT store " + directory;
  }
}
