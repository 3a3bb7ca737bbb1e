package io.varve.builder;

import io.varve.core.format.CorruptStoreException;
import io.varve.core.blocked.CrowdedHashesException;
import io.varve.core.index.IndexParameters;
import io.varve.core.store.KeyMode;
import io.varve.core.store.PageCacheWrites;
import io.varve.core.store.RecordFormat;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Path;
import java.util.Objects;
import java.util.function.LongFunction;

/**
 * Makes a new store from one or more existing stores and a batch of upserts and deletes, the way
 * batch outputs are folded in: only the batch is sorted (in bounded memory, spilling like {@link
 * StoreBuilder}); the old stores are read once, sequentially, in their hash order, and merged with
 * it while the new data, offsets and index are written, in the same pass. The old stores are not
 * touched and stay readable; the new one appears complete at its directory, or not at all. An old
 * store is a store directory or a one-file artifact ({@code .varve}), read in place either way and
 * checked alike; the new store is always a directory ({@link StoreArtifacts#pack} makes an
 * artifact of it).
 *
 * <pre>{@code
 * try (StoreMerger merger = StoreMerger.create(Path.of("/data/stores/2026-11-23"))
 *     .base(Path.of("/data/stores/2026-11-22"))) {
 *   merger.put(key, value);      // inserts, or replaces the old value
 *   merger.delete(otherKey);     // drops the key if an old store holds it
 *   MergeSummary summary = merger.merge();
 * }
 * }</pre>
 *
 * <p>Precedence: newest wins. Old stores are given oldest first, so a key held by several takes
 * the record of the last; the batch is newer than all of them, and within the batch the last
 * operation on a key wins ({@code put} then {@code delete} deletes; {@code delete} then {@code
 * put} re-inserts). All old stores must share one hash seed (stores built or merged from one
 * another do), since records are merged in the order that seed gives.
 *
 * <p>Stores that keep no full keys (signatures or nothing, {@link KeyMode}) merge alike,
 * by the key hashes they keep: all old stores must keep keys the same way; the new store keeps
 * them alike, or throws full keys away ({@link #keyMode}). The new store's index is dense, also
 * when an old one's is sparse, unless the options ask for a sparse one.
 *
 * <p>The new store keeps the newest old store's index kind and knobs ({@link
 * StoreBuilder#DEFAULT_INDEX} when that index is sparse), and the old stores' page alignment and
 * user metadata (newer entries win), unless set here; it is fixed-size when every old store is, with one record
 * size, and every upsert has that size. Its index is sized for the most records the merge could
 * produce, since deletes and replacements show only as it goes (see {@code docs/FORMAT.md}: ECT
 * index version 2, or a blocked index with some emptier blocks); when fewer than half of those
 * remain it is rebuilt from the written records.
 *
 * <p>Memory: the budget bounds the batch's sort buffers; the merge also holds each old store's
 * record offsets (a few bits per record) and the new index (a few bits per record). Threads: the
 * caller's merges and writes; one sorts the batch's partitions ahead of it; one builds the index. Two distinct
 * keys with one 128-bit hash (about once in 2^64 merges of 2^32 keys) fail the merge with an
 * {@link IOException}: rebuild with {@link StoreBuilder}, which picks another seed.
 *
 * <p>Options: the setters below, or a {@link BuildOptions} value given to {@link #create(Path,
 * BuildOptions)}; they are checked together, and against the old stores, by {@link #merge()}. A
 * sparse index ({@link BuildOptions.Builder#sparseIndex}) is made by re-indexing the merged store before
 * it is published. The summary counts, besides what became of the old records, the batch's
 * operations superseded by a later one on the same key ({@link MergeSummary#batchDuplicates()}).
 *
 * <p>Not thread-safe: one thread calls {@code put}, {@code delete} and {@code merge}; {@link
 * #close()} may come from another thread to stop a merge.
 */
public final class StoreMerger implements Closeable {
  private final Path target;
  private final MergeBases bases = new MergeBases();
  private final BuildOptions.Builder settings;
  private LongFunction<RecordHasher> hashers = RecordHasher::xxh3;

