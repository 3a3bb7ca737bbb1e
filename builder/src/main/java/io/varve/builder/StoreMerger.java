package io.varve.builder;

import io.varve.core.format.CorruptStoreException;
import io.varve.core.blocked.CrowdedHashesException;
import io.varve.core.hash.HashRange;
import io.varve.core.index.IndexParameters;
import io.varve.core.store.KeyMode;
import io.varve.core.store.PageCacheWrites;
import io.varve.core.store.RecordFormat;
import io.varve.core.store.StoreMeta;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.LongFunction;

/**
 * Makes a new store from one or more existing stores and a batch of upserts and deletes, the way
 * batch outputs are folded in: only the batch is sorted (in bounded memory, spilling like {@link
 * StoreBuilder}); the old stores are read once, sequentially, in their hash order, and merged with
 * it while the new data, offsets and index are written, in the same pass. The old stores are not
 * touched and stay readable; the new one appears complete at its directory, or not at all.
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
 * them alike, or throws full keys away ({@link #keyMode}). The new store's index is dense, also when an old one's is sparse ({@link StoreReindexer} makes
 * it sparse again).
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
 * <p>Not thread-safe: one thread calls {@code put}, {@code delete} and {@code merge}.
 */
public final class StoreMerger implements Closeable {
  /** The first byte of a batch record's value: what the operation is. The rest is the value. */
  private static final byte UPSERT = 0;

  private static final byte DELETE = 1;

  private static final long PROGRESS_INTERVAL = 1 << 20;

  private final Path target;
  private final List<Path> bases = new ArrayList<>();
  private final List<StoreMeta> baseMetas = new ArrayList<>();
  private long memoryBudget = StoreBuilder.DEFAULT_MEMORY_BUDGET;
  private Path temporaryParent;
  private BuildListener listener = BuildListener.NONE;
  private IndexParameters indexParameters;
  private Integer pageAlignment;
  private boolean recordChecksums = true;
  private PageCacheWrites dataWrites = PageCacheWrites.SMALL;
  private final SortedMap<String, String> metadata = new TreeMap<>();
  private LongFunction<RecordHasher> hashers = RecordHasher::xxh3;
  /** Null: as the old stores. */
  private KeyMode outputKeyMode;

  private Path temporary;
  private StoreBuilder batch;
  private byte[] tagged = new byte[256];
  private long operations;
  private long upserts;
  private int minUpsertKey = Integer.MAX_VALUE;
  private int maxUpsertKey = -1;
  private int minUpsertValue = Integer.MAX_VALUE;
  private int maxUpsertValue = -1;
  private long startNanos;
  private boolean merged;
  private boolean closed;

  private StoreMerger(Path target) {
    this.target = target.toAbsolutePath().normalize();
  }

  /**
   * Starts a merge into a new store at {@code directory}, which must not exist yet (its parent
   * must).
   *
   * @throws FileAlreadyExistsException if {@code directory} exists
   * @throws java.nio.file.NoSuchFileException if its parent directory does not exist
   */
  public static StoreMerger create(Path directory) throws IOException {
    StoreMerger merger = new StoreMerger(directory);
    merger.checkTarget();
    return merger;
  }

  /**
   * Adds an old store to merge, after those added before (which it overrides where keys repeat).
   * Its meta is read and checked now.
   *
   * @throws io.varve.core.format.CorruptStoreException if its meta is damaged
   * @throws IllegalArgumentException if its hash seed differs from the first old store's
   */
  public StoreMerger base(Path store) throws IOException {
    checkConfigurable();
    Path directory = store.toAbsolutePath().normalize();
    StoreMeta meta = StoreScan.readMeta(directory);
    if (!baseMetas.isEmpty() && meta.seed() != baseMetas.get(0).seed()) {
      throw new IllegalArgumentException(
          directory + " was built with hash seed " + meta.seed() + ", " + bases.get(0) + " with " + baseMetas.get(0).seed()
              + ": stores of different seeds cannot be merged in hash order (rebuild one of them)");
    }
    if (!baseMetas.isEmpty() && !meta.keyMode().equals(baseMetas.get(0).keyMode())) {
      throw new IllegalArgumentException(
          directory + " keeps keys as " + meta.keyMode() + ", " + bases.get(0) + " as " + baseMetas.get(0).keyMode()
              + ": stores merged into one must keep keys alike");
    }
    if (outputKeyMode != null && !meta.keyMode().keepsKeys() && !outputKeyMode.equals(meta.keyMode())) {
      throw new IllegalArgumentException(directory + " keeps keys as " + meta.keyMode() + ": a merge cannot make them " + outputKeyMode);
    }
    bases.add(directory);
    baseMetas.add(meta);
    return this;
  }

