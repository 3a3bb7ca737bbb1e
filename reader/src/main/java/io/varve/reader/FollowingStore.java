package io.varve.reader;

import io.varve.core.artifact.StoreFiles;
import io.varve.core.store.StoreRoot;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Objects;

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
 * <p>Each version must be one store; {@link FollowingShardedStore} follows a root of sharded
 * versions. Both share their switching ({@code VersionFollower}).
 *
 * <p>Thread-safe: lookups from any number of threads; {@link #refresh()} may run concurrently with
 * them (concurrent refreshes are serialized). After {@link #close()} every call throws {@link
 * StoreClosedException}.
 */
public final class FollowingStore implements Closeable {
  private final VersionFollower<Store> follower;

  private FollowingStore(VersionFollower<Store> follower) {
    this.follower = follower;
  }

  /**
   * Opens the version {@code CURRENT} names under {@code rootDirectory}.
   *
   * @throws NoSuchFileException when {@code rootDirectory} does not exist (a reader creates nothing) or nothing is published yet
   */
  public static FollowingStore open(Path rootDirectory) throws IOException {
    return open(rootDirectory, DataAccess.MAPPED);
  }

  /**
   * Opens the version {@code CURRENT} names under {@code rootDirectory}, and every later version,
   * with their data reached as {@code access} says ({@link DataAccess#LOADED}: each version is
   * loaded before it is swapped in, so that for a moment two versions are in memory).
   *
   * @throws NoSuchFileException when {@code rootDirectory} does not exist (a reader creates nothing) or nothing is published yet
   */
  public static FollowingStore open(Path rootDirectory, DataAccess access) throws IOException {
    Objects.requireNonNull(access, "access");
    return open(rootDirectory, version -> Store.open(version, access));
  }

  /** {@link #open(Path, DataAccess)} with each version opened by {@code opener}: tests count the reads of versions. */
  static FollowingStore open(Path rootDirectory, VersionFollower.Opener<Store> opener) throws IOException {
    return new FollowingStore(
        VersionFollower.open(
            rootDirectory,
            opener,
            Store::close,
            (store, version) -> StoreFiles.of(version).readMeta().equals(store.meta()),
            Store::failure,
            Store::checkLoadedCopy));
  }

  /** The value of {@code key} in the current version, or null. */
  public byte[] get(byte[] key) {
    return follower.onCurrent(store -> store.get(key));
  }

  /** Whether the current version holds {@code key}. */
  public boolean contains(byte[] key) {
    return follower.onCurrent(store -> store.contains(key));
  }

  /**
   * {@code values[i] = get(keys[i])}, all from one version ({@link Store#getAll}).
   *
   * @throws IllegalArgumentException if {@code values} is shorter than {@code keys}
   */
  public void getAll(byte[][] keys, byte[][] values) {
    follower.onCurrent(store -> {
      store.getAll(keys, values);
      return null;
    });
  }

  /** The current version's position of {@code key} in hash order, or -1 ({@link Store#indexOf}). */
  public long indexOf(byte[] key) {
    return follower.onCurrent(store -> store.indexOf(key));
  }

  /** The name of the version being served. */
  public String version() {
    return follower.version();
  }

  /**
   * Opens the version {@code CURRENT} names if it is not the one served, swaps it in and closes the
   * old one (after its lookups in flight). A version of the served one's name whose meta file differs
   * is another build (a name used again after a rollback and a delete) and is swapped in too. A
   * served version whose data file was cut or rewritten under it refuses every lookup; it is opened
   * anew, so that once its files are whole again (repaired, or published again) it serves again.
   * So is a loaded version whose copy in memory was found to hold a damaged record: the copy keeps
   * the damage after the file is repaired in place, so the version is loaded anew, and swapped in
   * once its copy matches the data file's checksum. A version found damaged is not read again
   * while its files stay unchanged (name, size, modification time, identity): the refresh throws
   * the damage again without reading it.
   *
   * @return whether the version changed (or a failed one was opened anew)
   * @throws IOException when the new version cannot be opened (a {@code CorruptStoreException} when
   *     it is damaged); the old one is still served
   */
  public boolean refresh() throws IOException {
    return follower.refresh();
  }

  /** Closes the version being served (after its lookups in flight). Idempotent. */
  @Override
  public void close() {
    follower.close();
  }

  /** Whether {@link #close()} was called. */
  public boolean isClosed() {
    return follower.isClosed();
  }

  @Override
  public String toString() {
    return "FollowingStore[" + follower.root().directory() + (isClosed() ? ", closed" : "") + "]";
  }
}
