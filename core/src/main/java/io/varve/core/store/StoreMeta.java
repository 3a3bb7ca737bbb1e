package io.varve.core.store;

import io.varve.core.blocked.BlockedIndexParameters;
import io.varve.core.ect.EctParameters;
import io.varve.core.format.CorruptStoreException;
import io.varve.core.format.FileRegion;
import io.varve.core.hash.HashRange;
import io.varve.core.hash.KeyHasher;
import io.varve.core.index.IndexKind;
import io.varve.core.index.IndexParameters;
import java.io.DataInput;
import java.io.DataOutput;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The {@link StoreFile#META meta} file's content: what a reader needs to know before it opens the
 * other files, and their sizes and checksums so that it can validate them.
 *
 * <pre>
 * Payload     := recordCount:int64 seed:int64 Index
 *                keyMode:uint8                           (0 = full keys stored with each record,
 *                                                          1 = signatures, 2 = no keys; version 2)
 *                signatureBits:uint8                     (only when keyMode = 1: 1 to 64)
 *                keyLength:int32 valueLength:int32       (both -1: variable sizes; both &gt;= 0: fixed)
 *                pageBytes:int32                         (records aligned to pages of this size; 0: not)
 *                recordCheck:uint8                       (version 4: 0 = no check after each record,
 *                                                          1 = an XXH3 {@link RecordChecksum}, version
 *                                                          6: 2 = a CRC32C one; absent before version
 *                                                          4: none)
 *                recordCheckSalt:int64                   (version 7, recordCheck 2 only: non-zero,
 *                                                          drawn for each data file written, and mixed
 *                                                          into every check; absent before: 0)
 *                hashRange:HashRange                     (version 4: the keys' hashes lie in it and
 *                                                          the index holds them mapped by it; before
 *                                                          version 4: the full range)
 *                dataBytes:int64                         (bytes of the data file's payload)
 *                createdMillis:int64
 *                fileCount:uint8 FileEntry^fileCount     (data; offsets if record sizes vary and the index
 *                                                          is dense, blocks if it is sparse; index; or,
 *                                                          paged: data and pages)
 *                entryCount:int32 UserEntry^entryCount   (sorted by key, keys distinct)
 * Index       := EctKnobs                               (versions 1 and 2: always an ECT index)
 *              | indexKind:uint8 (EctKnobs | BlockedKnobs) (version 3: 0 = ECT, 1 = blocked)
 *              | indexKind:uint8 = 2                    (versions 5 to 7: paged, no knobs; see {@link PagedLayout})
 * EctKnobs    := bucketSize:int32 huffmanMax:int32 skipLevels:int32
 * BlockedKnobs:= keysPerBlock:int32
 * FileEntry   := name:String size:int64 checksum:int32   (the file's length and footer checksum)
 * UserEntry   := key:String value:String
 * String      := length:int32 bytes:UTF-8[length]
 * HashRange   := minHi:int64 minLo:int64 maxHi:int64 maxLo:int64   (see {@link HashRange})
 * </pre>
 *
 * The meta file is written in the oldest version that holds it, so that older readers read what
 * they can: version 1; 2 when it lists a {@code blocks} file (a sparse index) or the store keeps no
 * full keys, which version-1 readers cannot serve; 3 when the index is a blocked index, which
 * readers of versions 1 and 2 do not know; 4 when records end with a checksum, which changes the
 * data layout, or the index holds hashes mapped by a range other than the full one; 5 when the
 * records are paged ({@link PagedLayout}, data version 3); 6 when the records' checksum is CRC32C,
 * which version-5 readers would check as XXH3; 7 when the checks are salted, which version-6
 * readers would check without the salt. An immutable value; thread-safe.
 *
 * @param recordCount the number of records
 * @param seed the seed of the key hash ({@code KeyHasher.withSeed})
 * @param indexParameters the index's kind and knobs ({@link EctParameters}, {@link
 *     BlockedIndexParameters} or {@link PagedParameters}; a sparse index is an ECT index)
 * @param keyMode how keys are kept
 * @param keyLength every key's length in fixed-size mode, else -1
 * @param valueLength every value's length in fixed-size mode, else -1
 * @param pageBytes the page size records are aligned to ({@link RecordFormat}), or 0
 * @param recordChecksum the check after each record that lookups verify ({@link RecordChecksum#NONE}
 *     for none)
 * @param recordCheckSalt mixed into every record's check ({@link RecordChecksum#of}), so that a
 *     record of another data file, intact and at the same place, fails its check here; 0 for none
 * @param hashRange the range the keys' hashes lie in, which maps them for the index ({@link
 *     HashRange#FULL} for none)
 * @param dataBytes the data file's payload length
 * @param createdMillis when the store was built (milliseconds since the epoch)
 * @param files the other files, with their sizes and checksums
 * @param userMetadata the caller's metadata
 */
public record StoreMeta(
    long recordCount,
    long seed,
    IndexParameters indexParameters,
    KeyMode keyMode,
    int keyLength,
    int valueLength,
    int pageBytes,
    RecordChecksum recordChecksum,
    long recordCheckSalt,
    HashRange hashRange,
    long dataBytes,
    long createdMillis,
    List<FileEntry> files,
    SortedMap<String, String> userMetadata) {

  /** The user-metadata entry naming the key serializer of a typed store. */
  public static final String KEY_SERIALIZER = "varve.key.serializer";

  /** The user-metadata entry naming the value serializer of a typed store. */
  public static final String VALUE_SERIALIZER = "varve.value.serializer";

  /**
   * One file of the store as the builder wrote it.
   *
   * @param name the file name in the store directory
   * @param size the file's length in bytes
   * @param checksum the CRC32C in its footer
   */
  public record FileEntry(String name, long size, int checksum) {}

  /** Validates the fields and copies the collections. */
  public StoreMeta {
    java.util.Objects.requireNonNull(recordChecksum, "recordChecksum");
    if (recordCheckSalt != 0 && recordChecksum != RecordChecksum.CRC32C) {
      throw new IllegalArgumentException("only CRC32C record checks are salted, not " + recordChecksum);
    }
    if (recordCount < 0 || dataBytes < 0) {
      throw new IllegalArgumentException("negative record count or data size");
    }
    if ((keyLength < 0) != (valueLength < 0) || keyLength < -1 || valueLength < -1) {
      throw new IllegalArgumentException(
          "key and value lengths must be both -1 (variable) or both >= 0: " + keyLength + ", " + valueLength);
    }
    if (keyLength > RecordFormat.MAX_LENGTH || valueLength > RecordFormat.MAX_LENGTH) {
      throw new IllegalArgumentException(
          "key and value lengths are limited to " + RecordFormat.MAX_LENGTH + " bytes: " + keyLength + ", " + valueLength);
    }
    if (!RecordFormat.isValidPageSize(pageBytes)) {
      throw new IllegalArgumentException("page size must be 0 or a power of two from 512 to 4096: " + pageBytes);
    }
    if (keyLength >= 0
        && ((long) keyLength + valueLength + recordChecksum.bytes() > Integer.MAX_VALUE
            || dataBytes != RecordFormat.fixedPayloadBytes(recordCount, keyLength + valueLength + recordChecksum.bytes(), pageBytes))) {
      throw new IllegalArgumentException("fixed-size records do not add up to the data size");
    }
    files = List.copyOf(files);
    java.util.Objects.requireNonNull(indexParameters, "indexParameters");
    boolean paged = indexKind(indexParameters) == IndexKind.PAGED;
    for (StoreFile required : paged ? new StoreFile[] {StoreFile.DATA, StoreFile.PAGES} : new StoreFile[] {StoreFile.DATA, StoreFile.INDEX}) {
      if (files.stream().noneMatch(f -> f.name().equals(required.fileName()))) {
        throw new IllegalArgumentException("no " + required.fileName() + " file entry");
      }
    }
    java.util.Objects.requireNonNull(keyMode, "keyMode");
    java.util.Objects.requireNonNull(hashRange, "hashRange");
    boolean hasHashes = files.stream().anyMatch(f -> f.name().equals(StoreFile.HASHES.fileName()));
    if (hasHashes == keyMode.keepsKeys()) {
      throw new IllegalArgumentException("a hashes file is needed exactly when keys are not kept (" + keyMode + ")");
    }
    if (keyLength >= 0 && !keyMode.keepsKeys() && keyLength != keyMode.storedKeyLength()) {
      throw new IllegalArgumentException("records of key mode " + keyMode + " hold " + keyMode.storedKeyLength() + "-byte keys, not " + keyLength);
    }
    boolean hasOffsets = files.stream().anyMatch(f -> f.name().equals(StoreFile.OFFSETS.fileName()));
    boolean hasBlocks = files.stream().anyMatch(f -> f.name().equals(StoreFile.BLOCKS.fileName()));
    boolean hasPages = files.stream().anyMatch(f -> f.name().equals(StoreFile.PAGES.fileName()));
    if (paged) {
      boolean hasIndex = files.stream().anyMatch(f -> f.name().equals(StoreFile.INDEX.fileName()));
      if (hasOffsets || hasBlocks || hasIndex || !PagedLayout.holds(keyLength >= 0, keyMode, pageBytes)) {
        throw new IllegalArgumentException(
            "a paged store holds variable-size records with full keys in pages, found through its pages file alone");
      }
    } else if (hasPages) {
      throw new IllegalArgumentException("a pages file belongs to a paged store only");
    } else if (hasBlocks ? hasOffsets : hasOffsets == (keyLength >= 0)) {
      throw new IllegalArgumentException(
          "an offsets file is needed exactly when record sizes vary and the index is dense (sparse: a blocks file)");
    }
    if (indexKind(indexParameters) == IndexKind.BLOCKED && hasBlocks) {
      throw new IllegalArgumentException("a sparse index is an ECT index, not " + indexParameters);
    }
    if (hasBlocks && !keyMode.keepsKeys()) {
      throw new IllegalArgumentException("a sparse index needs full keys to search its blocks");
    }
    userMetadata = Collections.unmodifiableSortedMap(new TreeMap<>(userMetadata));
  }

  /**
   * This meta with other files, and the index, data size and time of writing they come with: the
   * same records, seed, key mode, layout, hash range and user metadata. What re-indexing a store
   * writes.
   *
   * @throws IllegalArgumentException as the constructor does
   */
  public StoreMeta withFiles(IndexParameters indexParameters, long dataBytes, long createdMillis, List<FileEntry> files) {
    return new StoreMeta(recordCount, seed, indexParameters, keyMode, keyLength, valueLength, pageBytes, recordChecksum,
        recordCheckSalt, hashRange, dataBytes, createdMillis, files, userMetadata);
  }

  /** Whether every record has the same size (and the store has no offsets file). */
  public boolean isFixedSize() {
    return keyLength >= 0;
  }

  /** Whether the store's index is sparse: it maps keys to blocks ({@link RecordBlocks}), not records. */
  public boolean isSparse() {
    return hasFile(StoreFile.BLOCKS);
  }

  /** Whether the records are packed into frames found through a {@link PageTable} ({@link PagedLayout}). */
  public boolean isPaged() {
    return indexKind() == IndexKind.PAGED;
  }

  /** Whether each record ends with a {@link RecordChecksum} that lookups check. */
  public boolean recordChecksums() {
    return recordChecksum != RecordChecksum.NONE;
  }

  /** Bytes of the checksum after each record: {@link RecordChecksum#BYTES} or 0. */
  public int checkBytes() {
    return recordChecksum.bytes();
  }

  /** Bytes of each record in fixed-size mode, its checksum included; -1 when sizes vary. */
  public int fixedRecordLength() {
    return isFixedSize() ? keyLength + valueLength + checkBytes() : -1;
  }

  /**
   * The version of the data file's format these records need: 3 when paged, 2 with record
   * checksums, else 1.
   */
  public int dataFormatVersion() {
    return isPaged() ? 3 : recordChecksums() ? 2 : 1;
  }

  /**
   * The version of the meta format this meta needs: 7 with salted record checksums, 6 with CRC32C
   * ones, 5 when paged, 4 with record checksums, 3 with a blocked index, 2 for a sparse store or one
   * without full keys, else 1.
   */
  public int formatVersion() {
    if (recordCheckSalt != 0) {
      return 7;
    }
    if (recordChecksum == RecordChecksum.CRC32C) {
      return 6;
    }
    if (isPaged()) {
      return 5;
    }
    if (recordChecksums() || !hashRange.isFull()) {
      return 4;
    }
    if (indexKind(indexParameters) != IndexKind.ECT) {
      return 3;
    }
    return isSparse() || !keyMode.keepsKeys() ? 2 : 1;
  }

  /** The kind of the store's index. */
  public IndexKind indexKind() {
    return indexKind(indexParameters);
  }

  /**
   * The kind of {@code parameters}, checking that it is one this format can record: only the
   * parameter classes of this library, whose knobs the meta file lays out.
   */
  private static IndexKind indexKind(IndexParameters parameters) {
    if (parameters instanceof EctParameters) {
      return IndexKind.ECT;
    }
    if (parameters instanceof BlockedIndexParameters) {
      return IndexKind.BLOCKED;
    }
    if (parameters instanceof PagedParameters) {
      return IndexKind.PAGED;
    }
    throw new IllegalArgumentException("a store records ECT, blocked or paged index parameters, not " + parameters.getClass().getName());
  }

  /** Whether the store has a file of {@code kind} (every store has data, and index or pages). */
  public boolean hasFile(StoreFile kind) {
    return files.stream().anyMatch(f -> f.name().equals(kind.fileName()));
  }

  /** The entry of file {@code kind}; throws if this store has none. */
  public FileEntry file(StoreFile kind) {
    for (FileEntry file : files) {
      if (file.name().equals(kind.fileName())) {
        return file;
      }
    }
    throw new IllegalArgumentException("this store has no " + kind.fileName() + " file");
  }

  /** Writes the payload. */
  public void writeTo(DataOutput out) throws IOException {
    out.writeLong(recordCount);
    out.writeLong(seed);
    writeIndexParameters(out);
    keyMode.writeTo(out);
    out.writeInt(keyLength);
    out.writeInt(valueLength);
    out.writeInt(pageBytes);
    if (formatVersion() >= 4) {
      out.writeByte(recordChecksum.code());
      if (formatVersion() >= 7) {
        out.writeLong(recordCheckSalt);
      }
      out.writeLong(hashRange.minHi());
      out.writeLong(hashRange.minLo());
      out.writeLong(hashRange.maxHi());
      out.writeLong(hashRange.maxLo());
    }
    out.writeLong(dataBytes);
    out.writeLong(createdMillis);
    out.writeByte(files.size());
    for (FileEntry file : files) {
      writeString(out, file.name());
      out.writeLong(file.size());
      out.writeInt(file.checksum());
    }
    out.writeInt(userMetadata.size());
    for (Map.Entry<String, String> entry : userMetadata.entrySet()) {
      writeString(out, entry.getKey());
      writeString(out, entry.getValue());
    }
  }

  private void writeIndexParameters(DataOutput out) throws IOException {
    if (formatVersion() >= 3) {
      out.writeByte(indexKind().code());
    }
    indexParameters.writeKnobs(out);
  }

  private static IndexParameters readIndexParameters(DataInput in, int version) throws IOException {
    IndexKind kind = version >= 3 ? IndexKind.fromCode(in.readUnsignedByte()) : IndexKind.ECT;
    return switch (kind) {
      case ECT -> EctParameters.readKnobs(in);
      case BLOCKED -> BlockedIndexParameters.readKnobs(in);
      case PAGED -> PagedParameters.INSTANCE;
    };
  }

  /**
   * Writes this meta as the meta file {@code path}, in the format version it needs ({@link
   * #formatVersion()}), whose layout the payload follows; returns the file's size and checksum.
   */
  public StoreFileWriter.FileSummary write(Path path) throws IOException {
    try (StoreFileWriter out = StoreFileWriter.create(path, StoreFile.META, formatVersion())) {
      DataOutputStream payload = new DataOutputStream(out);
      writeTo(payload);
      payload.flush();
      return out.finish();
    }
  }

  /**
   * Reads and checks the meta file {@code path} (envelope, checksum, payload).
   *
   * @throws CorruptStoreException naming the file on any defect
   */
  public static StoreMeta read(Path path) throws IOException {
    return StoreFileReader.read(path, StoreFile.META, StoreMeta::readFrom);
  }

  /** {@link #read(Path)} of a meta file that lies in {@code region} (an artifact's entry). */
  public static StoreMeta read(FileRegion region) throws IOException {
    return StoreFileReader.read(region, StoreFile.META, StoreMeta::readFrom);
  }

  /**
   * Reads and validates a payload of {@code payloadLength} bytes of meta format {@code version}.
   *
   * @throws CorruptStoreException on any invalid field
   */
  public static StoreMeta readFrom(DataInput in, long payloadLength, int version) throws IOException {
    long recordCount = in.readLong();
    long seed = in.readLong();
    IndexParameters indexParameters = readIndexParameters(in, version);
    KeyMode keyMode = KeyMode.readFrom(in);
    int keyLength = in.readInt();
    int valueLength = in.readInt();
    int pageBytes = in.readInt();
    RecordChecksum recordChecksum = RecordChecksum.NONE;
    long recordCheckSalt = 0;
    HashRange hashRange = HashRange.FULL;
    if (version >= 4) {
      int recordCheck = in.readUnsignedByte();
      recordChecksum = RecordChecksum.ofCode(recordCheck);
      CorruptStoreException.check(
          recordChecksum != RecordChecksum.CRC32C || version >= 6, "record check " + recordCheck + " in a version-" + version + " meta file");
      if (version >= 7) {
        recordCheckSalt = in.readLong();
        CorruptStoreException.check(
            recordCheckSalt != 0 && recordChecksum == RecordChecksum.CRC32C, "a version-7 meta file with record check " + recordCheck
                + " and salt " + recordCheckSalt);
      }
      long minHi = in.readLong();
      long minLo = in.readLong();
      long maxHi = in.readLong();
      long maxLo = in.readLong();
      CorruptStoreException.check(
          KeyHasher.compare(minHi, minLo, maxHi, maxLo) <= 0, "hash range with its minimum above its maximum");
      hashRange = HashRange.of(minHi, minLo, maxHi, maxLo);
    }
    long dataBytes = in.readLong();
    long createdMillis = in.readLong();
    int fileCount = in.readUnsignedByte();
    CorruptStoreException.check(fileCount <= StoreFile.values().length, "too many file entries: " + fileCount);
    List<FileEntry> files = new ArrayList<>();
    for (int i = 0; i < fileCount; i++) {
      String name = readString(in, payloadLength);
      long size = in.readLong();
      int checksum = in.readInt();
      CorruptStoreException.check(
          isDataFileName(name) && files.stream().noneMatch(f -> f.name().equals(name)),
          "unexpected or repeated file entry '" + name + "'");
      CorruptStoreException.check(size >= 0, "negative size of file " + name);
      files.add(new FileEntry(name, size, checksum));
    }
    int entryCount = in.readInt();
    CorruptStoreException.check(
        entryCount >= 0 && entryCount <= payloadLength / 8, "user metadata entry count out of range: " + entryCount);
    SortedMap<String, String> user = new TreeMap<>();
    for (int i = 0; i < entryCount; i++) {
      String key = readString(in, payloadLength);
      CorruptStoreException.check(user.put(key, readString(in, payloadLength)) == null, "repeated user metadata key");
    }
    StoreMeta meta;
    try {
      meta = new StoreMeta(
          recordCount,
          seed,
          indexParameters,
          keyMode,
          keyLength,
          valueLength,
          pageBytes,
          recordChecksum,
          recordCheckSalt,
          hashRange,
          dataBytes,
          createdMillis,
          files,
          user);
    } catch (IllegalArgumentException e) {
      throw new CorruptStoreException("invalid meta: " + e.getMessage(), e);
    }
    CorruptStoreException.check(
        meta.formatVersion() <= version, "a version-" + version + " meta file cannot describe this store (version " + meta.formatVersion() + " can)");
    return meta;
  }

  private static boolean isDataFileName(String name) {
    return name.equals(StoreFile.DATA.fileName())
        || name.equals(StoreFile.OFFSETS.fileName())
        || name.equals(StoreFile.INDEX.fileName())
        || name.equals(StoreFile.BLOCKS.fileName())
        || name.equals(StoreFile.PAGES.fileName())
        || name.equals(StoreFile.HASHES.fileName());
  }

  private static void writeString(DataOutput out, String value) throws IOException {
    byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
    out.writeInt(bytes.length);
    out.write(bytes);
  }

  private static String readString(DataInput in, long payloadLength) throws IOException {
    int length = in.readInt();
    CorruptStoreException.check(length >= 0 && length <= payloadLength, "string length out of range: " + length);
    byte[] bytes = new byte[length];
    in.readFully(bytes);
    return new String(bytes, StandardCharsets.UTF_8);
  }
}