  /** Bytes of memory for the batch's sort buffers (default 256 MiB, at least 2 MiB). */
  public StoreMerger memoryBudget(long bytes) {
    checkConfigurable();
    if (bytes < StoreBuilder.MIN_MEMORY_BUDGET) {
      throw new IllegalArgumentException("memory budget must be at least " + StoreBuilder.MIN_MEMORY_BUDGET + " bytes: " + bytes);
    }
    this.memoryBudget = bytes;
    return this;
  }

  /** Where the batch is spilled and sorted (default: the target's parent directory). */
  public StoreMerger temporaryDirectory(Path directory) {
    checkConfigurable();
    this.temporaryParent = Objects.requireNonNull(directory, "directory");
    return this;
  }

  /**
   * The new store's index kind and knobs ({@link io.varve.core.ect.EctParameters} or {@link
   * io.varve.core.blocked.BlockedIndexParameters}; default: the newest old store's, or {@link
   * StoreBuilder#DEFAULT_INDEX} when its index is sparse).
   */
  public StoreMerger indexParameters(IndexParameters parameters) {
    checkOpen();
    this.indexParameters = Objects.requireNonNull(parameters, "parameters");
    return this;
  }

  /** The new store's page alignment, as {@link StoreBuilder#pageAlignment} (default: the newest old store's). */
  public StoreMerger pageAlignment(int pageBytes) {
    checkOpen();
    if (!RecordFormat.isValidPageSize(pageBytes)) {
      throw new IllegalArgumentException("page alignment must be 0 or a power of two from 512 to 4096: " + pageBytes);
    }
    this.pageAlignment = pageBytes;
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
    this.recordChecksums = checked;
    return this;
  }

  /** How the new store's data file goes to the kernel, as {@link StoreBuilder#dataWrites} (default 64 KiB writes). */
  public StoreMerger dataWrites(PageCacheWrites writes) {
    checkOpen();
    this.dataWrites = Objects.requireNonNull(writes, "writes");
    return this;
  }

  /**
   * What the new store keeps of its keys (default: what the old stores keep). Old stores with full
   * keys may give a store with signatures or none; keys thrown away cannot come back.
   *
   * @throws IllegalArgumentException if the old stores do not keep full keys and {@code mode} differs
   */
  public StoreMerger keyMode(KeyMode mode) {
    checkOpen();
    Objects.requireNonNull(mode, "mode");
    if (!baseMetas.isEmpty() && !oldKeyMode().keepsKeys() && !mode.equals(oldKeyMode())) {
      throw new IllegalArgumentException(
          "the old stores keep keys as " + oldKeyMode() + ": a merge cannot make them " + mode);
    }
    this.outputKeyMode = mode;
    return this;
  }

  /** Receives progress reports: {@code INPUT} for operations, {@code WRITE} for merged records. */
  public StoreMerger listener(BuildListener listener) {
    checkOpen();
    this.listener = Objects.requireNonNull(listener, "listener");
    return this;
  }