  /**
   * Guards {@link #discarded}: the batch's temporary directory is created holding it, so that a
   * close from another thread (a shutdown hook) comes either before (the first put then fails) or
   * after (the close then deletes the directory), never between, leaving it behind.
   */
  private final Object workspace = new Object();
  private boolean discarded;
  private volatile Path temporary;
  private volatile MergeBatch batch;
  private long operations;
  private long startNanos;
  private final UseOrder order = new UseOrder("merger", "merge()", "put or delete");
  private final FinishGuard finishing = new FinishGuard("merger", "merge()");

  private StoreMerger(Path target, BuildOptions options) {
    this.target = target.toAbsolutePath().normalize();
    this.settings = options.toBuilder();
  }

  /**
   * Starts a merge into a new store at {@code directory}, which must not exist yet (its parent
   * must).
   *
   * @throws FileAlreadyExistsException if {@code directory} exists
   * @throws java.nio.file.NoSuchFileException if its parent directory does not exist
   */
  public static StoreMerger create(Path directory) throws IOException {
    return create(directory, BuildOptions.DEFAULTS);
  }

  /**
   * Starts a merge into a new store at {@code directory} with {@code options} (unset ones follow
   * the old stores), which the setters below may still change.
   *
   * @throws FileAlreadyExistsException if {@code directory} exists
   * @throws java.nio.file.NoSuchFileException if its parent directory does not exist
   */
  public static StoreMerger create(Path directory, BuildOptions options) throws IOException {
    StoreMerger merger = new StoreMerger(directory, Objects.requireNonNull(options, "options"));
    StoreDirectory.checkNew(merger.target);
    return merger;
  }

  /**
   * Adds an old store to merge, after those added before (which it overrides where keys repeat): a
   * store directory, or a one-file artifact read in place. Its meta (and an artifact's ZIP
   * directory) is read and checked now, its other files by {@link #merge()}.
   *
   * @throws java.nio.file.NoSuchFileException if {@code store} is neither a directory nor a file,
   *     or a directory without a meta file
   * @throws io.varve.core.format.CorruptStoreException if its meta or an artifact's directory is
   *     damaged, or a file is no artifact
   * @throws IllegalArgumentException if its hash seed or key mode differs from the first old store's
   */
  public StoreMerger base(Path store) throws IOException {
    checkConfigurable();
    bases.add(store.toAbsolutePath().normalize());
    return this;
  }

  /** Bytes of memory for the batch's sort buffers (default {@link BuildOptions#defaultMemoryBudget()}, at least 2 MiB). */
  public StoreMerger memoryBudget(long bytes) {
    checkConfigurable();
    settings.memoryBudget(bytes);
    return this;
  }

  /** Where the batch is spilled and sorted (default: the target's parent directory). */
  public StoreMerger temporaryDirectory(Path directory) {
    checkConfigurable();
    settings.temporaryDirectory(directory);
    return this;
  }

  /**
   * The new store's index kind and knobs ({@link io.varve.core.ect.EctParameters} or {@link
   * io.varve.core.blocked.BlockedIndexParameters}; default: the newest old store's, or {@link
   * StoreBuilder#DEFAULT_INDEX} when its index is sparse).
   */
  public StoreMerger indexParameters(IndexParameters parameters) {
    checkOpen();
    settings.indexParameters(parameters);
    return this;
  }

  /** The new store's page alignment, as {@link StoreBuilder#pageAlignment} (default: the newest old store's). */
  public StoreMerger pageAlignment(int pageBytes) {
    checkOpen();
    settings.pageAlignment(pageBytes);
    return this;
  }

  /**
   * Whether each record ends with a 4-byte checksum (default true) that every lookup reading the
   * record checks, so that a damaged record surfaces as {@code CorruptStoreException} instead of
   * being served. Off saves the 4 bytes per record (a fifth of a 16-byte record) and the check's
   * time; the README gives both as measured. Independent of the bases': a merge adds or drops the checksums as told.
   */
  public StoreMerger recordChecksums(boolean checked) {
    checkConfigurable();
    settings.recordChecksums(checked);
    return this;
  }

