package io.varve.reader;

import io.varve.core.artifact.StoreFiles;
import io.varve.core.format.CorruptStoreException;
import io.varve.core.format.FileRegion;
import io.varve.core.hash.KeyHasher;
import io.varve.core.index.RankIndex;
import io.varve.core.store.HashesReader;
import io.varve.core.store.PageTable;
import io.varve.core.store.RecordBlocks;
import io.varve.core.store.StoreFile;
import io.varve.core.store.StoreMeta;
import io.varve.core.succinct.EliasFano;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Objects;

/**
 * A read-only store opened from a directory that {@code StoreBuilder} wrote, or from a one-file
 * artifact ({@code .varve}, written by {@code StoreArtifacts}) whose entries are read in place, at
 * their offsets in the file, with the same checks and lookup speed: the index (blocked or
 * ECT, as the store's meta file says) and the offsets are loaded on the heap (a few bits per
 * record), the data file is memory-mapped ({@link #open}) or copied into memory ({@link #load}, see {@link DataAccess}), and a lookup reads one
 * record. A store with a sparse index (built with {@code sparseIndex}, or given
 * one by {@code StoreReindexer}) holds a block table instead of offsets (a fraction of a bit per
 * record) and a lookup reads one block and searches it, comparing keys record by record. A paged
 * store (index kind paged) holds only its page table (about a bit per record) and a lookup reads
 * one page, whose head leads it to the record.
 *
 * <pre>{@code
 * try (Store store = Store.open(Path.of("/data/stores/2026-11-22"))) {
 *   byte[] value = store.get("user:42".getBytes(UTF_8));   // null when absent
 *   long i = store.indexOf(key);                              // rank in hash order, or -1
 *   StoreStats stats = store.stats();
 * }
 * }</pre>
 *
 * <p>Opening validates everything except the data file's checksum (that is a full read; {@link
 * #verify()} does it): every file's header, size and footer against the meta file, the checksums
 * of meta, index and offsets, and the structure of index and offsets, so that no lookup can
 * address a byte outside the data file. A damaged data file cannot make a lookup return another
 * key's record (the stored key is compared) but may return damaged value bytes; any corruption
 * found surfaces as {@link CorruptStoreException}.
 *
 * <p>Thread-safe: any number of threads may read at once. {@link #close()} waits for every lookup
 * in progress to finish, exactly ({@link LookupGuard}), then unmaps the data; later calls throw
 * {@link StoreClosedException}, so closing while other threads read never touches unmapped memory.
 *
 * <p>A lookup is a few steps, each one object chosen when the store opens for the store's shape
 * ({@link StoreOpener}): a {@link RecordFinder} hashes the key and asks the index for its record's
 * rank (or block), the {@link Records} layout turns the rank into the record's place in the data
 * file and decodes its lengths, a {@link KeyMatch} compares the stored key, and the record is read
 * from the {@link RecordMemory}. The {@link LookupGuard} counts lookups in flight for {@link
 * #close()}.
 *
 * <p>Memory-mapping is fastest through Chronicle Bytes, which on JDK 17+ needs the JVM options in
 * {@link ChronicleAccess#JVM_OPTIONS}; without them the data file is mapped with plain {@code
 * FileChannel} mappings instead, and a line is logged saying so.
 */
public final class Store implements Closeable {
  private final Path directory;
  private final StoreFiles files;
  private final StoreMeta meta;
  private final RankIndex index;
  private final EliasFano offsets;
  private final RecordBlocks blocks;
  private final PageTable pages;
  private final RecordMemory data;
  private final DataAccess access;
  private final long fileBytes;
  private final LookupGuard guard;
  /** False for a shard, whose guard its sharded store shares among its shards, closes and drains. */
  private final boolean ownsGuard;
  private final DataFaults faults;
  private final Records records;
  private final RecordFinder finder;