  /** Sets a user metadata entry of the new store (over the old stores' entries). */
  public StoreMerger metadata(String key, String value) {
    checkOpen();
    metadata.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
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

  /** Inserts or replaces a record given as array slices (copied). */
  public StoreMerger put(byte[] key, int keyOffset, int keyLength, byte[] value, int valueOffset, int valueLength)
      throws IOException {
    checkOpen();
    Objects.checkFromIndexSize(keyOffset, keyLength, key.length);
    Objects.checkFromIndexSize(valueOffset, valueLength, value.length);
    if (keyLength > RecordFormat.MAX_LENGTH || valueLength > RecordFormat.MAX_LENGTH - 1) {
      throw new IllegalArgumentException(
          "keys are limited to " + RecordFormat.MAX_LENGTH + " bytes, merged values to " + (RecordFormat.MAX_LENGTH - 1));
    }
    if (tagged.length < valueLength + 1) {
      tagged = new byte[Math.max(valueLength + 1, 2 * tagged.length)];
    }
    tagged[0] = UPSERT;
    System.arraycopy(value, valueOffset, tagged, 1, valueLength);
    batch().put(key, keyOffset, keyLength, tagged, 0, valueLength + 1);
    upserts++;
    minUpsertKey = Math.min(minUpsertKey, keyLength);
    maxUpsertKey = Math.max(maxUpsertKey, keyLength);
    minUpsertValue = Math.min(minUpsertValue, valueLength);
    maxUpsertValue = Math.max(maxUpsertValue, valueLength);
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
    if (keyLength > RecordFormat.MAX_LENGTH) {
      throw new IllegalArgumentException("keys are limited to " + RecordFormat.MAX_LENGTH + " bytes");
    }
    tagged[0] = DELETE;
    batch().put(key, keyOffset, keyLength, tagged, 0, 1);
    counted();
    return this;
  }

  /** The {@code put} and {@code delete} calls so far. */
  public long operations() {
    return operations;
  }

  private void counted() {
    if (++operations % PROGRESS_INTERVAL == 0) {
      listener.progress(BuildListener.Phase.INPUT, operations, -1);
    }
  }

  /**
   * Sorts the batch, merges it with the old stores into the new one, and publishes that atomically
   * at the target directory. Call once; close the merger afterwards.
   *
   * @throws IllegalStateException if no old store was given
   * @throws io.varve.core.format.CorruptStoreException if an old store turns out damaged (nothing is
   *     published)
   * @throws FileAlreadyExistsException if the target appeared meanwhile
   */
  public MergeSummary merge() throws IOException {
    checkOpen();
    if (bases.isEmpty()) {
      throw new IllegalStateException("no store to merge into: call base(...) first");
    }
    merged = true;
    Path staging = null;
    StoreWriter writer = null;
    List<RecordCursor> sources = new ArrayList<>();
    try {
      checkTarget();
      long seed = seed();
      RecordHasher hasher = hashers.apply(seed);
      for (int i = 0; i < bases.size(); i++) {
        sources.add(StoreScan.open(bases.get(i), baseMetas.get(i), hasher));
      }
      // The batch is sorted partition by partition on the builder's thread while the merge reads it.
      long upperBound = batch().recordsPut();
      sources.add(batch().sortedRecords());
      for (StoreMeta meta : baseMetas) {
        upperBound += meta.recordCount();
      }
      IndexParameters parameters =
          indexParameters != null
              ? indexParameters
              : newestBase().isSparse() ? StoreBuilder.DEFAULT_INDEX : newestBase().indexParameters();
      staging = StoreDirectory.staging(target);
      writer =
          new StoreWriter(
              staging,
              temporary,
              upperBound,
              false,
              fixedOutput(),
              fixedOutput() ? (keyMode().keepsKeys() ? newestBase().keyLength() : keyMode().storedKeyLength()) : -1,
              fixedOutput() ? newestBase().valueLength() : -1,
              pageAlignment != null ? pageAlignment : newestBase().pageBytes(),
              parameters,
              keyMode(),
              dataWrites,
              recordChecksums,
              mergedHashRange());
      Pass pass = new Pass(sources, writer, upperBound);
      try (IndexFeeder index = new IndexFeeder(writer.index())) {
        pass.run(index);
        index.finish();
      }      if (!writer.indexMatches()) {
        writer.replaceIndex(parameters, hasher);
      }
      StoreMeta meta = writer.finish(seed, parameters, mergedMetadata());      listener.progress(BuildListener.Phase.WRITE, meta.recordCount(), meta.recordCount());
      StoreDirectory.publish(staging, target);
      staging = null;
      long baseRecords = 0;
      for (StoreMeta base : baseMetas) {
        baseRecords += base.recordCount();
      }
      return new MergeSummary(
          target,
          meta,
          baseRecords,
          operations,
          pass.inserted,
          pass.replaced,
          pass.deleted,
          pass.absentDeletes,
          pass.superseded,
          System.nanoTime() - startNanos);
    } catch (IOException | RuntimeException | Error e) {
      if (writer != null) {
        try {
          writer.abandon();
        } catch (IOException suppressed) {
          e.addSuppressed(suppressed);
        }
      }
      if (e instanceof CrowdedHashesException crowded) {
        throw StoreBuilder.crowded(crowded, seed());
      }
      throw e;
    } finally {
      try {
        Closeables.closeAll(sources.toArray(new RecordCursor[0]));
      } finally {
        TemporaryDirectories.delete(staging);
        discardTemporary();
      }
    }
  }

  /** Stops the merge if it has not completed and deletes its temporary files. */
  @Override
  public void close() throws IOException {
    if (closed) {
      return;
    }
    closed = true;
    discardTemporary();
  }

  private StoreBuilder batch() throws IOException {
    if (batch == null) {
      if (bases.isEmpty()) {
        throw new IllegalStateException("add the old stores (base) before the first put or delete");
      }
      startNanos = System.nanoTime();
      Path parent = temporaryParent != null ? temporaryParent : target.getParent();
      temporary = TemporaryDirectories.create(parent, ".varve-merge-", true);
      batch =
          StoreBuilder.create(temporary.resolve("batch"))
              .hashers(hashers)
              .seed(seed())
              .duplicates(DuplicatePolicy.LAST_WINS)
              .memoryBudget(memoryBudget)
              .temporaryDirectory(temporary);
    }
    return batch;
  }

  private long seed() {
    return baseMetas.get(0).seed();
  }

  /**
   * A range holding every hash the new store can hold: the old stores' ranges and the batch's. An
   * old store of a version that records none gives the full range.
   */
  private HashRange mergedHashRange() throws IOException {
    HashRange.Tracker range = new HashRange.Tracker();
    for (StoreMeta meta : baseMetas) {
      if (meta.recordCount() > 0) {
        range.add(meta.hashRange());
      }
    }
    HashRange batchRange = batch().hashRangePut();
    if (batchRange != null) {
      range.add(batchRange);
    }
    return range.mapping();
  }

  /** What the old stores keep of their keys (all alike). */
  private KeyMode oldKeyMode() {
    return baseMetas.get(0).keyMode();
  }

  /** What the new store keeps of its keys. */
  private KeyMode keyMode() {
    return outputKeyMode != null ? outputKeyMode : oldKeyMode();
  }

  private StoreMeta newestBase() {
    return baseMetas.get(baseMetas.size() - 1);
  }

  /** Whether every old record and every upsert has one key size and one value size. */
  private boolean fixedOutput() {
    StoreMeta first = baseMetas.get(0);
    if (!first.isFixedSize()) {
      return false;
    }
    for (StoreMeta meta : baseMetas) {
      if (meta.keyLength() != first.keyLength() || meta.valueLength() != first.valueLength()) {
        return false;
      }
    }
    boolean keysFit = !keyMode().keepsKeys() || (minUpsertKey == first.keyLength() && maxUpsertKey == first.keyLength());
    return upserts == 0 || (keysFit && minUpsertValue == first.valueLength() && maxUpsertValue == first.valueLength());
  }

  private SortedMap<String, String> mergedMetadata() {
    SortedMap<String, String> result = new TreeMap<>();
    for (StoreMeta meta : baseMetas) {
      result.putAll(meta.userMetadata());
    }
    result.putAll(metadata);
    return result;
  }

  private void discardTemporary() throws IOException {
    try {
      if (batch != null) {
        batch.close();
      }
    } finally {
      TemporaryDirectories.delete(temporary);
      temporary = null;
    }
  }

  private void checkTarget() throws IOException {
    StoreDirectory.checkNew(target);
  }

  private void checkConfigurable() {
    checkOpen();
    if (batch != null) {
      throw new IllegalStateException("configure the merger before the first put or delete");
    }
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("the merger is closed");
    }
    if (merged) {
      throw new IllegalStateException("merge() was already called");
    }
  }

