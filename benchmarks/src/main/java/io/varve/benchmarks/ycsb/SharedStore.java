package io.varve.benchmarks.ycsb;

import java.util.Map;

/**
 * One open store per JVM for all of a binding's instances. YCSB makes a {@code DB} per client
 * thread and calls {@code init} and {@code cleanup} on each; the first {@link #acquire} opens the
 * store, the last {@link #release} closes it (the official RocksDB binding counts references the
 * same way). Thread-safe.
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

  /** The store open in {@code directory}, opened by {@code opener} if no instance holds it yet. */
  synchronized S acquire(String directory, Opener<S> opener) throws Exception {
    if (store == null) {
      long start = System.nanoTime();
      store = opener.open();
      openNanos = System.nanoTime() - start;
      this.directory = directory;
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
      store = null;
      directory = null;
      // YCSB times a phase from before its client threads open the store: say how much of it the open took.
      KeyValueDb.printStats(Map.of("openMillis", openNanos / 1_000_000));
      closing.close();
    }
  }
}
