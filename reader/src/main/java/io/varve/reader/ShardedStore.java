package io.varve.reader;

import io.varve.core.files.FileReadInterrupted;
import io.varve.core.artifact.StoreArtifact;
import io.varve.core.format.CorruptStoreException;
import io.varve.core.format.FileRegion;
import io.varve.core.index.IndexKind;
import io.varve.core.hash.KeyHasher;
import io.varve.core.shard.ShardManifest;
import io.varve.core.shard.ShardRouter;
import io.varve.core.store.StoreFile;
import io.varve.core.store.StoreFileReader;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;

/**
 * A sharded store opened from its root directory: the {@value ShardManifest#FILE_NAME} and one
 * {@link Store} per shard, each a directory named as the manifest names the shard or, when there is
 * none, a one-file artifact of that name plus {@code .varve}, read in place. A key is routed to its shard by its own hash ({@link ShardRouter}), with
 * no table, and looked up there; answers are those of one store built from the same records.
 *
 * <pre>{@code
 * try (ShardedStore store = ShardedStore.open(Path.of("/data/users"))) {
 *   byte[] value = store.get("user:42".getBytes(UTF_8));   // null when absent
 * }
 * }</pre>
 *
 * <p>Opening validates the manifest, opens every shard as {@link Store#open} does, and checks each
 * one against its manifest entry (record count, seed, key mode, size, and the meta file's checksum,
 * which vouches for every file of the shard): a missing or damaged shard is a {@link
 * CorruptStoreException} naming it, and nothing stays open.
 *
 * <p>Thread-safe: any number of threads may read at once. Routing reads only what never changes
 * after opening; the shards share one {@link LookupGuard} (one per shard took {@code 128 * 8 *
 * processors} bytes each: 4 GiB for 65,536 shards on a 64-core host), so {@link #close()} waits
 * for every lookup in flight on every shard, and a call that begins after close (or races it)
 * throws {@link StoreClosedException}, never reads freed memory. A shard whose data file is cut
 * under it fails the whole store (every lookup refused), as a cut store does.
 */
public final class ShardedStore implements Closeable {
  private final Path root;
  private final ShardManifest manifest;
  private final Store[] shards;
  /** Hashes keys with the routing seed, for routing and for the shards built with it. */
  private final KeyHasher hasher;
  /** Whether shard i's keys are hashed with the routing seed (all, unless a collision made one rehash). */
  private final boolean[] hashedWithRoutingSeed;
  /** The shards' guard, shared: it counts the lookups of every shard. */
  private final LookupGuard guard;
  private volatile boolean closed;

  private static final ThreadLocal<long[]> HASH = ThreadLocal.withInitial(() -> new long[2]);

  private ShardedStore(Path root, ShardManifest manifest, Store[] shards, LookupGuard guard) {
    this.root = root;
    this.guard = guard;
    this.manifest = manifest;
    this.shards = shards;
    this.hasher = KeyHasher.withSeed(manifest.seed());
    this.hashedWithRoutingSeed = new boolean[shards.length];
    for (int i = 0; i < shards.length; i++) {
      hashedWithRoutingSeed[i] = shards[i].meta().seed() == manifest.seed();
    }
  }

  /**
   * Opens and validates the sharded store in {@code root}.
   *
   * @throws NoSuchFileException when {@code root} has no manifest (not a sharded store, or a build
   *     that did not finish)
   * @throws CorruptStoreException when the manifest or a shard is damaged, a shard is missing, or a
   *     shard is not the one the manifest names
   * @throws java.io.InterruptedIOException naming the store when the calling thread is interrupted
   *     (its interrupt flag stays set; nothing stays open)
   */
  public static ShardedStore open(Path root) throws IOException {
    return open(root, RecordMemory::open);
  }

  /** {@link #open(Path)} with the shards' data files opened by {@code memory}; for tests. */
  static ShardedStore open(Path root, RecordMemory.Opener memory) throws IOException {
    return Interrupted.of(root, "opening the sharded store", () -> openUninterrupted(root, memory));
  }

