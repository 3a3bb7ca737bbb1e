package io.varve.builder;

import io.varve.core.hash.HashRange;
import io.varve.core.hash.KeyHasher;
import io.varve.core.index.IndexKind;
import io.varve.core.index.IndexParameters;
import io.varve.core.index.RankIndex;
import io.varve.core.index.RankIndexBuilder;
import io.varve.core.store.HashesReader;
import io.varve.core.store.HashesWriter;
import io.varve.core.store.KeyMode;
import io.varve.core.store.PageCacheWrites;
import io.varve.core.store.PagedLayout;
import io.varve.core.store.RecordChecksum;
import io.varve.core.store.RecordFormat;
import io.varve.core.store.StoreFile;
import io.varve.core.store.StoreFileWriter.FileSummary;
import io.varve.core.store.StoreFileWriter;
import io.varve.core.store.StoreMeta;
import io.varve.core.succinct.EliasFano;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SortedMap;

/**
 * Writes the files of one store into a directory from records fed in hash order, in one pass:
 * the data file streams out (records placed by {@link RecordFormat}'s page alignment), the index
 * grows in memory (fed through {@link #index()}), and each record's start goes to a temporary
 * file from which {@link #finish} builds the offsets once their exact span is known. A paged store
 * ({@link PagedLayout}) has its records packed into frames by a {@link PagedDataWriter}, which
 * builds the page table instead of an index and offsets. The index is
 * sized by the expected record count, exactly (a build: when fewer records arrive because
 * duplicates were dropped, {@link #replaceIndex} rebuilds it from the records read back) or as an
 * upper bound (a merge, whose deletes and replacements show only as it goes). Not thread-safe.
 */
final class StoreWriter {
  private final Path directory;
  private final long expectedRecords;
  private final boolean fixedSize;
  private final int fixedKeyLength;
  private final int fixedValueLength;
  private final int pageBytes;
  private final StoreFileWriter data;
  private final Path startsPath;
  private final DataOutputStream starts;
  /** Null in a paged store, whose page table its {@link #paged} writer builds. */
  private RankIndexBuilder index;
  /** The writer of a paged store's data (index kind paged), else null. */
  private final PagedDataWriter paged;
  private final byte[] zeros;
  private long records;
  private long payloadEnd;
  /** The last hash added to a paged store, whose order no index checks. */
  private long lastHi;
  private long lastLo;

  private final byte[] header = new byte[RecordFormat.MAX_HEADER_LENGTH];
  private final KeyMode keyMode;
  /** The key hashes, in record order, when records do not keep full keys; else null. */
  private final HashesWriter hashes;
  private final byte[] storedKey = new byte[Long.BYTES];
  private final HashRange hashRange;
  /** The check after each record ({@link RecordChecksum#NONE} for none). */
  private final RecordChecksum checksum;
  /** Added to every checked offset ({@link StoreMeta#recordCheckSalt()}); 0 without checks. */
  private final long salt;
  private final int checkBytes;
  private final byte[] check = new byte[RecordChecksum.BYTES];
  /** A record given in parts, joined to be checksummed. */
  private byte[] joined = new byte[256];

