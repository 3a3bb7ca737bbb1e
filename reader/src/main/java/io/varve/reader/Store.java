package io.varve.reader;

import io.varve.core.ect.EctIndex;
import io.varve.core.format.CorruptStoreException;
import io.varve.core.hash.HashRange;
import io.varve.core.hash.KeyHasher;
import io.varve.core.index.RankIndex;
import io.varve.core.index.RecordPrefetcher;
import io.varve.core.store.IndexFile;
import io.varve.core.store.KeyMode;
import io.varve.core.store.RecordBlocks;
import io.varve.core.store.RecordChecksum;
import io.varve.core.store.RecordFormat;
import io.varve.core.store.StoreFile;
import io.varve.core.store.StoreFileReader;
import io.varve.core.store.StoreMeta;
import io.varve.core.succinct.EliasFano;
import java.io.Closeable;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.NoSuchElementException;
import java.util.Objects;

/**
 * A read-only store opened from a directory that {@code StoreBuilder} wrote: the index (blocked or
 * ECT, as the store's meta file says) and the offsets are loaded on the heap (a few bits per
 * record), the data file is memory-mapped ({@link #open}) or copied into memory ({@link #load}, see {@link DataAccess}), and a lookup reads one
 * record. A store with a sparse index (built with {@code sparseIndex}, or given
 * one by {@code StoreReindexer}) holds a block table instead of offsets (a fraction of a bit per
 * record) and a lookup reads one block and searches it, comparing keys record by record.
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
 * <p>Memory-mapping goes through Chronicle Bytes, which on JDK 17+ needs the JVM options in
 * {@link ChronicleAccess#JVM_OPTIONS}; without them {@link #open} fails with a message naming them.
 */
public final class Store implements Closeable {
  private static final ThreadLocal<long[]> HASH = ThreadLocal.withInitial(() -> new long[2]);
  /** A copy of the block a sparse lookup searches. */
  private static final ThreadLocal<byte[]> BLOCK = ThreadLocal.withInitial(() -> new byte[0]);

  private final Path directory;
  private final StoreMeta meta;
  private final KeyHasher hasher;
  private final RankIndex index;
  /** The index when it is an ECT index (every sparse index is), for what only ECT does; else null. */
  private final EctIndex ectIndex;
  private final KeyMode keyMode;
  private final EliasFano offsets;
  /** The range the keys' hashes lie in; the index holds them mapped by it ({@link HashRange}). */
  private final HashRange hashRange;
  private final boolean fullHashRange;
  /** The blocks of a sparse index; null when the index is dense. */
  private final RecordBlocks blocks;
  private final RecordMemory data;
  private final DataAccess access;
  private final long dataStart;
  private final int pageBytes;
  private final long dataBytes;
  private final long recordCount;
  private final int fixedKeyLength;
  /** Bytes of each record, its checksum included, when all have one size; else -1. */
  private final int fixedRecordLength;
  private final int fixedValueLength;
  /** Bytes of the checksum after each record ({@link RecordChecksum}), 0 in stores without. */
  private final int checkBytes;
  private final long fileBytes;
  private final LookupGuard guard;
  /** Overlaps the record's cache misses with the index's, where the record's place is computable. */
  private final RecordPrefetcher recordPrefetcher;
  private final ReadAhead readAhead;

  private Store(
      Path directory,
      StoreMeta meta,
      RankIndex index,
      EliasFano offsets,
      RecordBlocks blocks,
      RecordMemory data,
      DataAccess access,
      long fileBytes) {
    this.directory = directory;
    this.meta = meta;
    this.hasher = KeyHasher.withSeed(meta.seed());
    this.index = index;
    this.ectIndex = index instanceof EctIndex ect ? ect : null;
    this.keyMode = meta.keyMode();
    this.offsets = offsets;
    this.blocks = blocks;
    this.data = data;
    this.access = access;
    this.dataStart = StoreFile.DATA.payloadOffset();
    this.pageBytes = meta.pageBytes();
    this.dataBytes = meta.dataBytes();
    this.recordCount = meta.recordCount();
    this.fixedKeyLength = meta.keyLength();
    this.fixedRecordLength = meta.fixedRecordLength();
    this.fixedValueLength = meta.valueLength();
    this.checkBytes = meta.checkBytes();
    this.hashRange = meta.hashRange();
    this.fullHashRange = hashRange.isFull();
    this.fileBytes = fileBytes;
    this.guard = new LookupGuard(directory.toString());
    this.readAhead = chooseReadAhead();
    this.recordPrefetcher = recordPrefetcher();
  }

  /**
   * Opens and validates the store in {@code directory}.
   *
   * @throws CorruptStoreException when a file is damaged, truncated, missing a part, of an
   *     unsupported version, or missing although the meta file lists it
   * @throws NoSuchFileException when the directory or its meta file does not exist
   * @throws IllegalStateException when the JVM lacks the options Chronicle Bytes needs
   */
  public static Store open(Path directory) throws IOException {
    return open(directory, true, DataAccess.MAPPED);
  }

  /**
   * Opens and validates the store in {@code directory} like {@link #open}, then copies its data
   * file into memory outside the Java heap (see {@link DataAccess#LOADED}): for a store that fits
   * in memory and must answer fast from the first lookup, whatever brought its pages into the page
   * cache: on Linux with transparent huge pages a record read then rarely misses the TLB (0.80 of
   * the time of a mapping whose pages came in one by one; about the time of a mapping of a store
   * just built, which the kernel caches in huge folios). The price is memory the size of the data
   * file, held by this process alone, and a full read of the file now.
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
    return open(directory, true, DataAccess.LOADED);
  }

  /** Opens the store in {@code directory} with its data reached as {@code access} says. */
  public static Store open(Path directory, DataAccess access) throws IOException {
    return open(directory, true, Objects.requireNonNull(access, "access"));
  }