  private static ShardedStore openUninterrupted(Path root, RecordMemory.Opener memory) throws IOException {
    Path manifestFile = root.resolve(ShardManifest.FILE_NAME);
    if (!Files.exists(manifestFile)) {
      throw new NoSuchFileException(manifestFile.toString(), null, "no manifest: not a sharded store, or its build did not finish");
    }
    ShardManifest manifest = ShardManifest.read(manifestFile);
    Store[] shards = new Store[manifest.shardCount()];
    LookupGuard guard = new LookupGuard(root.toString());
    try {
      for (int i = 0; i < shards.length; i++) {
        shards[i] = openShard(root, manifest, i, guard, memory);
      }
    } catch (IOException | RuntimeException | Error e) {
      guard.close(); // no lookup ever ran
      for (Store shard : shards) {
        if (shard != null) {
          closeData(shard, e);
        }
      }
      throw e;
    }
    return new ShardedStore(root, manifest, shards, guard);
  }

  private static Store openShard(Path root, ShardManifest manifest, int i, LookupGuard guard, RecordMemory.Opener memory)
      throws IOException {
    ShardManifest.Shard entry = manifest.shards().get(i);
    String what = root + ": shard " + i + " of " + manifest.shardCount() + " (" + entry.name() + ")";
    Path directory = root.resolve(entry.name());
    if (!Files.isDirectory(directory)) {
      Path artifact = root.resolve(entry.name() + StoreArtifact.SUFFIX);
      if (!Files.isRegularFile(artifact)) {
        throw new CorruptStoreException(what + " is missing: no directory " + directory + " and no artifact " + artifact);
      }
      directory = artifact;
    }
    Store store;
    try {
      store = StoreOpener.open(directory, true, DataAccess.MAPPED, memory, guard);
    } catch (NoSuchFileException e) {
      throw new CorruptStoreException(what + " is not a complete store: " + e.getMessage(), e);
    } catch (CorruptStoreException e) {
      throw new CorruptStoreException(what + " is damaged: " + e.getMessage(), e);
    }
    try {
      checkAgainstManifest(store, manifest, i);
      ShardRoutes.checkSample(store, manifest, i);
      return store;
    } catch (IOException | RuntimeException e) {
      closeData(store, e); // not yet among the shards that open closes
      throw e;
    }
  }

  /**
   * Closes {@code shard}'s data while {@code failure} is on its way out: a close that fails too is
   * suppressed in it, so that the caller sees why the open failed and the other shards still close.
   */
  private static void closeData(Store shard, Throwable failure) {
    try {
      shard.closeData();
    } catch (RuntimeException | Error e) {
      failure.addSuppressed(e);
    }
  }

  /** Checks the open shard {@code i} against its entry, through its meta file's size and footer. */
  private static void checkAgainstManifest(Store store, ShardManifest manifest, int i) throws IOException {
    FileRegion metaFile = store.files().find(StoreFile.META.fileName());
    CorruptStoreException.check(metaFile != null, store.directory() + ": the meta file is gone");
    int metaChecksum = FileReadInterrupted.reading(metaFile.name(), () -> {
      try (java.nio.channels.FileChannel channel = java.nio.channels.FileChannel.open(metaFile.file())) {
        return StoreFileReader.checkEnvelope(channel, metaFile, StoreFile.META, -1);
      }
    });
    manifest.checkShard(i, store.meta(), metaFile.length(), metaChecksum);
  }

  /** The manifest the store was opened with. */
  public ShardManifest manifest() {
    return manifest;
  }

  /** The root directory. */
  public Path root() {
    return root;
  }

  /** The number of shards. */
  public int shardCount() {
    return shards.length;
  }

  /** The number of records of all shards. */
  public long size() {
    return manifest.recordCount();
  }

  /** The shard {@code key} is routed to, in {@code [0, shardCount())}. */
  public int shardOf(byte[] key) {
    long[] hash = HASH.get();
    hasher.hash(key, 0, key.length, hash);
    return ShardRouter.shardOfHash(hash[1], shards.length);
  }

  /** The value of {@code key}, or null when the store does not hold it. */
  public byte[] get(byte[] key) {
    checkOpen();
    long[] hash = HASH.get();
    hasher.hash(key, 0, key.length, hash); // once: the route and the shard's lookup share it
    int i = ShardRouter.shardOfHash(hash[1], shards.length);
    try {
      return hashedWithRoutingSeed[i] ? shards[i].get(hash[0], hash[1], key) : shards[i].get(key);
    } catch (StoreClosedException e) {
      throw closedException();
    }
  }

