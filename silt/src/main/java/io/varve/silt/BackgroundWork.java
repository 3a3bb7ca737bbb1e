package io.varve.silt;

import io.varve.builder.StoreMerger;
import io.varve.core.files.FileTrees;
import io.varve.reader.Store;
import io.varve.reader.StoreClosedException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A SILT store's conversions (frozen log store → hash store) and merges (hash stores → a new sorted
 * store): in the background, each on a thread of its own, or when asked; and the stall that keeps
 * writers from outrunning them. Conversions go on during a merge, so writes do too, until the hash
 * stores for a second merge are waiting. Each publishes its result under the write lock: a
 * manifest naming it, then a view with it. Work that failed runs again after a {@link RetryDelay}.
 *
 * <p>Thread-safe.
 */
final class BackgroundWork {
  /** Frozen log stores past which writers wait for conversions. */
  static final int MAX_FROZEN_LOGS = 2;

  private final SiltState state;
  /** Held by a conversion. */
  private final ReentrantLock convertLock = new ReentrantLock();
  /** Held by a merge. */
  private final ReentrantLock mergeLock = new ReentrantLock();
  /** Both null when work runs only when asked. */
  private final ScheduledThreadPoolExecutor converter;
  private final ScheduledThreadPoolExecutor merger;
  /** When failed background work runs again. */
  private final RetryDelay conversionRetry = new RetryDelay();
  private final RetryDelay mergeRetry = new RetryDelay();
  /** Signalled when work publishes a view: stalled writers look again. */
  private final Object progress = new Object();
  /** Guarded by the write lock. */
  private boolean conversionScheduled;
  private boolean mergeScheduled;
  private volatile Throwable conversionFailure;
  private volatile Throwable mergeFailure;
  private volatile long conversions;
  private volatile long merges;
  /** Set by {@link #stopAndLock}: a running merge gives up, and runs again after the next open. */
  private volatile boolean stopping;

  BackgroundWork(SiltState state) {
    this.state = state;
    boolean background = state.options.backgroundMerges();
    this.converter = background ? thread("varve-silt-convert ") : null;
    this.merger = background ? thread("varve-silt-merge ") : null;
  }