  /**
   * The salt mixed into the merged store's record checks (default: a new random one for each
   * merge; see {@link StoreBuilder#recordCheckSalt}). Set it when a merge must be reproducible byte
   * for byte; 0 writes unsalted checks (meta version 6).
   */
  public StoreMerger recordCheckSalt(long salt) {
    checkConfigurable();
    settings.recordCheckSalt(salt);
    return this;
  }

  /**
   * How the new store's data file goes to the kernel, as {@link StoreBuilder#dataWrites}. The
   * default is {@link PageCacheWrites#SMALL}, not a build's {@link PageCacheWrites#UNCACHED}: a
   * merge may run on the host that serves its result, which should find the new store cached.
   */
  public StoreMerger dataWrites(PageCacheWrites writes) {
    checkOpen();
    settings.dataWrites(writes);
    return this;
  }

  /**
   * What the new store keeps of its keys (default: what the old stores keep). Old stores with full
   * keys may give a store with signatures or none; keys thrown away cannot come back: {@link
   * #merge()} refuses other modes when the old stores keep no full keys.
   */
  public StoreMerger keyMode(KeyMode mode) {
    checkOpen();
    settings.keyMode(mode);
    return this;
  }

  /** Receives progress reports, as {@link BuildListener} says: {@code INPUT} counts operations. */
  public StoreMerger listener(BuildListener listener) {
    checkOpen();
    settings.listener(listener);
    return this;
  }

  /** Sets a user metadata entry of the new store (over the old stores' entries). */
  public StoreMerger metadata(String key, String value) {
    checkOpen();
    settings.metadata(key, value);
    return this;
  }

  /** Package-private: the hash function per seed (tests force collisions with it). */
  StoreMerger hashers(LongFunction<RecordHasher> hashers) {
    checkConfigurable();
    this.hashers = hashers;
    return this;
  }

  /** Inserts a record, or replaces the old stores' record of its key (the arrays are copied). */
  public StoreMerger put(byte[] key, byte[] value) throws IOException {
    return put(key, 0, key.length, value, 0, value.length);
  }

  /**
   * Inserts or replaces a record given as array slices (copied).
   *
   * @throws IllegalArgumentException for a record whose header, key, value and checksum take more
   *     than {@link RecordFormat#MAX_LENGTH} bytes (nothing is added)
   */
  public StoreMerger put(byte[] key, int keyOffset, int keyLength, byte[] value, int valueOffset, int valueLength)
      throws IOException {
    checkOpen();
    Objects.checkFromIndexSize(keyOffset, keyLength, key.length);
    Objects.checkFromIndexSize(valueOffset, valueLength, value.length);
    RecordLimit.check(keyLength, valueLength);
    batch().upsert(key, keyOffset, keyLength, value, valueOffset, valueLength);
    counted();
    return this;
  }

  /** Deletes {@code key}: the new store will not hold it (unless a later {@code put} gives it again). */
  public StoreMerger delete(byte[] key) throws IOException {
    return delete(key, 0, key.length);
  }

  /** Deletes the key given as an array slice. */
  public StoreMerger delete(byte[] key, int keyOffset, int keyLength) throws IOException {
    checkOpen();
    Objects.checkFromIndexSize(keyOffset, keyLength, key.length);
    RecordLimit.check(keyLength, 0); // the key alone, with a header and checksum: as a put of an empty value
    batch().delete(key, keyOffset, keyLength);
    counted();
    return this;
  }

  /** The {@code put} and {@code delete} calls so far. */
  public long operations() {
    return operations;
  }

  private void counted() {
    if ((++operations & (BuildListener.INTERVAL - 1)) == 0) {
      settings.listener().progress(BuildListener.Phase.INPUT, operations, -1);
    }
  }