  /**
   * Opens the store in {@code directory} without its index, for recovery or to serve before the
   * index is loaded: the index file is neither read nor required, and lookups binary-search the
   * records, which are in hash order (about {@code log2(size())} record reads per lookup instead
   * of one). Answers are exactly those of {@link #open}. Everything else is validated as there.
   *
   * @throws CorruptStoreException when a file other than the index is damaged
   */
  public static Store openWithoutIndex(Path directory) throws IOException {
    return open(directory, false, DataAccess.MAPPED);
  }

  private static Store open(Path directory, boolean withIndex, DataAccess access) throws IOException {
    ChronicleAccess.check();
    Path meta = directory.resolve(StoreFile.META.fileName());
    if (!Files.isDirectory(directory)) {
      throw new NoSuchFileException(directory.toString(), null, "not a store directory");
    }
    StoreMeta storeMeta = StoreMeta.read(meta);
    long fileBytes = Files.size(meta);
    for (StoreMeta.FileEntry entry : storeMeta.files()) {
      if (!withIndex && entry.name().equals(StoreFile.INDEX.fileName())) {
        continue;
      }
      long size = listedFileSize(directory, entry);
      fileBytes += size;
    }
    if (!withIndex && !storeMeta.keyMode().keepsKeys()) {
      throw new UnsupportedOperationException(
          directory + " keeps no full keys (key mode " + storeMeta.keyMode() + "): it cannot be searched without its index");
    }
    RecordBlocks blocks = null;
    if (storeMeta.isSparse()) {
      blocks =
          readChecked(
              directory,
              StoreFile.BLOCKS,
              storeMeta,
              (in, length) -> RecordBlocks.readFrom(in, storeMeta.recordCount(), storeMeta.dataBytes(), storeMeta.pageBytes()));
    }
    RankIndex index = withIndex ? readIndex(directory, storeMeta, blocks) : null;
    EliasFano offsets = null;
    if (!storeMeta.isFixedSize() && blocks == null) {
      offsets = readChecked(directory, StoreFile.OFFSETS, storeMeta, (in, length) -> EliasFano.readFrom(in, storeMeta.recordCount() + 1));
      checkOffsets(offsets, storeMeta, directory.resolve(StoreFile.OFFSETS.fileName()));
    }
    Path dataPath = directory.resolve(StoreFile.DATA.fileName());
    long dataFileLength = StoreFile.DATA.envelopeLength() + storeMeta.dataBytes();
    CorruptStoreException.check(
        storeMeta.file(StoreFile.DATA).size() == dataFileLength,
        dataPath + ": " + storeMeta.file(StoreFile.DATA).size() + " bytes cannot hold " + storeMeta.dataBytes() + " bytes of records");
    try (FileChannel channel = FileChannel.open(dataPath, StandardOpenOption.READ)) {
      int footer = StoreFileReader.checkEnvelope(channel, dataPath, StoreFile.DATA, storeMeta.dataFormatVersion());
      CorruptStoreException.check(
          footer == storeMeta.file(StoreFile.DATA).checksum(), dataPath + ": checksum differs from the meta file's");
    }
    RecordMemory data =
        access == DataAccess.LOADED ? RecordMemory.load(dataPath, dataFileLength) : RecordMemory.map(dataPath, dataFileLength);
    return new Store(directory, storeMeta, index, offsets, blocks, data, access, fileBytes);
  }

  /**
   * The size of a file the meta lists, which must match: a listed file that is missing or of
   * another size is a damaged store (a missing meta file, or directory, is no store at all).
   */
  private static long listedFileSize(Path directory, StoreMeta.FileEntry entry) throws IOException {
    Path file = directory.resolve(entry.name());
    long size;
    try {
      size = Files.size(file);
    } catch (NoSuchFileException missing) {
      throw new CorruptStoreException(file + ": missing, but the meta file lists it (damaged store)", missing);
    }
    CorruptStoreException.check(
        size == entry.size(), file + ": " + size + " bytes, but the meta file says " + entry.size() + " (truncated or replaced?)");
    return size;
  }

  private static RankIndex readIndex(Path directory, StoreMeta storeMeta, RecordBlocks blocks) throws IOException {
    return readChecked(
        directory,
        StoreFile.INDEX,
        storeMeta,
        (in, length) -> {
          RankIndex read = IndexFile.readFrom(in, storeMeta, blocks == null ? null : blocks.boundaries());
          // readFrom buffers ahead: bytes after the index would go unseen without this check.
          CorruptStoreException.check(read.serializedBytes() == length, "unexpected bytes after the index");
          return read;
        });
  }

  private static <T> T readChecked(Path directory, StoreFile kind, StoreMeta meta, StoreFileReader.PayloadParser<T> parser)
      throws IOException {
    Path path = directory.resolve(kind.fileName());
    int checksum = StoreFileReader.verify(path, kind);
    CorruptStoreException.check(checksum == meta.file(kind).checksum(), path + ": checksum differs from the meta file's");
    return StoreFileReader.read(path, kind, parser);
  }

  private static void checkOffsets(EliasFano offsets, StoreMeta meta, Path path) {
    long n = meta.recordCount();
    CorruptStoreException.check(
        offsets.size() == n + 1 && offsets.get(0) == 0 && offsets.get(n) == meta.dataBytes(),
        path + ": offsets do not span the data (" + offsets.size() + " offsets for " + n + " records)");
  }

  /** The store's metadata. */
  public StoreMeta meta() {
    return meta;
  }

  /** The number of records. */
  public long size() {
    return recordCount;
  }