  /**
   * @param expectedRecords the records expected (the index is sized by it; fewer can be added, see
   *     {@link #replaceIndex})
   * @param exactCount whether {@code expectedRecords} is exact (else an upper bound the index
   *     accepts fewer than)
   * @param fixedKeyLength with fixed sizes, every key's length as stored (the signature's or 0 when
   *     full keys are not kept)
   * @param pageBytes the page size records are aligned to, or 0
   * @param keyMode what records keep of their keys: every {@code add} then writes that
   * @param dataWrites how the data file goes to the kernel
   * @param recordChecksums whether each record ends with a {@link RecordChecksum} (the {@link
   *     RecordChecksum#CURRENT current} function)
   * @param recordCheckSalt mixed into those checks ({@link StoreMeta#recordCheckSalt()}; 0: none, as
   *     meta version 6 wrote them)
   * @param hashRange the range every hash added lies in; the index holds the hashes it maps
   */
  StoreWriter(
      Path directory,
      Path scratch,
      long expectedRecords,
      boolean exactCount,
      boolean fixedSize,
      int fixedKeyLength,
      int fixedValueLength,
      int pageBytes,
      IndexParameters parameters,
      KeyMode keyMode,
      PageCacheWrites dataWrites,
      boolean recordChecksums,
      long recordCheckSalt,
      HashRange hashRange)
      throws IOException {
    this.hashRange = hashRange;
    this.checksum = recordChecksums ? RecordChecksum.CURRENT : RecordChecksum.NONE;
    this.salt = recordChecksums ? recordCheckSalt : 0;
    this.checkBytes = checksum.bytes();
    this.keyMode = keyMode;
    this.fixedKeyLength = fixedKeyLength;
    this.fixedValueLength = fixedValueLength;
    this.directory = directory;
    this.expectedRecords = expectedRecords;
    this.fixedSize = fixedSize;
    this.pageBytes = pageBytes;
    this.zeros = new byte[Math.max(1, pageBytes)];
    boolean pagedLayout = parameters.kind() == IndexKind.PAGED;
    if (pagedLayout && !PagedLayout.holds(fixedSize, keyMode, pageBytes)) {
      throw new IllegalArgumentException(
          "a paged store holds variable-size records with full keys, aligned to pages (not fixed sizes, key mode "
              + keyMode + ", page size " + pageBytes + ")");
    }
    this.index =
        pagedLayout
            ? null
            : hashRange.adapt(exactCount ? parameters.builder(expectedRecords) : parameters.builderUpTo(expectedRecords));
    this.startsPath = fixedSize ? null : createScratch(scratch);
    // The starts go to the scratch directory, the build's temporary one: its full disk is named as such.
    this.starts =
        fixedSize
            ? null
            : new DataOutputStream(new BufferedOutputStream(FullDisk.naming(Files.newOutputStream(startsPath), startsPath), 1 << 16));
    int dataVersion = pagedLayout ? 3 : recordChecksums ? 2 : 1;
    this.data = StoreFileWriter.create(directory.resolve(StoreFile.DATA.fileName()), StoreFile.DATA, dataVersion, dataWrites);
    this.paged = pagedLayout ? new PagedDataWriter(data, pageBytes, checksum, salt, starts::writeLong) : null;
    this.hashes = keyMode.keepsKeys() ? null : HashesWriter.create(directory.resolve(StoreFile.HASHES.fileName()));
  }

  /**
   * {@code wanted}, unless it asks for pages and the records cannot be paged ({@link
   * PagedLayout#holds}): then {@link StoreBuilder#DEFAULT_INDEX}, so that fixed-size records keep
   * their computed places and records without full keys get a rank index.
   */
  private static Path createScratch(Path scratch) throws IOException {
    try {
      return Files.createTempFile(scratch, "starts", ".tmp");
    } catch (IOException e) {
      throw FullDisk.named(e, scratch);
    }
  }

  static IndexParameters suited(IndexParameters wanted, boolean fixedSize, KeyMode keyMode, int pageBytes) {
    return wanted.kind() == IndexKind.PAGED && !PagedLayout.holds(fixedSize, keyMode, pageBytes) ? StoreBuilder.DEFAULT_INDEX : wanted;
  }

  /** Appends a record whose key has hash {@code hi:lo}. */
  void add(RecordSlice record, long hi, long lo) throws IOException {
    if (hashes != null) {
      add(record.bytes, record.keyOffset(), record.keyLength, record.bytes, record.valueOffset(), record.valueLength, hi, lo);
      return;
    }
    int length = fixedSize ? record.keyLength + record.valueLength : record.length();
    int from = fixedSize ? record.keyOffset() : record.offset;
    if (records == expectedRecords) {
      throw new IllegalStateException("more records than the " + expectedRecords + " expected");
    }
    if (paged != null) {
      checkOrder(hi, lo);
      paged.add(record.bytes, from, length, PagedLayout.first(hashRange.mapHi(hi, lo)), PagedLayout.fragment(lo));
      records++;
      return;
    }
    // For fixed sizes this is RecordFormat.fixedRecordOffset(records, ...), without divisions.
    long start = RecordFormat.alignedStart(payloadEnd, length + checkBytes, pageBytes);
    pad(start - payloadEnd);
    if (!fixedSize) {
      starts.writeLong(start);
    }
    data.write(record.bytes, from, length);
    writeCheck(record.bytes, from, length, start);
    records++;
    payloadEnd = start + length + checkBytes;
  }

  /**
   * Checks that hash {@code hi:lo} does not come before the previous one (a paged store has no index
   * to check it; a collision's equal hashes are kept, to be rehashed).
   */
  private void checkOrder(long hi, long lo) {
    if (records > 0 && KeyHasher.compare(hi, lo, lastHi, lastLo) < 0) {
      throw new IllegalArgumentException("hashes must be added in hash order");
    }
    lastHi = hi;
    lastLo = lo;
  }

  /** Writes the checksum of the record just written from {@code bytes[from, from + length)}. */
  private void writeCheck(byte[] bytes, int from, int length, long start) throws IOException {
    if (checkBytes > 0) {
      RecordChecksum.write(checksum.of(bytes, from, length, start + salt), check, 0);
      data.write(check, 0, checkBytes);
    }
  }