  /**
   * Sorts the batch, merges it with the old stores into the new one, and publishes that atomically
   * at the target directory. Call once; close the merger afterwards.
   *
   * @throws IllegalStateException if no old store was given
   * @throws IllegalArgumentException if the options do not go together or not with the old stores
   *     (nothing is done; the options can be corrected and {@code merge} called again)
   * @throws io.varve.core.format.CorruptStoreException if an old store turns out damaged (nothing is
   *     published)
   * @throws java.nio.file.NoSuchFileException if an old store was deleted since {@link #base} read
   *     its meta, naming it (nothing is published)
   * @throws FileAlreadyExistsException if the target appeared meanwhile
   */
  public MergeSummary merge() throws IOException {
    checkOpen();
    if (bases.isEmpty()) {
      throw new IllegalStateException("no store to merge into: call base(...) first");
    }
    BuildOptions options = settings.build();
    KeyMode keyMode = options.keyMode().orElse(bases.keyMode());
    if (!bases.keyMode().keepsKeys() && !keyMode.equals(bases.keyMode())) {
      throw new IllegalArgumentException(
          "the old stores keep keys as " + bases.keyMode() + ": a merge cannot make them " + keyMode + " (option keyMode)");
    }
    options.checkKeysSuit(keyMode);
    int pageBytes = options.pageAlignment().orElse(bases.newest().pageBytes());
    options.checkBlocksSuit(pageBytes);
    MergeBatch batch = batch();
    order.finish();
    finishing.start();
    MergeWrite write = new MergeWrite(target, temporary, bases, batch, hashers.apply(bases.seed()));
    try {
      return write.run(options, keyMode, pageBytes, operations, finishing, startNanos);
    } catch (IOException | RuntimeException | Error e) {
      throwExplained(e, write.staging());
      throw e;
    } finally {
      try {
        discardTemporary();
      } finally {
        finishing.end();
      }
    }
  }

  /**
   * Throws what a failed {@link #merge} throws instead of {@code e}, if anything: a close's own
   * failure when the merger was closed meanwhile, or {@code e} explained.
   */
  private void throwExplained(Throwable e, Path staging) throws IOException {
    IllegalStateException closed = finishing.closedFailure(e);
    if (closed != null) {
      throw closed;
    }
    if (e instanceof CrowdedHashesException crowded) {
      throw CrowdedHashes.explain(crowded, bases.seed());
    }
    if (e instanceof IOException io) {
      throw FullDisk.named(io, staging); // the batch's spills name their own full disk
    }
  }

  /**
   * Stops the merge if it has not completed and deletes its temporary files. Called from another
   * thread while {@link #merge()} runs, it makes {@code merge()} fail with an {@link
   * IllegalStateException} (unless it was already publishing: then the store is complete) and
   * returns once {@code merge()} has removed its files.
   */
  @Override
  public void close() throws IOException {
    if (finishing.closeWhileRunning(() -> batch.stop())) {
      order.close();
      return;
    }
    if (!order.close()) {
      return;
    }
    discardTemporary();
  }

  private MergeBatch batch() throws IOException {
    if (batch == null) {
      if (bases.isEmpty()) {
        throw new IllegalStateException("add the old stores (base) before the first put or delete");
      }
      startNanos = System.nanoTime();
      Path parent = settings.temporaryDirectory() != null ? settings.temporaryDirectory() : target.getParent();
      synchronized (workspace) {
        if (discarded) {
          throw new IllegalStateException("the merger is closed");
        }
        Path created = TemporaryDirectories.create(parent, ".varve-merge-", true);
        temporary = created;
        batch = new MergeBatch(settings.memoryBudget(), hashers.apply(bases.seed()), bases.seed(), () -> created);
      }
    }
    return batch;
  }

  private void discardTemporary() throws IOException {
    MergeBatch discardedBatch;
    Path discardedDirectory;
    synchronized (workspace) {
      discarded = true;
      discardedBatch = batch;
      discardedDirectory = temporary;
      temporary = null;
    }
    try {
      if (discardedBatch != null) {
        discardedBatch.close();
      }
    } finally {
      TemporaryDirectories.delete(discardedDirectory);
    }
  }

  private void checkConfigurable() {
    order.checkConfigurable(batch != null);
  }

  private void checkOpen() {
    order.checkOpen();
  }
}
