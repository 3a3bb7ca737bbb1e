package io.varve.reader;

import io.varve.core.store.StoreRoot;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

/**
 * Serves the current version of a {@link StoreRoot} and follows its {@code CURRENT} pointer:
 * {@link #refresh()} opens the newly published version, swaps it in and closes the old one once
 * the lookups in flight on it are done. Lookups go to whichever version is current when they
 * start; a lookup that meets a version closed under it retries on the new one, so swaps never fail
 * a lookup and never show a partial store (versions are published whole).
 *
 * <pre>{@code
 * try (FollowingStore store = FollowingStore.open(Path.of("/data/stores/users"))) {
 *   byte[] value = store.get(key);
 *   ...
 *   store.refresh();   // e.g. every few seconds, or when told that a new version was published
 * }
 * }</pre>
 *
 * Thread-safe: lookups from any number of threads; {@link #refresh()} may run concurrently with
 * them (concurrent refreshes are serialized).
 */
public final class FollowingStore implements Closeable {
  private final StoreRoot root;
  private final DataAccess access;
  private final AtomicReference<Version> current;
  private volatile boolean closed;

  /** A store and the version name it was opened from. */
  private record Version(String name, Store store) {}

  private FollowingStore(StoreRoot root, DataAccess access, Version first) {
    this.root = root;
    this.access = access;
    this.current = new AtomicReference<>(first);
  }

  /**
   * Opens the version {@code CURRENT} names under {@code rootDirectory}.
   *
   * @throws NoSuchFileException when nothing is published yet
   */
  public static FollowingStore open(Path rootDirectory) throws IOException {
    return open(rootDirectory, DataAccess.MAPPED);
  }

  /**
   * Opens the version {@code CURRENT} names under {@code rootDirectory}, and every later version,
   * with their data reached as {@code access} says ({@link DataAccess#LOADED}: each version is
   * loaded before it is swapped in, so that for a moment two versions are in memory).
   *
   * @throws NoSuchFileException when nothing is published yet
   */
  public static FollowingStore open(Path rootDirectory, DataAccess access) throws IOException {
    Objects.requireNonNull(access, "access");
    StoreRoot root = StoreRoot.open(rootDirectory);
    String name = root.current().orElseThrow(() -> new NoSuchFileException(rootDirectory.resolve(StoreRoot.CURRENT).toString(), null, "nothing is published"));
    return new FollowingStore(root, access, new Version(name, Store.open(root.path(name), access)));
  }

  /** The value of {@code key} in the current version, or null. */
  public byte[] get(byte[] key) {
    return onCurrent(store -> store.get(key));
  }

  /** The current version's position of {@code key} in hash order, or -1 ({@link Store#indexOf}). */
  public long indexOf(byte[] key) {
    return onCurrent(store -> store.indexOf(key));
  }

  /** The name of the version being served. */
  public String version() {
    return current.get().name();
  }

  /**
   * Runs {@code lookup} on the current version, again on the next one if a refresh closed the
   * version under it.
   */
  private <T> T onCurrent(Function<Store, T> lookup) {
    while (true) {
      Version version = current.get();
      try {
        return lookup.apply(version.store());
      } catch (StoreClosedException closedUnderUs) {
        if (closed || current.get() == version) {
          throw closedUnderUs;
        }
      }
    }
  }

  /**
   * Opens the version {@code CURRENT} names if it is not the one served, swaps it in and closes the
   * old one (after its lookups in flight).
   *
   * @return whether the version changed
   */
  public synchronized boolean refresh() throws IOException {
    if (closed) {
      throw new StoreClosedException("FollowingStore of " + root.directory());
    }
    String name = root.current().orElseThrow(() -> new NoSuchFileException(root.directory().resolve(StoreRoot.CURRENT).toString()));
    Version old = current.get();
    if (name.equals(old.name())) {
      return false;
    }
    Version next = new Version(name, Store.open(root.path(name), access));
    current.set(next);
    old.store().close();
    return true;
  }

  /** Closes the version being served. */
  @Override
  public synchronized void close() {
    if (!closed) {
      closed = true;
      current.get().store().close();
    }
  }
}