  /** Whether the store holds {@code key}. */
  public boolean contains(byte[] key) {
    checkOpen();
    long[] hash = HASH.get();
    hasher.hash(key, 0, key.length, hash);
    int i = ShardRouter.shardOfHash(hash[1], shards.length);
    try {
      return hashedWithRoutingSeed[i] ? shards[i].contains(hash[0], hash[1], key) : shards[i].contains(key);
    } catch (StoreClosedException e) {
      throw closedException();
    }
  }

  /**
   * Looks up many keys at once: {@code values[i] = get(keys[i])}. The keys are grouped by shard
   * and each group looked up with {@link Store#getAll}, whose overlapping reads make this faster
   * per key than {@link #get} in a loop; the values come back in the caller's order.
   *
   * @throws IllegalArgumentException if {@code values} is shorter than {@code keys}
   */
  public void getAll(byte[][] keys, byte[][] values) {
    if (values.length < keys.length) {
      throw new IllegalArgumentException("values has " + values.length + " slots for " + keys.length + " keys");
    }
    checkOpen();
    if (shards.length == 1) {
      getAllIn(0, keys, null, values);
      return;
    }
    // Each key hashed once: its hash routes it and is handed to its shard's lookup.
    long[] hashes = new long[2 * keys.length];
    long[] hash = HASH.get();
    // A counting sort of the keys' positions by shard: start[s] is where shard s's group begins.
    int[] shardOfKey = new int[keys.length];
    int[] start = new int[shards.length + 1];
    for (int i = 0; i < keys.length; i++) {
      hasher.hash(keys[i], 0, keys[i].length, hash);
      hashes[2 * i] = hash[0];
      hashes[2 * i + 1] = hash[1];
      shardOfKey[i] = ShardRouter.shardOfHash(hash[1], shards.length);
      start[shardOfKey[i] + 1]++;
    }
    for (int s = 0; s < shards.length; s++) {
      start[s + 1] += start[s];
    }
    int[] order = new int[keys.length];
    int[] next = start.clone();
    for (int i = 0; i < keys.length; i++) {
      order[next[shardOfKey[i]]++] = i;
    }
    for (int s = 0; s < shards.length; s++) {
      int n = start[s + 1] - start[s];
      if (n == 0) {
        continue;
      }
      byte[][] groupKeys = new byte[n][];
      long[] groupHashes = hashedWithRoutingSeed[s] ? new long[2 * n] : null;
      for (int j = 0; j < n; j++) {
        int k = order[start[s] + j];
        groupKeys[j] = keys[k];
        if (groupHashes != null) {
          groupHashes[2 * j] = hashes[2 * k];
          groupHashes[2 * j + 1] = hashes[2 * k + 1];
        }
      }
      byte[][] groupValues = new byte[n][];
      getAllIn(s, groupKeys, groupHashes, groupValues);
      for (int j = 0; j < n; j++) {
        values[order[start[s] + j]] = groupValues[j];
      }
    }
  }

  private void getAllIn(int shard, byte[][] keys, long[] hashes, byte[][] values) {
    try {
      shards[shard].getAll(keys, hashes, values);
    } catch (StoreClosedException e) {
      throw closedException();
    }
  }

  /** The sizes of all shards' parts, summed (format version: the newest of the shards'). */
  public StoreStats stats() {
    checkOpen();
    long records = 0;
    long dataBytes = 0;
    long indexBits = 0;
    long trieBits = 0;
    long directoryBits = 0;
    long offsetsBits = 0;
    long memoryBytes = 0;
    long loadedBytes = 0;
    long fileBytes = 0;
    int formatVersion = 0;
    try {
      for (Store shard : shards) {
        StoreStats s = shard.stats();
        records += s.records();
        dataBytes += s.dataBytes();
        indexBits += s.indexBits();
        trieBits += s.trieBits();
        directoryBits += s.directoryBits();
        offsetsBits += s.offsetsBits();
        memoryBytes += s.memoryBytes();
        loadedBytes += s.loadedBytes();
        fileBytes += s.fileBytes();
        formatVersion = Math.max(formatVersion, s.formatVersion());
      }
    } catch (StoreClosedException e) {
      throw closedException();
    }
    IndexKind kind = shards[0].meta().indexKind();
    int blockBytes = shards[0].stats().blockBytes();
    return new StoreStats(records, dataBytes, kind, indexBits, trieBits, directoryBits, offsetsBits, memoryBytes,
        loadedBytes, fileBytes, formatVersion, blockBytes);
  }