  Store(
      StoreFiles files,
      FileRegion dataRegion,
      StoreMeta meta,
      RankIndex index,
      EliasFano offsets,
      RecordBlocks blocks,
      PageTable pages,
      RecordMemory data,
      DataAccess access,
      long fileBytes,
      LookupGuard sharedGuard) {
    this.directory = files.origin();
    this.files = files;
    this.meta = meta;
    this.index = index;
    this.offsets = offsets;
    this.blocks = blocks;
    this.pages = pages;
    this.data = data;
    this.access = access;
    this.fileBytes = fileBytes;
    this.ownsGuard = sharedGuard == null;
    this.guard = ownsGuard ? new LookupGuard(directory.toString()) : sharedGuard;
    this.faults = new DataFaults(directory, dataRegion, access, guard);
    this.records = Records.of(data, faults, StoreFile.DATA.payloadOffset(), meta, offsets, blocks, pages);
    this.finder = RecordFinder.of(KeyHasher.withSeed(meta.seed()), records, KeyMatch.of(meta.keyMode()), index, meta.hashRange(), blocks);
  }

  /**
   * Opens and validates the store in {@code directory}, or in the artifact file {@code directory}
   * names (a {@code .varve} file: its files are mapped in place, not unpacked).
   *
   * @throws CorruptStoreException when a file is damaged, truncated, missing a part, of an
   *     unsupported version, or missing although the meta file lists it; when an artifact is
   *     damaged or a file that is no Varve artifact
   * @throws NoSuchFileException when the directory (or file) or its meta file does not exist
   * @throws java.io.InterruptedIOException naming the store when the calling thread is interrupted
   *     (its interrupt flag stays set; nothing stays open), as every opening method here
   */
  public static Store open(Path directory) throws IOException {
    return StoreOpener.open(directory, true, DataAccess.MAPPED);
  }

  /**
   * Opens and validates the store in {@code directory} like {@link #open}, then copies its data
   * file into memory outside the Java heap (see {@link DataAccess#LOADED}): for a store that fits
   * in memory and must answer fast from the first lookup, whatever brought its pages into the page
   * cache (with transparent huge pages, a record read then rarely misses the TLB). The price is
   * memory the size of the data file, held by this process alone, and a full read of the file now.
   *
   * <pre>{@code
   * try (Store store = Store.load(Path.of("/data/stores/2026-11-22"))) {
   *   byte[] value = store.get(key);
   * }
   * }</pre>
   *
   * @throws CorruptStoreException when a file is damaged, truncated, missing a part, of an
   *     unsupported version, or missing although the meta file lists it
   * @throws NoSuchFileException when the directory or its meta file does not exist
   * @throws OutOfMemoryError when the data file does not fit in memory
   */
  public static Store load(Path directory) throws IOException {
    return StoreOpener.open(directory, true, DataAccess.LOADED);
  }

  /** Opens the store in {@code directory} with its data reached as {@code access} says. */
  public static Store open(Path directory, DataAccess access) throws IOException {
    return StoreOpener.open(directory, true, Objects.requireNonNull(access, "access"));
  }

  /**
   * Opens the store in {@code directory} without its index, for recovery or to serve before the
   * index is loaded: the index file is neither read nor required, and lookups binary-search the
   * records, which are in hash order (about {@code log2(size())} record reads per lookup instead
   * of one). Answers are exactly those of {@link #open}. Everything else is validated as there. A
   * paged store has no index file: its page table, which it needs to find its records, is loaded
   * and lookups use it.
   *
   * @throws CorruptStoreException when a file other than the index is damaged
   */
  public static Store openWithoutIndex(Path directory) throws IOException {
    return StoreOpener.open(directory, false, DataAccess.MAPPED);
  }

  /** The store's metadata. */
  public StoreMeta meta() {
    return meta;
  }

  /** The number of records. */
  public long size() {
    return meta.recordCount();
  }

  /** The value of {@code key}, or null when the store does not hold it. */
  public byte[] get(byte[] key) {
    int slot = guard.slot();
    try {
      guard.enter(slot);
      return finder.value(key, 0, key.length);
    } catch (InternalError fault) {
      throw faults.fault(fault);
    } finally {
      guard.exit(slot);
    }
  }

  /**
   * {@link #get(byte[])} for a key whose hash with this store's seed is {@code hi:lo}, which the
   * caller computed already (a sharded store, routing by the same hash).
   */
  byte[] get(long hi, long lo, byte[] key) {
    int slot = guard.slot();
    try {
      guard.enter(slot);
      return finder.value(hi, lo, key);
    } catch (InternalError fault) {
      throw faults.fault(fault);
    } finally {
      guard.exit(slot);
    }
  }

