package io.varve.reader;

import io.varve.core.format.CorruptStoreException;
import io.varve.core.shard.ShardManifest;
import io.varve.core.store.StoreRoot;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * Serves the current version of a {@link StoreRoot} whose versions are sharded stores (each a
 * directory with a {@value ShardManifest#FILE_NAME}, its shards directories or {@code .varve}
 * artifacts), and follows its {@code CURRENT} pointer as {@link FollowingStore} does for single
 * stores: {@link #refresh()} opens the newly published version as {@link ShardedStore#open} does
 * (every shard checked against the manifest), swaps it in and closes the old one once the lookups
 * in flight on it are done. A lookup that meets a version closed under it runs again on the new
 * one, so every answer, {@link #getAll} included, comes from one whole version.
 *
 * <pre>{@code
 * try (FollowingShardedStore users = FollowingShardedStore.open(Path.of("/data/stores/users"))) {
 *   byte[] value = users.get(key);
 *   ...
 *   users.refresh();   // e.g. every few seconds, or after a fetch published a new version
 * }
 * }</pre>
 *
 * <p>A new version may have another shard count than the old one: each version routes its own
 * keys. A version that cannot be opened (no manifest, a damaged or missing shard) makes {@link
 * #refresh()} throw and leaves the old version served.
 *
 * <p>Thread-safe: lookups from any number of threads; {@link #refresh()} may run concurrently with
 * them (concurrent refreshes are serialized). After {@link #close()} every call throws {@link
 * StoreClosedException}.
 */
public final class FollowingShardedStore implements Closeable {
  private final VersionFollower<ShardedStore> follower;

  private FollowingShardedStore(VersionFollower<ShardedStore> follower) {
    this.follower = follower;
  }

  /**
   * Opens the sharded store of the version {@code CURRENT} names under {@code rootDirectory}.
   *
   * @throws NoSuchFileException when {@code rootDirectory} does not exist (a reader creates nothing), nothing is
   *     published yet, or the version has no manifest
   * @throws CorruptStoreException when the version's manifest or a shard is damaged or missing
   */
  public static FollowingShardedStore open(Path rootDirectory) throws IOException {
    return new FollowingShardedStore(
        VersionFollower.open(
            rootDirectory,
            ShardedStore::open,
            ShardedStore::close,
            (store, version) -> ShardManifest.read(version.resolve(ShardManifest.FILE_NAME)).equals(store.manifest()),
            ShardedStore::failure,
            sharded -> {})); // shards are mapped: a repaired file is what they read
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
   * {@code values[i] = get(keys[i])}, all from one version, grouped by shard ({@link
   * ShardedStore#getAll}).
   *
   * @throws IllegalArgumentException if {@code values} is shorter than {@code keys}
   */
  public void getAll(byte[][] keys, byte[][] values) {
    follower.onCurrent(store -> {
      store.getAll(keys, values);
      return null;
    });
  }

  /** The name of the version being served. */
  public String version() {
    return follower.version();
  }

  /** The current version's number of shards. */
  public int shardCount() {
    return follower.onCurrent(ShardedStore::shardCount);
  }

  /** The current version's number of records. */
  public long size() {
    return follower.onCurrent(ShardedStore::size);
  }

  /** The current version's manifest. */
  public ShardManifest manifest() {
    return follower.onCurrent(ShardedStore::manifest);
  }

  /** The sizes of the current version's parts, summed over its shards ({@link ShardedStore#stats}). */
  public StoreStats stats() {
    return follower.onCurrent(ShardedStore::stats);
  }

  /**
   * Opens the version {@code CURRENT} names if it is not the one served, swaps it in and closes the
   * old one (after its lookups in flight). A version of the served one's name whose manifest differs
   * is another build (a name used again after a rollback and a delete) and is swapped in too. A
   * served version with a shard whose data file was cut or rewritten under it refuses that shard's
   * lookups; it is opened anew, so that once its files are whole again it serves again. A version
   * found damaged is not read again while its files stay unchanged (name, size, modification time,
   * identity): the refresh throws the damage again without reading it.
   *
   * @return whether the version changed (or a failed one was opened anew)
   * @throws NoSuchFileException when the new version has no manifest; the old one is still served
   * @throws CorruptStoreException when the new version's manifest or a shard is damaged or missing
   *     (the message names it); the old one is still served
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
    return "FollowingShardedStore[" + follower.root().directory() + (isClosed() ? ", closed" : "") + "]";
  }
}
