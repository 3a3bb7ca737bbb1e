package io.varve.benchmarks.ycsb;

import io.varve.benchmarks.peers.ProcessStats;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One open store per JVM for all of a binding's instances. YCSB makes a {@code DB} per client
 * thread and calls {@code init} and {@code cleanup} on each; the first {@link #acquire} opens the
 * store, the last {@link #release} closes it (the official RocksDB binding counts references the
 * same way). It also counts the reads the store's disk completed between the open and the close
 * (the whole device's, from {@code /proc/diskstats}: meaningful on an otherwise idle machine).
 * Thread-safe.
 *
 * @param <S> the open store and whatever must be closed with it
 */
final class SharedStore<S extends AutoCloseable> {
  /** Opens the store; called once, under the lock. */
  interface Opener<S> {
    S open() throws Exception;
  }

  private S store;
  private String directory;
  private int users;
  private long openNanos;
  private long[] diskReadsAfterOpen;

  /** The store open in {@code directory}, opened by {@code opener} if no instance holds it yet. */
  synchronized S acquire(String directory, Opener<S> opener) throws Exception {
    if (store == null) {
      long start = System.nanoTime();
      store = opener.open();
      openNanos = System.nanoTime() - start;
      this.directory = directory;
      diskReadsAfterOpen = ProcessStats.diskReads(Path.of(directory));
    } else if (!this.directory.equals(directory)) {
      throw new IllegalStateException("this JVM already has " + this.directory + " open, not " + directory);
    }
    users++;
    return store;
  }

  /** Lets go of the store; the last user closes it. */
  synchronized void release() throws Exception {
    if (users == 0) {
      throw new IllegalStateException("released more often than acquired");
    }
    if (--users == 0) {
      S closing = store;
      Map<String, Object> stats = new LinkedHashMap<>();
      // YCSB times a phase from before its client threads open the store: say how much of it the open took.
      stats.put("openMillis", openNanos / 1_000_000);
      long[] now = ProcessStats.diskReads(Path.of(directory));
      if (diskReadsAfterOpen != null && now != null) {
        stats.put("diskReads", now[0] - diskReadsAfterOpen[0]);
        stats.put("diskReadBytes", (now[1] - diskReadsAfterOpen[1]) * 512);
      }
      store = null;
      directory = null;
      KeyValueDb.printStats(stats);
      closing.close();
    }
  }
}