  /**
   * Appends a record given as key and value, encoded here: for a record whose source holds it in
   * another layout (fixed-size vs variable) or in another form (a batch's tagged value).
   */
  void add(byte[] key, int keyOffset, int keyLength, byte[] value, int valueOffset, int valueLength, long hi, long lo)
      throws IOException {
    if (records == expectedRecords) {
      throw new IllegalStateException("more records than the " + expectedRecords + " expected");
    }
    if (hashes != null) {
      // The key (full, or already reduced by an earlier store) gives way to what this mode keeps.
      hashes.add(hi, lo);
      keyMode.writeStoredKey(lo, storedKey, 0);
      key = storedKey;
      keyOffset = 0;
      keyLength = keyMode.storedKeyLength();
    }
    int headerLength = 0;
    if (fixedSize) {
      if (keyLength != fixedKeyLength || valueLength != fixedValueLength) {
        throw new IllegalArgumentException("a fixed-size store takes only " + fixedKeyLength + "+" + fixedValueLength + "-byte records");
      }
    } else {
      headerLength = RecordFormat.writeVarint(header, 0, keyLength);
      headerLength = RecordFormat.writeVarint(header, headerLength, valueLength);
    }
    long length = (long) headerLength + keyLength + valueLength;
    if (paged != null) {
      checkOrder(hi, lo);
      byte[] record = join(key, keyOffset, keyLength, value, valueOffset, valueLength, headerLength, length);
      paged.add(record, 0, (int) length, PagedLayout.first(hashRange.mapHi(hi, lo)), PagedLayout.fragment(lo));
      records++;
      return;
    }
    long start = RecordFormat.alignedStart(payloadEnd, length + checkBytes, pageBytes);
    pad(start - payloadEnd);
    if (!fixedSize) {
      starts.writeLong(start);
    }
    if (checkBytes == 0) {
      data.write(header, 0, headerLength);
      data.write(key, keyOffset, keyLength);
      data.write(value, valueOffset, valueLength);
    } else {
      // The checksum covers the record as one run of bytes: join the parts.
      byte[] record = join(key, keyOffset, keyLength, value, valueOffset, valueLength, headerLength, length);
      data.write(record, 0, (int) length);
      writeCheck(record, 0, (int) length, start);
    }
    records++;
    payloadEnd = start + length + checkBytes;
  }

  /** The header just encoded, the key and the value joined in {@link #joined}, which it returns. */
  private byte[] join(
      byte[] key, int keyOffset, int keyLength, byte[] value, int valueOffset, int valueLength, int headerLength, long length) {
    if (joined.length < length) {
      joined = new byte[(int) Math.max(length, Math.min(RecordFormat.MAX_LENGTH, 2L * joined.length))];
    }
    System.arraycopy(header, 0, joined, 0, headerLength);
    System.arraycopy(key, keyOffset, joined, headerLength, keyLength);
    System.arraycopy(value, valueOffset, joined, headerLength + keyLength, valueLength);
    return joined;
  }

  /** Whether records are written without headers, all of one size. */
  boolean fixedSize() {
    return fixedSize;
  }

  private void pad(long bytes) throws IOException {
    while (bytes > 0) {
      int n = (int) Math.min(bytes, zeros.length);
      data.write(zeros, 0, n);
      bytes -= n;
    }
  }

  /**
   * The index being built, or null in a paged store (its page table comes with the data). It is fed
   * separately from {@link #add} (possibly by another thread, with each distinct hash once, in hash
   * order), so that its work overlaps the data's.
   */
  RankIndexBuilder index() {
    return index;
  }

  long records() {
    return records;
  }

  /**
   * Whether the index received one hash per record added and was sized for that many (or, sized
   * for an upper bound, for at most twice as many: beyond, it is worth rebuilding).
   */
  boolean indexMatches() {
    return index == null
        || index.added() == records
        && (index.exactCount() ? index.declared() == records : index.declared() <= Math.max(2 * records, 64));
  }

  /**
   * Replaces the index by one sized for the records actually added (fewer than expected when
   * duplicates were dropped), built from the records read back: they are in hash order, one per
   * hash.
   */
  void replaceIndex(IndexParameters parameters, RecordHasher hasher) throws IOException {
    RankIndexBuilder exact = hashRange.adapt(parameters.builder(records));
    try (RecordCursor written = readBack(hasher)) {
      while (written.next()) {
        exact.add(written.hi, written.lo);
      }
    }
    index = exact;
  }