  private ScheduledThreadPoolExecutor thread(String name) {
    ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, r -> {
      Thread t = new Thread(r, name + state.directory.getFileName());
      t.setDaemon(true);
      return t;
    });
    executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false); // a close does not wait out a retry's delay
    return executor;
  }

  /**
   * Hash stores at which writers wait for a merge: those a merge takes, as many queued behind a
   * running one, and two more (counted in long: {@code 2H + 2} passes an int from {@code H = 2^30
   * - 1} on, and a wrapped bound stopped every write).
   */
  static int maxHashStores(SiltOptions options) {
    return (int) Math.min(Integer.MAX_VALUE, 2L * options.hashStoresPerMerge() + 2);
  }

  long conversions() {
    return conversions;
  }

  long merges() {
    return merges;
  }

  /** A background conversion or merge that failed since the last of its kind that succeeded, or null. */
  /**
   * Converts every frozen log store now, on the caller's thread. Success clears a background
   * conversion's failure and its retry delay: the cause is gone.
   */
  void convertNow() throws IOException {
    convert();
    conversionFailure = null;
    conversionRetry.succeeded();
  }

  /** Merges now, on the caller's thread; success clears a background merge's failure and its retry delay. */
  void mergeNow() throws IOException {
    merge();
    mergeFailure = null;
    mergeRetry.succeeded();
  }

  Throwable failure() {
    Throwable conversion = conversionFailure;
    return conversion != null ? conversion : mergeFailure;
  }

  /**
   * Under the write lock: starts background work if there is some (a frozen log, or hash stores
   * enough for a merge); work of a kind that failed last starts after its {@link RetryDelay}.
   */
  void scheduleIfDue() {
    SiltView view = state.current();
    if (converter == null || view == null) {
      return;
    }
    try {
      long now = System.nanoTime();
      if (!conversionScheduled && !view.frozen.isEmpty()) {
        conversionScheduled = true;
        converter.schedule(this::runConversion, conversionRetry.delayNanos(now), TimeUnit.NANOSECONDS);
      }
      if (!mergeScheduled && view.hashStores.size() >= state.options.hashStoresPerMerge()) {
        mergeScheduled = true;
        merger.schedule(this::runMerge, mergeRetry.delayNanos(now), TimeUnit.NANOSECONDS);
      }
    } catch (RejectedExecutionException closing) {
      // The store is closing: what waits stays in the manifest and is done after the next open.
    }
  }

  private void runConversion() {
    unschedule(true);
    try {
      convert();
      conversionFailure = null;
      conversionRetry.succeeded();
    } catch (IOException | RuntimeException | Error e) {
      conversionFailure = e;
      conversionRetry.failed(System.nanoTime());
    }
    afterWork();
  }

  private void runMerge() {
    unschedule(false);
    try {
      SiltView now = state.current();
      if (now != null && now.hashStores.size() >= state.options.hashStoresPerMerge()) {
        merge();
      }
      mergeFailure = null;
      mergeRetry.succeeded();
    } catch (StoreClosedException closing) {
      // Given up because the store closes: not a failure.
    } catch (IOException | RuntimeException | Error e) {
      mergeFailure = e;
      mergeRetry.failed(System.nanoTime());
    }
    afterWork();
  }

  private void unschedule(boolean conversion) {
    state.writeLock.lock();
    try {
      if (conversion) {
        conversionScheduled = false;
      } else {
        mergeScheduled = false;
      }
    } finally {
      state.writeLock.unlock();
    }
  }

  private void afterWork() {
    signalProgress();
    state.writeLock.lock();
    try {
      scheduleIfDue(); // what came meanwhile
    } finally {
      state.writeLock.unlock();
    }
  }

  /**
   * Stalls a writer while background work lags: more than {@value #MAX_FROZEN_LOGS} frozen log
   * stores wait for conversion, or {@link #maxHashStores} hash stores wait for merges. Memory
   * stays bounded however fast writes come, as with LevelDB's write stalls.
   */
  void awaitCapacity() throws IOException {
    if (converter == null) {
      return;
    }
    synchronized (progress) {
      for (;;) {
        SiltView view = state.current();
        if (view == null || view.frozen.size() <= MAX_FROZEN_LOGS && view.hashStores.size() < maxHashStores(state.options)) {
          return;
        }
        if (stopping) {
          throw new StoreClosedException(state.directory.toString());
        }
        Throwable failed = failure();
        if (failed != null) {
          state.writeLock.lock();
          try {
            scheduleIfDue(); // try again after the retry delay; the failure holds until work succeeds
          } finally {
            state.writeLock.unlock();
          }
          throw new IOException("writes wait for background work that failed: " + failed, failed);
        }
        try {
          progress.wait(100);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new InterruptedIOException("interrupted while writes waited for background work");
        }
      }
    }
  }

  private void signalProgress() {
    synchronized (progress) {
      progress.notifyAll();
    }
  }

  /** Converts every frozen log store, oldest first. */
  void convert() throws IOException {
    convertLock.lock();
    try {
      for (;;) {
        SiltView view = state.current();
        if (view == null || view.frozen.isEmpty()) {
          return;
        }
        convertOldest(view.frozen.get(view.frozen.size() - 1));
      }
    } finally {
      convertLock.unlock();
    }
  }

  /** Under the conversion lock: rewrites a frozen log store as a hash store and publishes it in its place. */
  private void convertOldest(LogStore log) throws IOException {
    long number = state.takeNumber();
    HashStore converted = HashStore.convert(log, state.resolve(SiltManifest.hashName(number)), number,
        state.resolve(SiltManifest.scratchName(number)), state.options.conversionMemory());
    state.writeLock.lock();
    try {
      SiltView now = state.current();
      if (now == null) {
        converted.deleteWhenReleased();
        converted.release();
        return;
      }
      SiltManifest manifest = state.manifest();
      List<Long> hashes = new ArrayList<>(manifest.hashNumbers());
      hashes.add(number);
      List<Long> logs = new ArrayList<>(manifest.logNumbers());
      List<Long> bytes = new ArrayList<>(manifest.logBytes());
      int at = logs.indexOf(log.number());
      logs.remove(at);
      bytes.remove(at);
      state.publishManifest(manifest.with(hashes, logs, bytes), converted);
      List<LogStore> frozen = new ArrayList<>(now.frozen);
      frozen.remove(log);
      List<HashStore> hashStores = new ArrayList<>();
      hashStores.add(converted);
      hashStores.addAll(now.hashStores);
      state.publish(new SiltView(now.active, frozen, hashStores, now.sorted));
      log.deleteWhenReleased();
      log.release();
      conversions++;
      state.written.addAndGet(4, converted.entries());
      state.written.addAndGet(5, Files.size(converted.file()));
    } finally {
      state.writeLock.unlock();
    }
    signalProgress();
  }

  /**
   * Merges every hash store into a new sorted store.
   *
   * @throws StoreClosedException if the store closes meanwhile (the merge is given up)
   */
  void merge() throws IOException {
    mergeLock.lock();
    try {
      SiltView view;
      try {
        view = state.acquire();
      } catch (StoreClosedException e) {
        return;
      }
      try {
        if (!view.hashStores.isEmpty()) {
          mergeHashStores(view);
        }
      } catch (CancellationException e) {
        throw new StoreClosedException(state.directory.toString());
      } finally {
        view.release();
      }
    } finally {
      mergeLock.unlock();
    }
  }

  /**
   * Gives up the running merge when the store closes: a merge rewrites the whole sorted store, and
   * a close should not wait minutes for it. Its hash stores stay in the manifest.
   */
  private void checkNotStopping() {
    if (stopping) {
      throw new CancellationException("the store closes: the merge stops, and runs again after the next open");
    }
  }

  /** Under the merge lock: merges the view's hash stores into a new sorted store and publishes it. */
  private void mergeHashStores(SiltView view) throws IOException {
    List<HashStore> merging = new ArrayList<>(view.hashStores);
    Collections.reverse(merging); // oldest first: later records win
    long number = state.takeNumber();
    Path target = state.resolve(SiltManifest.sortedName(number));
    SortedStore sorted;
    int sortedMeta;
    try {
      writeMerged(view.sorted, merging, target);
      sortedMeta = SortedStore.metaCheck(target);
      sorted = new SortedStore(number, Store.open(target));
    } catch (IOException | RuntimeException e) {
      try {
        FileTrees.deleteTree(target);
      } catch (IOException cleanup) {
        e.addSuppressed(cleanup); // the next open deletes it: the manifest does not name it
      }
      throw e;
    }
    state.writeLock.lock();
    try {
      SiltView now = state.current();
      if (now == null) {
        sorted.deleteWhenReleased();
        sorted.release();
        return;
      }
      List<HashStore> remaining = new ArrayList<>(now.hashStores);
      remaining.removeAll(merging);
      SiltManifest manifest = state.manifest();
      List<Long> hashes = new ArrayList<>(manifest.hashNumbers());
      merging.forEach(h -> hashes.remove(Long.valueOf(h.number())));
      state.publishManifest(manifest.withSorted(number, sortedMeta, hashes), sorted);
      state.publish(new SiltView(now.active, now.frozen, remaining, sorted));
      now.sorted.deleteWhenReleased();
      now.sorted.release();
      for (HashStore store : merging) {
        store.deleteWhenReleased();
        store.release();
      }
      merges++;
      state.written.addAndGet(6, sorted.store().size());
      state.written.addAndGet(7, sorted.store().stats().fileBytes());
    } finally {
      state.writeLock.unlock();
    }
    signalProgress();
  }

  /** Writes the sorted store {@code base} with {@code merging} applied, oldest first, to {@code target}. */
  private void writeMerged(SortedStore base, List<HashStore> merging, Path target) throws IOException {
    try (StoreMerger merger = StoreMerger.create(target).base(base.directory()).memoryBudget(state.options.mergeMemoryBudget())
        .listener((phase, done, total) -> checkNotStopping())) {
      for (HashStore store : merging) {
        store.scan((offset, key, value) -> {
          checkNotStopping();
          if (value == null) {
            merger.delete(key);
          } else {
            merger.put(key, value);
          }
        });
      }
      merger.merge();
    }
  }

  /**
   * Stops taking work, gives up a running merge, waits for the running conversion, and holds both
   * work locks (until {@link #unlock}).
   */
  void stopAndLock() {
    stopping = true;
    if (converter != null) {
      converter.shutdown();
      merger.shutdown();
      try {
        converter.awaitTermination(Long.MAX_VALUE, TimeUnit.NANOSECONDS);
        merger.awaitTermination(Long.MAX_VALUE, TimeUnit.NANOSECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    mergeLock.lock();
    convertLock.lock();
  }

  void unlock() {
    convertLock.unlock();
    mergeLock.unlock();
  }
}