  /**
   * Checks everything: the manifest file again (it must still hold what was opened), each shard
   * against its entry, and every byte of every shard ({@link Store#verify}). Returns normally if
   * the store is intact.
   *
   * @throws CorruptStoreException naming the shard and the damage found
   * @throws java.io.InterruptedIOException naming the store when the calling thread is interrupted
   *     (its interrupt flag stays set)
   */
  public void verify() throws IOException {
    checkOpen();
    Interrupted.of(root, "verifying the sharded store", () -> {
      verifyUninterrupted();
      return null;
    });
  }

  private void verifyUninterrupted() throws IOException {
    Path manifestFile = root.resolve(ShardManifest.FILE_NAME);
    CorruptStoreException.check(ShardManifest.read(manifestFile).equals(manifest),
        manifestFile + ": the manifest changed since the store was opened");
    for (int i = 0; i < shards.length; i++) {
      ShardManifest.Shard entry = manifest.shards().get(i);
      try {
        checkAgainstManifest(shards[i], manifest, i);
        shards[i].verify();
        ShardRoutes.checkAll(shards[i], manifest, i);
      } catch (CorruptStoreException e) {
        throw new CorruptStoreException(root + ": shard " + i + " (" + entry.name() + ") is damaged: " + e.getMessage(), e);
      } catch (StoreClosedException e) {
        throw closedException();
      }
    }
  }

  /**
   * Refuses new calls, waits for the lookups in flight on every shard, then unmaps every shard.
   * Idempotent; a concurrent second call returns once the first is done. Calls that begin after
   * this one throw {@link StoreClosedException}. As {@link Store#close()}, when a shard's data file
   * was cut under it and the counts no longer drain, it returns after a second and leaves the
   * shards mapped. A shard whose close fails does not keep the others open: they are closed, and
   * the first failure is thrown with the later ones suppressed in it.
   */
  @Override
  public synchronized void close() {
    closed = true;
    if (guard.close(this::countsMayBeBroken) != LookupGuard.Closing.DRAINED) {
      return;
    }
    Throwable first = null;
    for (Store shard : shards) {
      try {
        shard.closeData();
      } catch (RuntimeException | Error e) {
        if (first == null) {
          first = e;
        } else {
          first.addSuppressed(e);
        }
      }
    }
    if (first instanceof Error error) {
      throw error;
    }
    if (first != null) {
      throw (RuntimeException) first;
    }
  }

  private boolean countsMayBeBroken() {
    for (Store shard : shards) {
      if (shard.countsMayBeBroken()) {
        return true;
      }
    }
    return false;
  }

  /** Whether {@link #close()} was called. */
  public boolean isClosed() {
    return closed;
  }

  /** Why every lookup is refused (a shard's data file was cut: {@link Store#failure}), or null while the store serves. */
  RuntimeException failure() {
    RuntimeException failure = guard.failure();
    return failure == null ? null : new CorruptStoreException(root + ": a shard failed: " + failure.getMessage(), failure);
  }

  private void checkOpen() {
    if (closed) {
      throw closedException();
    }
  }

  private StoreClosedException closedException() {
    return new StoreClosedException(root.toString());
  }

  @Override
  public String toString() {
    return "ShardedStore[" + root + ", " + shards.length + " shards, " + size() + " records" + (closed ? ", closed" : "") + "]";
  }

  /** The shards, in shard order; for tests. */
  List<Store> shards() {
    return List.of(shards);
  }

  /** The shards' directories, in shard order; for tests and tools. */
  List<Path> shardDirectories() {
    return java.util.Arrays.stream(shards).map(Store::directory).toList();
  }
}