  /** {@link #contains(byte[])} for a key whose hash with this store's seed is {@code hi:lo}. */
  boolean contains(long hi, long lo, byte[] key) {
    int slot = guard.slot();
    try {
      guard.enter(slot);
      return finder.rank(hi, lo, key, 0, key.length) >= 0;
    } catch (InternalError fault) {
      throw faults.fault(fault);
    } finally {
      guard.exit(slot);
    }
  }

  /**
   * Copies the value of {@code key[keyOffset, keyOffset + keyLength)} into {@code target} from
   * {@code targetOffset}, without allocating. Returns the value's length, or -1 when the key is
   * absent; when the value does not fit, nothing is copied and the length is still returned, so
   * that the caller can retry with a larger array.
   */
  public int get(byte[] key, int keyOffset, int keyLength, byte[] target, int targetOffset) {
    Objects.checkFromIndexSize(keyOffset, keyLength, key.length);
    Objects.checkIndex(targetOffset, target.length + 1);
    int slot = guard.slot();
    try {
      guard.enter(slot);
      return finder.copyValue(key, keyOffset, keyLength, target, targetOffset);
    } catch (InternalError fault) {
      throw faults.fault(fault);
    } finally {
      guard.exit(slot);
    }
  }

  /**
   * Looks up many keys at once: {@code values[i] = get(keys[i])} for {@code i} in {@code [0,
   * keys.length)}. For bulk work (joins, multi-gets) this is markedly faster per key than {@link
   * #get} in a loop: the index reads of 16 lookups are issued before any is decoded, and the 16
   * records are then touched before any is compared, so that their cache misses overlap instead
   * of following one another.
   *
   * @throws IllegalArgumentException if {@code values} is shorter than {@code keys}
   */
  public void getAll(byte[][] keys, byte[][] values) {
    if (values.length < keys.length) {
      throw new IllegalArgumentException("values has " + values.length + " slots for " + keys.length + " keys");
    }
    getAll(keys, null, values);
  }

  /**
   * {@link #getAll(byte[][], byte[][])} for keys whose hashes with this store's seed the caller
   * computed already ({@code hi, lo} of key {@code i} at {@code hashes[2i, 2i + 1]}; null: none).
   */
  void getAll(byte[][] keys, long[] hashes, byte[][] values) {
    int slot = guard.slot();
    try {
      guard.enter(slot);
      finder.findAll(keys, hashes, values);
      faults.settleReads();
    } catch (InternalError fault) {
      throw faults.fault(fault);
    } finally {
      guard.exit(slot);
    }
  }

  /** Whether the store holds {@code key}. */
  public boolean contains(byte[] key) {
    return indexOf(key) >= 0;
  }

  /**
   * The position of {@code key}'s record in hash order, in {@code [0, size())}, or -1 when
   * absent: a dense, stable id of the key within this store (Indeed's "link by hashes").
   */
  public long indexOf(byte[] key) {
    int slot = guard.slot();
    try {
      guard.enter(slot);
      return finder.rank(key, 0, key.length);
    } catch (InternalError fault) {
      throw faults.fault(fault);
    } finally {
      guard.exit(slot);
    }
  }

  /** The key of the record at position {@code i} in hash order. */
  public byte[] keyAt(long i) {
    Objects.checkIndex(i, size());
    checkKeysKept();
    int slot = guard.slot();
    try {
      guard.enter(slot);
      return records.keyBytes(records.checked(records.start(i)));
    } catch (InternalError fault) {
      throw faults.fault(fault);
    } finally {
      guard.exit(slot);
    }
  }

  /** The value of the record at position {@code i} in hash order. */
  public byte[] valueAt(long i) {
    Objects.checkIndex(i, size());
    int slot = guard.slot();
    try {
      guard.enter(slot);
      return records.valueBytes(records.checked(records.start(i)));
    } catch (InternalError fault) {
      throw faults.fault(fault);
    } finally {
      guard.exit(slot);
    }
  }

  /** A cursor over all records in hash order (each cursor belongs to one thread). */
  public StoreCursor cursor() {
    guard.checkOpen();
    return new StoreCursor(this, records, guard, faults);
  }