  /**
   * The merge itself: the sources (old stores oldest first, then the sorted batch) are read in
   * step, smallest hash first; of the records of one hash, the last source's wins, and a batch
   * record whose operation is a delete writes nothing.
   */
  private final class Pass {
    private final RecordCursor[] sources;
    private final boolean[] live;
    private final int batchSource;
    private final StoreWriter writer;
    private final long upperBound;
    private long written;
    long inserted;
    long replaced;
    long deleted;
    long absentDeletes;
    long superseded;

    Pass(List<RecordCursor> sources, StoreWriter writer, long upperBound) {
      this.sources = sources.toArray(new RecordCursor[0]);
      this.live = new boolean[this.sources.length];
      this.batchSource = this.sources.length - 1;
      this.writer = writer;
      this.upperBound = upperBound;
    }

    void run(IndexFeeder index) throws IOException {
      for (int s = 0; s < sources.length; s++) {
        live[s] = sources[s].next();
      }
      while (true) {
        if (sources.length == 2) {
          copyOldRecordsBeforeTheBatch(index);
        }
        int first = -1;
        for (int s = 0; s < sources.length; s++) {
          if (live[s] && (first < 0 || HashOrderSort.less(sources[s].hi, sources[s].lo, sources[first].hi, sources[first].lo))) {
            first = s;
          }
        }
        if (first < 0) {
          return;
        }
        long hi = sources[first].hi;
        long lo = sources[first].lo;
        int winner = first;
        int oldHolders = first == batchSource ? 0 : 1;
        for (int s = first + 1; s < sources.length; s++) {
          if (live[s] && sources[s].hi == hi && sources[s].lo == lo) {
            // Without full keys (old stores keep signatures or nothing), one hash is one key.
            if (oldKeyMode().keepsKeys() && !sources[s].record.sameKey(sources[winner].record)) {
              throw new IOException(
                  "two distinct keys share a 128-bit hash under seed " + seed()
                      + ": merge impossible in hash order; rebuild the store with StoreBuilder, which picks another seed");
            }
            winner = s;
            if (s != batchSource) {
              oldHolders++;
            }
          }
        }
        superseded += Math.max(0, oldHolders - 1);
        if (write(winner, oldHolders, hi, lo)) {
          index.add(hi, lo);
        }
        for (int s = first; s < sources.length; s++) {
          if (live[s] && sources[s].hi == hi && sources[s].lo == lo) {
            advance(s, hi, lo);
          }
        }
      }
    }