  /**
   * The records written so far, in order, with hashes by {@code hasher}: for a rebuild of the
   * index, or for a rehash after a collision. Flushes what is buffered first.
   */
  RecordCursor readBack(RecordHasher hasher) throws IOException {
    if (paged != null) {
      // Its last frame waits for its head: written now, no record can follow.
      paged.finish();
    }
    data.flush();
    if (starts != null) {
      starts.flush();
    }
    if (hashes != null) {
      // Records without full keys cannot be hashed again: their hashes come from the hash file.
      hashes.flush();
      HashesReader written = HashesReader.openUnfinished(directory.resolve(StoreFile.HASHES.fileName()), records);
      return readBack(RecordHasher.keptHashes(written), written);
    }
    return readBack(hasher, null);
  }

  private RecordCursor readBack(RecordHasher hasher, java.io.Closeable extra) throws IOException {
    Path dataFile = directory.resolve(StoreFile.DATA.fileName());
    java.io.InputStream in = Files.newInputStream(dataFile);
    DataInputStream startsIn = null;
    try {
      in.skipNBytes(StoreFile.DATA.payloadOffset());
      startsIn = fixedSize ? null : new DataInputStream(new BufferedInputStream(Files.newInputStream(startsPath), 1 << 16));
    } catch (IOException | RuntimeException e) {
      Closeables.closeAll(in);
      throw e;
    }
    DataInputStream startsStream = startsIn;
    return new DataFileCursor(
        dataFile.toString(),
        in,
        records,
        fixedSize ? null : (rank, previousEnd) -> startsStream.readLong(),
        fixedKeyLength,
        fixedValueLength,
        pageBytes,
        checksum,
        salt,
        hasher,
        () -> Closeables.closeAll(in, startsStream, extra));
  }

  /** Closes the files without finishing them. */
  void abandon() throws IOException {
    try {
      Closeables.closeAll(data, hashes);
    } finally {
      if (starts != null) {
        try {
          starts.close(); // flushes: fails on a full disk
        } finally {
          Files.deleteIfExists(startsPath);
        }
      }
    }
  }

  /**
   * Writes offsets, index and meta; requires {@link #indexMatches()}.
   *
   * @return the meta written
   */
  StoreMeta finish(long seed, IndexParameters parameters, SortedMap<String, String> userMetadata) throws IOException {
    if (!indexMatches()) {
      throw new IllegalStateException("the index does not hold one hash per record");
    }
    int keyLength = fixedKeyLength;
    int valueLength = fixedValueLength;
    List<StoreMeta.FileEntry> files = new ArrayList<>();
    if (paged != null) {
      payloadEnd = paged.finish();
    }
    files.add(entry(StoreFile.DATA, data.finish()));
    if (hashes != null) {
      files.add(entry(StoreFile.HASHES, hashes.finish()));
    }
    if (paged != null) {
      starts.close();
      Files.delete(startsPath);
      try (StoreFileWriter out = create(StoreFile.PAGES)) {
        DataOutputStream payload = new DataOutputStream(out);
        paged.table().writeTo(payload);
        payload.flush();
        files.add(entry(StoreFile.PAGES, out.finish()));
      }
    } else {
      if (!fixedSize) {
        files.add(entry(StoreFile.OFFSETS, writeOffsets()));
      }
      RankIndex built = index.finish();
      try (StoreFileWriter out = create(StoreFile.INDEX)) {
        built.writeTo(out);
        out.flush();
        files.add(entry(StoreFile.INDEX, out.finish()));
      }
    }
    StoreMeta meta =
        new StoreMeta(
            records,
            seed,
            parameters,
            keyMode,
            fixedSize ? keyLength : -1,
            fixedSize ? valueLength : -1,
            pageBytes,
            checksum,
            salt,
            hashRange,
            payloadEnd,
            System.currentTimeMillis(),
            files,
            userMetadata);
    meta.write(directory.resolve(StoreFile.META.fileName()));
    return meta;
  }

  /** Builds the Elias-Fano offsets from the recorded starts, now that the data's end is known. */
  private FileSummary writeOffsets() throws IOException {
    starts.close();
    EliasFano.Builder offsets = EliasFano.builder(records + 1, payloadEnd);
    try (DataInputStream in = new DataInputStream(new BufferedInputStream(Files.newInputStream(startsPath), 1 << 16))) {
      for (long i = 0; i < records; i++) {
        offsets.add(in.readLong());
      }
    }
    Files.delete(startsPath);
    offsets.add(payloadEnd);
    EliasFano sequence = offsets.build();
    try (StoreFileWriter out = create(StoreFile.OFFSETS)) {
      DataOutputStream payload = new DataOutputStream(out);
      sequence.writeTo(payload);
      payload.flush();
      return out.finish();
    }
  }

  private StoreFileWriter create(StoreFile kind) throws IOException {
    return StoreFileWriter.create(directory.resolve(kind.fileName()), kind);
  }

  private static StoreMeta.FileEntry entry(StoreFile kind, FileSummary summary) {
    return new StoreMeta.FileEntry(kind.fileName(), summary.size(), summary.checksum());
  }
}