  /**
   * Reads every byte of every file and checks all checksums, then finds every record by its own
   * key. Returns normally if the store is intact.
   *
   * @throws CorruptStoreException naming the file and the damage found
   * @throws java.io.InterruptedIOException naming the store when the calling thread is interrupted
   *     (its interrupt flag stays set)
   */
  public void verify() throws IOException {
    verify(HashesReader::open);
  }

  /** {@link #verify()} with the hashes file of a store that keeps no keys opened by {@code hashes}; for tests. */
  void verify(StoreVerifier.HashesOpener hashes) throws IOException {
    guard.checkOpen();
    Interrupted.of(directory, "verifying the store", () -> {
      new StoreVerifier(this, records, finder, blocks, guard, hashes).verify();
      return null;
    });
  }

  /** Sizes of the store's parts. */
  public StoreStats stats() {
    guard.checkOpen();
    return StoreStats.of(meta, index, offsets, blocks, pages, access == DataAccess.LOADED ? data.length() : 0, fileBytes);
  }

  /** The directory, or the artifact file ({@code .varve}), this store was opened from. */
  public Path directory() {
    return directory;
  }

  /** Whether the store was opened from a one-file artifact, whose files it reads in place. */
  public boolean isArtifact() {
    return files.artifact() != null;
  }

  /** Where the store's files lie. */
  StoreFiles files() {
    return files;
  }

  /**
   * Refuses new calls, waits for the lookups in flight to end, then unmaps the data (or frees a
   * loaded copy). Idempotent; a concurrent second call returns once the first is done. Calls that
   * begin after this one throw {@link StoreClosedException}. A mapped store whose data file was
   * truncated under it (which a published store never is) may hold lookup counts that the JVM's
   * faults broke: close then returns after a second and leaves the data mapped until the process
   * ends, rather than wait forever or unmap under a reader.
   */
  @Override
  public synchronized void close() {
    if (!ownsGuard) {
      throw new IllegalStateException(directory + " is a shard: its sharded store closes it");
    }
    if (guard.close(this::countsMayBeBroken) == LookupGuard.Closing.DRAINED) {
      data.close();
    }
  }

  /**
   * Whether the JVM's faults may have broken the counts of lookups in flight: the mapped data file
   * is cut now, or was when the store failed (a follower closes such a store once the file is whole
   * again and the version opened anew).
   */
  boolean countsMayBeBroken() {
    return guard.failure() != null || faults.fileShrank();
  }

  /**
   * Unmaps or frees the data of a shard, once its sharded store closed their shared guard and every
   * lookup in flight ended. Call it once.
   */
  void closeData() {
    data.close();
  }

  /** Why this store must be opened anew (its mapped file was cut: all refused; its loaded copy is damaged), or null. */
  RuntimeException failure() {
    return guard.failure() != null ? guard.failure() : faults.damageOfCopy(); // a failure is never undone
  }

  /** Checks a loaded copy against the data file's checksum (nothing for a mapped store). */
  void checkLoadedCopy() {
    faults.checkCopy(data, meta.file(StoreFile.DATA).checksum());
  }

  /** How this store reaches its records: mapped ({@link #open}) or loaded ({@link #load}). */
  public DataAccess dataAccess() {
    return access;
  }

  /** Whether {@link #close()} was called. */
  public boolean isClosed() {
    return guard.isClosed();
  }

  /**
   * Whether lookups use an index: false when the store was opened without it ({@link
   * #openWithoutIndex}). A paged store's index is its page table, which it always loads.
   */
  public boolean hasIndex() {
    return index != null || pages != null;
  }

  /** The guard of this store's lookups; for tests. */
  LookupGuard guard() {
    return guard;
  }

  /** What lookups of this store read ahead; for tests. */
  ReadAhead readAhead() {
    return finder.readAhead();
  }

  void checkKeysKept() {
    if (!meta.keyMode().keepsKeys()) {
      throw new UnsupportedOperationException(directory + " keeps no full keys (key mode " + meta.keyMode() + ")");
    }
  }

  @Override
  public String toString() {
    return "Store[" + directory + ", " + size() + " records" + (guard.isClosed() ? ", closed" : "") + "]";
  }
}