    /**
     * With one old store, copies its records up to the batch's next hash: most of a merge, done
     * without the general step's search over the sources.
     */
    private void copyOldRecordsBeforeTheBatch(IndexFeeder index) throws IOException {
      RecordCursor old = sources[0];
      RecordCursor batch = sources[1];
      while (live[0] && (!live[1] || HashOrderSort.less(old.hi, old.lo, batch.hi, batch.lo))) {
        long hi = old.hi;
        long lo = old.lo;
        write(0, 1, hi, lo);
        index.add(hi, lo);
        advance(0, hi, lo);
      }
    }

    /** Writes the winning record, unless it is a delete; returns whether it wrote. */
    private boolean write(int winner, int oldHolders, long hi, long lo) throws IOException {
      RecordSlice record = sources[winner].record;
      if (winner == batchSource) {
        if (record.valueLength < 1) {
          throw new CorruptStoreException("a batch record lost its operation byte");
        }
        int valueOffset = record.valueOffset();
        if (record.bytes[valueOffset] == DELETE) {
          if (oldHolders > 0) {
            deleted++;
          } else {
            absentDeletes++;
          }
          return false;
        }
        writer.add(record.bytes, record.keyOffset(), record.keyLength, record.bytes, valueOffset + 1, record.valueLength - 1, hi, lo);
        if (oldHolders > 0) {
          replaced++;
        } else {
          inserted++;
        }
      } else if (baseMetas.get(winner).isFixedSize() == writer.fixedSize()) {
        writer.add(record, hi, lo);
      } else {
        writer.add(record.bytes, record.keyOffset(), record.keyLength, record.bytes, record.valueOffset(), record.valueLength, hi, lo);
      }
      if (++written % PROGRESS_INTERVAL == 0) {
        listener.progress(BuildListener.Phase.WRITE, written, upperBound);
      }
      return true;
    }

    private void advance(int s, long hi, long lo) throws IOException {
      RecordCursor source = sources[s];
      live[s] = source.next();
      if (live[s] && !HashOrderSort.less(hi, lo, source.hi, source.lo)) {
        throw new CorruptStoreException(
            (s == batchSource ? "the sorted batch" : bases.get(s).toString()) + ": records not in strictly increasing hash order");
      }
    }
  }
}