  /** The value of {@code key}, or null when the store does not hold it. */
  public byte[] get(byte[] key) {
    int slot = guard.slot();
    try {
      guard.enter(slot);
      long position = recordOf(key, 0, key.length);
      if (position < 0) {
        return null;
      }
      return valueBytes(position);
    } catch (InternalError fault) {
      throw dataFault(fault);
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
      long position = recordOf(key, keyOffset, keyLength);
      if (position < 0) {
        return -1;
      }
      long lengths = lengthsAt(position);
      int length = valueLength(lengths);
      if (length <= target.length - targetOffset) {
        data.read(keyStart(position, lengths) + keyLength(lengths), target, targetOffset, length);
      }
      return length;
    } catch (InternalError fault) {
      throw dataFault(fault);
    } finally {
      guard.exit(slot);
    }
  }

  /** Lookups that {@link #getAll} overlaps: their memory reads are issued together. */
  private static final int GET_ALL_GROUP = 16;

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
    if (blocks != null) {
      // A sparse lookup scans a block: there is no single record to touch ahead.
      for (int i = 0; i < keys.length; i++) {
        values[i] = get(keys[i]);
      }
      return;
    }
    long[] hi = new long[GET_ALL_GROUP];
    long[] lo = new long[GET_ALL_GROUP];
    long[] mappedHi = new long[GET_ALL_GROUP];
    long[] mappedLo = new long[GET_ALL_GROUP];
    long[] ranks = new long[GET_ALL_GROUP];
    long[] hash = new long[2];
    int slot = guard.slot();
    try {
      guard.enter(slot);
      for (int from = 0; from < keys.length; from += GET_ALL_GROUP) {
        int count = Math.min(GET_ALL_GROUP, keys.length - from);
        int outside = 0; // bit i: key i's hash lies outside the store's range
        for (int i = 0; i < count; i++) {
          byte[] key = keys[from + i];
          hasher.hash(key, 0, key.length, hash);
          hi[i] = hash[0];
          lo[i] = hash[1];
          if (hashRange.contains(hash[0], hash[1])) {
            mappedHi[i] = hashRange.mapHi(hash[0], hash[1]);
            mappedLo[i] = hashRange.mapLo(hash[0], hash[1]);
          } else {
            outside |= 1 << i;
            mappedHi[i] = 0;
            mappedLo[i] = 0;
          }
        }
        if (index != null) {
          index.rank(mappedHi, mappedLo, ranks, 0, count);
          for (int i = 0; i < count; i++) {
            if ((outside & 1 << i) != 0) {
              ranks[i] = -1;
            }
          }
        } else {
          for (int i = 0; i < count; i++) {
            ranks[i] = searchRank(hi[i], lo[i]);
          }
        }
        long touched = 0;
        for (int i = 0; i < count; i++) {
          if (ranks[i] >= 0) {
            ranks[i] = recordStart(ranks[i]);
            touched += data.readByte(ranks[i]);
          }
        }
        for (int i = 0; i < count; i++) {
          long position = ranks[i];
          byte[] key = keys[from + i];
          values[from + i] = position >= 0 && recordMatches(position, key, 0, key.length, lo[i]) ? valueBytes(position) : null;
        }
        if (touched == Long.MIN_VALUE) {
          // Never true (at most 16 bytes are summed): it only keeps the touches, which bring the
          // records into the cache, from being optimized away, without a shared field write.
          throw new AssertionError();
        }
      }
    } catch (InternalError fault) {
      throw dataFault(fault);
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
      long[] hash = HASH.get();
      hasher.hash(key, 0, key.length, hash);
      if (blocks != null && index != null) {
        return searchBlock(blockOf(hash[0], hash[1]), key, 0, key.length, false);
      }
      long rank = rankOf(hash[0], hash[1]);
      if (rank < 0) {
        return -1;
      }
      return recordMatches(recordStart(rank), key, 0, key.length, hash[1]) ? rank : -1;
    } catch (InternalError fault) {
      throw dataFault(fault);
    } finally {
      guard.exit(slot);
    }
  }

  /** The key of the record at position {@code i} in hash order. */
  public byte[] keyAt(long i) {
    Objects.checkIndex(i, recordCount);
    checkKeysKept();
    int slot = guard.slot();
    try {
      guard.enter(slot);
      return keyBytes(checked(recordStart(i)));
    } catch (InternalError fault) {
      throw dataFault(fault);
    } finally {
      guard.exit(slot);
    }
  }

  /** The value of the record at position {@code i} in hash order. */
  public byte[] valueAt(long i) {
    Objects.checkIndex(i, recordCount);
    int slot = guard.slot();
    try {
      guard.enter(slot);
      return valueBytes(checked(recordStart(i)));
    } catch (InternalError fault) {
      throw dataFault(fault);
    } finally {
      guard.exit(slot);
    }
  }

  /** A cursor over all records in hash order (each cursor belongs to one thread). */
  public Cursor cursor() {
    guard.checkOpen();
    return new Cursor();
  }

  /**
   * Iterates over the records in hash order: {@code while (cursor.next()) use(cursor.key(),
   * cursor.value())}. Not thread-safe; each call to {@code key()} or {@code value()} returns a new
   * array.
   */
  public final class Cursor {
    private long next;
    private long current = -1;
    /** The rank whose file position is in {@code position} (-1: none), and where it ends. */
    private long positionRank = -1;
    private long position;
    private long positionEnd;

    private Cursor() {}

    /** Moves to the next record; false after the last. */
    public boolean next() {
      if (next == recordCount) {
        current = -1;
        return false;
      }
      current = next++;
      return true;
    }

    /** The current record's position in hash order. */
    public long index() {
      checkCurrent();
      return current;
    }

    /** The current record's key (only in a store that keeps full keys). */
    public byte[] key() {
      checkCurrent();
      checkKeysKept();
      int slot = guard.slot();
      try {
        guard.enter(slot);
        return keyBytes(locate());
      } catch (InternalError fault) {
        throw dataFault(fault);
      } finally {
        guard.exit(slot);
      }
    }

    /** The current record's value. */
    public byte[] value() {
      checkCurrent();
      int slot = guard.slot();
      try {
        guard.enter(slot);
        return valueBytes(locate());
      } catch (InternalError fault) {
        throw dataFault(fault);
      } finally {
        guard.exit(slot);
      }
    }

    /** The current record's file position: from the previous record's end when walking in order. */
    private long locate() {
      if (positionRank != current) {
        long start = positionRank >= 0 && positionRank == current - 1 ? nextRecordStart(current, positionEnd) : recordStart(current);
        long lengths = lengthsAt(start);
        checkRecord(start, lengths);
        positionEnd = recordEnd(start, lengths);
        position = start;
        positionRank = current;
      }
      return position;
    }

    private void checkCurrent() {
      if (current < 0) {
        throw new NoSuchElementException("no current record: call next() first and check that it returned true");
      }
    }
  }

  /**
   * Reads every byte of every file and checks all checksums, then finds every record by its own
   * key. Returns normally if the store is intact.
   *
   * @throws CorruptStoreException naming the file and the damage found
   */
  public void verify() throws IOException {
    guard.checkOpen();
    for (StoreMeta.FileEntry entry : meta.files()) {
      StoreFile kind = kindOf(entry.name());
      if (kind == StoreFile.INDEX && index == null) {
        continue;
      }
      int checksum = StoreFileReader.verify(directory.resolve(entry.name()), kind);
      CorruptStoreException.check(checksum == entry.checksum(), directory.resolve(entry.name()) + ": checksum differs from the meta file's");
    }
    StoreFileReader.verify(directory.resolve(StoreFile.META.fileName()), StoreFile.META);
    checkRecordLayout();
    if (!keyMode.keepsKeys()) {
      verifyByKeptHashes();
      return;
    }
    Cursor records = new Cursor();
    while (records.next()) {
      if (indexOf(records.key()) != records.index()) {
        throw new CorruptStoreException(directory + ": record " + records.index() + " is not found by its own key");
      }
    }
  }

  /**
   * Without full keys, checks each record against its key's hash from the hash file: the index must
   * rank the hash at the record, whose signature (if kept) must match it.
   */
  private void verifyByKeptHashes() throws IOException {
    Path hashes = directory.resolve(StoreFile.HASHES.fileName());
    CorruptStoreException.check(
        meta.file(StoreFile.HASHES).size() == StoreFile.HASHES.envelopeLength() + 16 * recordCount,
        hashes + ": does not hold " + recordCount + " hashes");
    try (java.io.DataInputStream in =
        new java.io.DataInputStream(new java.io.BufferedInputStream(Files.newInputStream(hashes), 1 << 16))) {
      in.skipNBytes(StoreFile.HASHES.payloadOffset());
      long previousHi = 0;
      long previousLo = 0;
      int slot = guard.slot();
      try {
        guard.enter(slot);
        for (long i = 0; i < recordCount; i++) {
          long hi = in.readLong();
          long lo = in.readLong();
          if (i > 0 && KeyHasher.compare(previousHi, previousLo, hi, lo) >= 0) {
            throw new CorruptStoreException(hashes + ": hash " + i + " is not in hash order");
          }
          previousHi = hi;
          previousLo = lo;
          if ((index != null && hashRange.rank(index, hi, lo) != i) || !recordMatches(recordStart(i), null, 0, 0, lo)) {
            throw new CorruptStoreException(directory + ": record " + i + " is not found by its key's hash");
          }
        }
      } catch (InternalError fault) {
        throw dataFault(fault);
      } finally {
        guard.exit(slot);
      }
    }
  }

  /**
   * Checks that every variable-size record starts where the writer puts it: right after the
   * previous one, or at the next page boundary when it would cross one ({@link
   * RecordFormat#alignedStart}), and that the last one ends the data. Offsets that point elsewhere
   * (a byte into a record, say) can otherwise parse as a record whose garbage key the index sends
   * back to the same rank, so that it is found by its own key while the real record is hidden.
   */
  private void checkRecordLayout() {
    if (fixedRecordLength >= 0) {
      return; // fixed-size records are where RecordFormat.fixedRecordOffset says by construction
    }
    int slot = guard.slot();
    try {
      guard.enter(slot);
      long end = 0; // where the previous record ends, in the payload
      for (long i = 0; i < recordCount; i++) {
        long start = nextRecordStart(i, dataStart + end);
        if (blocks != null && (start - dataStart) / blocks.blockBytes() != blocks.blockOf(i)) {
          throw new CorruptStoreException(directory + ": record " + i + " lies outside its block " + blocks.blockOf(i));
        }
        long lengths = lengthsAt(start);
        long length = recordEnd(start, lengths) - start;
        long expected = dataStart + RecordFormat.alignedStart(end, length, pageBytes);
        if (start != expected) {
          throw new CorruptStoreException(
              directory + ": record " + i + " starts at byte " + start + " of the data file, but should at byte " + expected);
        }
        end = start - dataStart + length;
      }
      if (end != dataBytes) {
        throw new CorruptStoreException(directory + ": the records end at payload byte " + end + " of " + dataBytes);
      }
    } catch (InternalError fault) {
      throw dataFault(fault);
    } finally {
      guard.exit(slot);
    }
  }

  private static StoreFile kindOf(String name) {
    for (StoreFile kind : StoreFile.values()) {
      if (kind.fileName().equals(name)) {
        return kind;
      }
    }
    throw new CorruptStoreException("unknown file " + name);
  }

  /** Sizes of the store's parts. */
  public StoreStats stats() {
    guard.checkOpen();
    long offsetsBits = offsets != null ? offsets.encodedBits() : blocks != null ? blocks.encodedBits() : 0;
    long memory =
        (index == null ? 0 : index.ramBytesUsed())
            + (offsets == null ? 0 : offsets.ramBytesUsed())
            + (blocks == null ? 0 : blocks.ramBytesUsed());
    long trieBits = ectIndex == null ? 0 : ectIndex.trieBits();
    long directoryBits = ectIndex == null ? 0 : ectIndex.directoryBits();
    return new StoreStats(
        recordCount,
        dataBytes,
        meta.indexKind(),
        index == null ? 0 : index.encodedBits(),
        trieBits,
        directoryBits,
        offsetsBits,
        memory,
        access == DataAccess.LOADED ? data.length() : 0,
        fileBytes,
        meta.formatVersion(),
        blocks == null ? 0 : blocks.blockBytes());
  }

  /** The directory this store was opened from. */
  public Path directory() {
    return directory;
  }

  /**
   * Refuses new calls, waits for the lookups in flight to end, then unmaps the data (or frees a
   * loaded copy). Idempotent; a concurrent second call returns once the first is done. Calls that
   * begin after this one throw {@link StoreClosedException}.
   */
  @Override
  public synchronized void close() {
    if (guard.close()) {
      data.close();
    }
  }

  /** How this store reaches its records: mapped ({@link #open}) or loaded ({@link #load}). */
  public DataAccess dataAccess() {
    return access;
  }

  /** Whether {@link #close()} was called. */
  public boolean isClosed() {
    return guard.isClosed();
  }

  // The record position of key, or -1 if absent.
  private long recordOf(byte[] key, int offset, int length) {
    long[] hash = HASH.get();
    hasher.hash(key, offset, length, hash);
    if (blocks != null && index != null) {
      return searchBlock(blockOf(hash[0], hash[1]), key, offset, length, true);
    }
    long rank = rankOf(hash[0], hash[1]);
    if (rank < 0) {
      return -1;
    }
    long position = recordStart(rank);
    return recordMatches(position, key, offset, length, hash[1]) ? position : -1;
  }

  /**
   * Searches block {@code b} of a sparse store for a key: its records lie back to back from the
   * block's first start. The block is copied to a per-thread array once and searched there (much
   * faster than record-by-record reads of the mapping); a record that runs past the block (one
   * larger than a block) is searched in the mapping. Returns the record's position (or its rank),
   * or -1 when absent.
   */
  private long searchBlock(long b, byte[] key, int offset, int length, boolean wantPosition) {
    if (b < 0) {
      return -1;
    }
    if (b >= blocks.blockCount()) {
      throw new CorruptStoreException(directory + ": the index points to block " + b + " of " + blocks.blockCount());
    }
    long rank = blocks.firstRank(b);
    long end = blocks.firstRank(b + 1);
    long start = dataStart + blocks.firstStart(b);
    int span = (int) (Math.min(dataStart + dataBytes, dataStart + (b + 1) * blocks.blockBytes()) - start);
    byte[] block = BLOCK.get();
    if (block.length < span + Long.BYTES) {
      block = new byte[span + Long.BYTES];
      BLOCK.set(block);
    }
    data.read(start, block, 0, span);
    long firstRank = rank;
    int p = 0;
    for (; rank < end; rank++) {
      long lengths = lengthsIn(block, p, span);
      if (lengths < 0) {
        break; // the record runs past the copy: go on in the mapping
      }
      int keyLength = keyLength(lengths);
      int keyAt = p + (fixedRecordLength >= 0 ? 0 : RecordFormat.headerLength(keyLength, valueLength(lengths)));
      int checkAt = keyAt + keyLength + valueLength(lengths);
      if (keyLength == length && java.util.Arrays.equals(block, keyAt, keyAt + keyLength, key, offset, offset + length)) {
        checkRecordIn(block, p, checkAt, start + p);
        return wantPosition ? start + p : checkedRank(firstRank, rank, start, start + p);
      }
      p = checkAt + checkBytes;
    }
    long position = start + p;
    for (; rank < end; rank++) {
      long lengths = lengthsAt(position);
      if (keyMatches(position, lengths, key, offset, length)) {
        checkRecord(position, lengths);
        return wantPosition ? position : checkedRank(firstRank, rank, start, position);
      }
      position = recordEnd(position, lengths);
    }
    checkBlockRecords(firstRank, end, start);
    return -1;
  }

  /**
   * Checks the records of a block a search did not find its key in: the key is absent unless a
   * damaged record hid it, and only the records searched can tell. Only absent keys pay this.
   * Returns where the records end.
   */
  private long checkBlockRecords(long firstRank, long end, long start) {
    long position = start;
    for (long rank = firstRank; rank < end; rank++) {
      long lengths = lengthsAt(position);
      checkRecord(position, lengths);
      position = recordEnd(position, lengths);
    }
    return position;
  }

  /**
   * {@code rank}, the count of records a block search walked past to its key's intact record at
   * {@code found}: a damaged record before it could have miscounted them, so a search that answers
   * with the rank ({@link #indexOf}) checks them. A search for the value needs not: the record
   * itself is intact and in its place.
   */
  private long checkedRank(long firstRank, long rank, long start, long found) {
    if (checkBytes > 0 && checkBlockRecords(firstRank, rank, start) != found) {
      throw damagedRecord(found);
    }
    return rank;
  }

  /** The lengths of the record at {@code block[p]} as {@link #lengthsAt}, or -1 unless it lies in {@code [0, span)}. */
  private long lengthsIn(byte[] block, int p, int span) {
    long keyLength;
    long valueLength;
    int header;
    if (fixedRecordLength >= 0) {
      keyLength = fixedKeyLength;
      valueLength = fixedValueLength;
      header = 0;
    } else {
      if (p + Long.BYTES > span) {
        return -1;
      }
      long decoded = RecordFormat.decodeShortHeader((long) LITTLE_ENDIAN_LONG.get(block, p));
      if (decoded < 0) {
        return -1;
      }
      keyLength = RecordFormat.shortKeyLength(decoded);
      valueLength = RecordFormat.shortValueLength(decoded);
      header = RecordFormat.shortHeaderLength(decoded);
    }
    return p + header + keyLength + valueLength + checkBytes <= span ? keyLength << 32 | valueLength : -1;
  }

  /** The candidate rank of a hash: the index's answer, or a binary search without an index. */
  private long rankOf(long hi, long lo) {
    if (index == null) {
      return searchRank(hi, lo);
    }
    if (!fullHashRange) {
      if (!hashRange.contains(hi, lo)) {
        return -1;
      }
      long mappedHi = hashRange.mapHi(hi, lo);
      lo = hashRange.mapLo(hi, lo);
      hi = mappedHi;
    }
    return recordPrefetcher != null ? index.rank(hi, lo, recordPrefetcher) : index.rank(hi, lo);
  }

  /** The block of a sparse store that the index gives hash {@code hi:lo}, or -1. */
  private long blockOf(long hi, long lo) {
    return hashRange.contains(hi, lo) ? ectIndex.block(hashRange.mapHi(hi, lo), hashRange.mapLo(hi, lo)) : -1;
  }

  /**
   * How lookups read ahead for their record, or null where they cannot. The index guesses the
   * record's rank before decoding its own reads ({@link RankIndex#guessError()}: an ECT index
   * within about {@code sqrt(g) / 2} records, a blocked one about 69 at its default); where that
   * guess, turned into a place in the data, lands within {@value #MAX_GUESS_ERROR_BYTES} bytes of
   * the record, the lines around the guessed place are read, so that the record's miss overlaps
   * the index's. Beyond that the reads would mostly miss the record and still cost their own
   * misses (a read that misses the cache holds up the lookup as much as a useful one): for
   * variable-size records only the offsets' words are read ahead then. Fixed-size records whose
   * guess lands within half a page read the guessed line alone: it is mostly another record's,
   * but on the record's memory page, whose address translation (a walk of nested page tables on a
   * VM, the costliest part of a first touch) then overlaps the index's miss. Measured in
   * alternating runs: 16-byte fixed records 0.85 of the time without read-ahead (ECT); with a
   * blocked index, the guessed line alone 0.82 of the time without read-ahead and 0.95 of the
   * lines around it; variable records of 20 bytes on average 0.85 of the time with the offsets'
   * words alone; pypi's records of 71 bytes on average 1.16 (so they read the offsets' words
   * only); 120-byte fixed records no difference from the lines around the guess (with an ECT index
   * they now read the guessed line alone, not measured separately).
   */
  private RecordPrefetcher recordPrefetcher() {
    return switch (readAhead) {
      case NONE -> null;
      case OFFSETS -> offsets::touch;
      case RECORD_LINES -> fixedRecordLength > 0 ? this::prefetchFixedRecord : this::prefetchVariableRecord;
      case RECORD_PAGE -> this::touchFixedRecord;
    };
  }

  /** What a lookup reads ahead while the index decodes its rank ({@link #recordPrefetcher}). */
  enum ReadAhead {
    /** Nothing. */
    NONE,
    /** The offsets' words that the record's offset will be read from. */
    OFFSETS,
    /** The lines around the guessed record (and, for variable-size records, the offsets' words). */
    RECORD_LINES,
    /** The guessed fixed-size record's line alone: for its memory page, more than for the line. */
    RECORD_PAGE
  }

  /** What lookups of this store read ahead; for tests. */
  ReadAhead readAhead() {
    return readAhead;
  }

  private ReadAhead chooseReadAhead() {
    if (index == null || blocks != null || data.length() < dataStart + Long.BYTES || recordCount == 0) {
      return ReadAhead.NONE;
    }
    double rankError = index.guessError();
    if (fixedRecordLength >= 0) {
      double errorBytes = rankError * fixedRecordLength;
      if (fixedRecordLength == 0 || errorBytes > MAX_PAGE_GUESS_ERROR_BYTES) {
        return ReadAhead.NONE;
      }
      return errorBytes <= MAX_GUESS_ERROR_BYTES ? ReadAhead.RECORD_LINES : ReadAhead.RECORD_PAGE;
    }
    double averageRecord = dataBytes / (double) recordCount;
    return rankError * averageRecord + medianEstimateError(offsets) <= MAX_GUESS_ERROR_BYTES
        ? ReadAhead.RECORD_LINES
        : ReadAhead.OFFSETS;
  }

  /** The farthest from its record (in bytes, typically) that a guessed record may be worth reading. */
  private static final int MAX_GUESS_ERROR_BYTES = 128;

  /** The farthest from its record (in bytes, typically) that a guess is worth reading for its page. */
  private static final int MAX_PAGE_GUESS_ERROR_BYTES = 2048;

  /** The median distance of {@link EliasFano#estimate} from the offset, over ranks spread evenly. */
  private static double medianEstimateError(EliasFano offsets) {
    long n = offsets.size() - 1;
    int samples = (int) Math.min(n, 255);
    long[] errors = new long[samples];
    for (int i = 0; i < samples; i++) {
      long rank = n * i / samples;
      errors[i] = Math.abs(offsets.estimate(rank) - offsets.get(rank));
    }
    Arrays.sort(errors);
    return samples == 0 ? 0 : errors[samples / 2];
  }

  /**
   * Reads the offsets' words for the variable-size record of rank {@code expected} and the lines
   * around where their select samples estimate it starts.
   */
  private long prefetchVariableRecord(long expected) {
    long offset = offsets.estimate(expected);
    return offsets.touch(expected) + touchAround(dataStart + Math.max(0, Math.min(offset, dataBytes - 1)));
  }

  /**
   * Reads the lines around where the fixed-size record of rank {@code expected} starts (one on
   * each side: two took 1.00-1.07 times as long with 16-byte records, pushing tries out of the
   * cache, and the guessed line alone was no faster).
   */
  private long prefetchFixedRecord(long expected) {
    return touchAround(dataStart + RecordFormat.fixedRecordOffset(expected, fixedRecordLength, pageBytes));
  }

  /** Reads the line where the fixed-size record of rank {@code expected} starts. */
  private long touchFixedRecord(long expected) {
    long start = dataStart + RecordFormat.fixedRecordOffset(expected, fixedRecordLength, pageBytes);
    return data.readNativeLong(Math.min(start, data.length() - Long.BYTES));
  }

  /** Reads the line at {@code start} and the line on each side, all on start's memory page. */
  private long touchAround(long start) {
    // Stay on the guessed record's memory page: on a cold store a touch of the next page would
    // be a disk read that the lookup may not need.
    long pageStart = start & -OS_PAGE;
    long last = Math.min(data.length(), pageStart + OS_PAGE) - Long.BYTES;
    return data.readNativeLong(Math.min(start, last))
        + data.readNativeLong(Math.max(Math.max(dataStart, pageStart), start - CACHE_LINE))
        + data.readNativeLong(Math.min(start + CACHE_LINE, last));
  }

  /** The memory page size the mapping is read in (at least; larger pages only help). */
  private static final long OS_PAGE = 4096;

  private static final long CACHE_LINE = 64;

  /** The position of the record whose key has hash {@code hi:lo}, by binary search; -1 if none. */
  private long searchRank(long hi, long lo) {
    long[] hash = new long[2];
    long low = 0;
    long high = recordCount - 1;
    while (low <= high) {
      long middle = (low + high) >>> 1;
      byte[] key = keyBytes(checked(recordStart(middle)));
      hasher.hash(key, 0, key.length, hash);
      int order = KeyHasher.compare(hash[0], hash[1], hi, lo);
      if (order < 0) {
        low = middle + 1;
      } else if (order > 0) {
        high = middle - 1;
      } else {
        return middle;
      }
    }
    return -1;
  }

  /** Whether this store was opened without its index ({@link #openWithoutIndex}). */
  public boolean hasIndex() {
    return index != null;
  }

  /** The file position where record {@code rank} starts (its header, or its key when fixed-size). */
  private long recordStart(long rank) {
    if (fixedRecordLength >= 0) {
      return dataStart + RecordFormat.fixedRecordOffset(rank, fixedRecordLength, pageBytes);
    }
    if (blocks != null) {
      return sparseRecordStart(rank);
    }
    long offset = offsets.get(rank);
    // A header read takes eight bytes from here: the footer keeps them inside the file.
    if (offset < 0 || offset >= dataBytes) {
      throw new CorruptStoreException(directory + ": offset " + offset + " of record " + rank + " lies outside the data");
    }
    return dataStart + offset;
  }

  /** Where record {@code rank} of a sparse store starts: found from its block's first record. */
  private long sparseRecordStart(long rank) {
    long b = blocks.blockOf(rank);
    long position = dataStart + blocks.firstStart(b);
    // Each record walked past is checked: a damaged one could end elsewhere and land the walk on
    // an intact record of another rank.
    for (long r = blocks.firstRank(b); r < rank; r++) {
      long lengths = lengthsAt(position);
      checkRecord(position, lengths);
      position = recordEnd(position, lengths);
    }
    return position;
  }

  /**
   * The start of record {@code rank} when walking all records in order and the previous one ended
   * at file position {@code previousEnd}: without a search in sparse stores.
   */
  private long nextRecordStart(long rank, long previousEnd) {
    if (blocks == null || fixedRecordLength >= 0) {
      return recordStart(rank);
    }
    long b = blocks.blockOf(rank);
    return blocks.firstRank(b) == rank ? dataStart + blocks.firstStart(b) : previousEnd;
  }

  /**
   * Whether the record at {@code position} is the key's, as far as the store can tell: its full key
   * is equal, or its signature equals the key's (hash low word {@code lo}), or, keeping no keys,
   * always.
   */
  private boolean recordMatches(long position, byte[] key, int offset, int length, long lo) {
    long lengths = lengthsAt(position);
    boolean matches =
        switch (keyMode.kind()) {
          case FULL -> keyMatches(position, lengths, key, offset, length);
          case NONE -> true;
          case SIGNATURE -> signatureMatches(position, lengths, lo);
        };
    // Whether or not it matches: a damaged key must not turn a present key into an absent one.
    checkRecord(position, lengths);
    return matches;
  }

  private boolean signatureMatches(long position, long lengths, long lo) {
    int stored = keyLength(lengths);
    if (stored != keyMode.storedKeyLength()) {
      return false;
    }
    long start = keyStart(position, lengths);
    long signature = 0;
    for (int i = 0; i < stored; i++) {
      signature |= (data.readByte(start + i) & 0xFFL) << (8 * i);
    }
    return signature == keyMode.signature(lo);
  }

  /**
   * Throws {@link CorruptStoreException} unless the record at {@code position} (of {@code
   * lengths}) matches the checksum that follows it; nothing to check in stores without checksums.
   */
  private void checkRecord(long position, long lengths) {
    if (checkBytes == 0) {
      return;
    }
    long checkAt = keyStart(position, lengths) + keyLength(lengths) + valueLength(lengths);
    if (data.checksum(position, checkAt - position, position - dataStart) != data.readLittleEndianInt(checkAt)) {
      throw damagedRecord(position);
    }
  }

  /** {@link #checkRecord} for a record copied to {@code block[p, checkAt)}, found at {@code position}. */
  private void checkRecordIn(byte[] block, int p, int checkAt, long position) {
    if (checkBytes > 0 && RecordChecksum.of(block, p, checkAt - p, position - dataStart) != RecordChecksum.read(block, checkAt)) {
      throw damagedRecord(position);
    }
  }

  /**
   * A record that fails its check: one damaged record, unless the mapped file is now shorter than
   * when the store opened. A file cut inside a page reads as zeros to the end of that page, so the
   * records there fail their checks with no fault from the JVM: that is the truncation, and the
   * whole store is refused as {@link #dataFault} refuses it.
   */
  private CorruptStoreException damagedRecord(long position) {
    Path dataPath = directory.resolve(StoreFile.DATA.fileName());
    if (access == DataAccess.MAPPED && dataFileSize(dataPath) < data.length()) {
      return truncated(dataPath, null);
    }
    return new CorruptStoreException(dataPath + ": the record at byte " + position + " does not match its checksum (damaged)");
  }

  /**
   * What a fault reading the records becomes: the JVM reports a read of a mapped page that the
   * file no longer holds (it was truncated or replaced in place, which a published store never
   * is) as an {@link InternalError}, which is the store's damage, not the JVM's. The store then
   * refuses later lookups, so that they stop touching the mapping. Other errors pass unchanged.
   */
  private RuntimeException dataFault(InternalError fault) {
    String message = fault.getMessage();
    if (message == null || !message.contains("unsafe memory access")) {
      throw fault;
    }
    return truncated(directory.resolve(StoreFile.DATA.fileName()), fault);
  }

  /** Refuses this and every later lookup: the data file changed under the open store. */
  private CorruptStoreException truncated(Path dataPath, Throwable cause) {
    long now = dataFileSize(dataPath);
    CorruptStoreException damage =
        new CorruptStoreException(
            dataPath + ": the records can no longer be read (" + (now < 0 ? "gone now" : now + " bytes now") + ", " + data.length()
                + " when the store was opened): the file was truncated or rewritten under the open store; publish a new version"
                + " instead of changing one in place",
            cause);
    guard.fail(damage);
    absorbLateFaults();
    return damage;
  }

  /** The data file's size now, or -1 when it cannot be read. */
  private static long dataFileSize(Path dataPath) {
    try {
      return Files.size(dataPath);
    } catch (IOException | RuntimeException gone) {
      return -1;
    }
  }

  /**
   * The JVM may still hold an error for another faulting read of the same lookup and deliver it at
   * its next check, in the caller's code: give it checks here, where it is known for what it is.
   */
  private static void absorbLateFaults() {
    for (int i = 0; i < 4; i++) {
      try {
        Thread.yield();
      } catch (InternalError late) {
        // The same truncation, already reported.
      }
    }
  }

  /** {@code position}, once the record there is checked ({@link #checkRecord}). */
  private long checked(long position) {
    checkRecord(position, lengthsAt(position));
    return position;
  }

  /** Where the record at {@code position} (of {@code lengths}) ends, its checksum included. */
  private long recordEnd(long position, long lengths) {
    return keyStart(position, lengths) + keyLength(lengths) + valueLength(lengths) + checkBytes;
  }

  private boolean keyMatches(long position, long lengths, byte[] key, int offset, int length) {
    if (keyLength(lengths) != length) {
      return false;
    }
    long start = keyStart(position, lengths);
    int i = 0;
    for (; i + 8 <= length; i += 8) {
      if (data.readLittleEndianLong(start + i) != (long) LITTLE_ENDIAN_LONG.get(key, offset + i)) {
        return false;
      }
    }
    for (; i < length; i++) {
      if (data.readByte(start + i) != key[offset + i]) {
        return false;
      }
    }
    return true;
  }

  private static final java.lang.invoke.VarHandle LITTLE_ENDIAN_LONG =
      java.lang.invoke.MethodHandles.byteArrayViewVarHandle(long[].class, java.nio.ByteOrder.LITTLE_ENDIAN);

  private byte[] keyBytes(long position) {
    long lengths = lengthsAt(position);
    byte[] key = new byte[keyLength(lengths)];
    data.read(keyStart(position, lengths), key, 0, key.length);
    return key;
  }

  private byte[] valueBytes(long position) {
    long lengths = lengthsAt(position);
    byte[] value = new byte[valueLength(lengths)];
    data.read(keyStart(position, lengths) + keyLength(lengths), value, 0, value.length);
    return value;
  }

  private static int keyLength(long lengths) {
    return (int) (lengths >>> 32);
  }

  private static int valueLength(long lengths) {
    return (int) lengths;
  }

  private long keyStart(long position, long lengths) {
    if (fixedRecordLength >= 0) {
      return position;
    }
    return position + RecordFormat.headerLength(keyLength(lengths), valueLength(lengths));
  }

  /**
   * The key and value lengths of the record at {@code position} as {@code keyLength << 32 |
   * valueLength}, checked to lie inside the data.
   */
  private long lengthsAt(long position) {
    if (fixedRecordLength >= 0) {
      return (long) fixedKeyLength << 32 | fixedValueLength;
    }
    long decoded = RecordFormat.decodeShortHeader(data.readLittleEndianLong(position));
    long keyLength;
    long valueLength;
    if (decoded >= 0) {
      keyLength = RecordFormat.shortKeyLength(decoded);
      valueLength = RecordFormat.shortValueLength(decoded);
    } else {
      byte[] header = new byte[RecordFormat.MAX_HEADER_LENGTH];
      int available = (int) Math.min(header.length, dataStart + dataBytes - position);
      data.read(position, header, 0, available);
      long key = RecordFormat.decodeVarint(header, 0, available);
      long value = RecordFormat.decodeVarint(header, (int) (key >>> 32), available);
      keyLength = (int) key;
      valueLength = (int) value;
    }
    if (position + RecordFormat.headerLength((int) keyLength, (int) valueLength) + keyLength + valueLength + checkBytes
        > dataStart + dataBytes) {
      throw new CorruptStoreException(directory + ": record at byte " + position + " of the data file runs past its end");
    }
    return keyLength << 32 | valueLength;
  }

  private void checkKeysKept() {
    if (!keyMode.keepsKeys()) {
      throw new UnsupportedOperationException(directory + " keeps no full keys (key mode " + keyMode + ")");
    }
  }

  @Override
  public String toString() {
    return "Store[" + directory + ", " + recordCount + " records" + (guard.isClosed() ? ", closed" : "") + "]";
  }
}
