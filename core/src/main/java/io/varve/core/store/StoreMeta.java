package io.varve.core.store;

import io.varve.core.ect.EctParameters;
import io.varve.core.format.CorruptStoreException;
import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
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
 * Payload     := recordCount:int64 seed:int64
 *                bucketSize:int32 huffmanMax:int32 skipLevels:int32
 *                keyMode:uint8                           (0 = full keys stored with each record)
 *                keyLength:int32 valueLength:int32       (both -1: variable sizes; both &gt;= 0: fixed)
 *                pageBytes:int32                         (records aligned to pages of this size; 0: not)
 *                dataBytes:int64                         (bytes of the data file's payload)
 *                createdMillis:int64
 *                fileCount:uint8 FileEntry^fileCount     (data; offsets if record sizes vary and the index
 *                                                          is dense, blocks if it is sparse; index)
 *                entryCount:int32 UserEntry^entryCount   (sorted by key, keys distinct)
 * FileEntry   := name:String size:int64 checksum:int32   (the file's length and footer checksum)
 * UserEntry   := key:String value:String
 * String      := length:int32 bytes:UTF-8[length]
 * </pre>
 *
 * The meta file is format version 1, or 2 when it lists a {@code blocks} file (a sparse index),
 * which version-1 readers cannot serve. An immutable value; thread-safe.
 *
 * @param recordCount the number of records
 * @param seed the seed of the key hash ({@code KeyHasher.withSeed})
 * @param indexParameters the ECT index knobs
 * @param keyMode how keys are kept
 * @param keyLength every key's length in fixed-size mode, else -1
 * @param valueLength every value's length in fixed-size mode, else -1
 * @param pageBytes the page size records are aligned to ({@link RecordFormat}), or 0
 * @param dataBytes the data file's payload length
 * @param createdMillis when the store was built (milliseconds since the epoch)
 * @param files the other files, with their sizes and checksums
 * @param userMetadata the caller's metadata
 */
public record StoreMeta(
    long recordCount,
    long seed,
    EctParameters indexParameters,
    KeyMode keyMode,
    int keyLength,
    int valueLength,
    int pageBytes,
    long dataBytes,
    long createdMillis,
    List<FileEntry> files,
    SortedMap<String, String> userMetadata) {

  /** The user-metadata entry naming the key serializer of a typed store. */
  public static final String KEY_SERIALIZER = "varve.key.serializer";

  /** The user-metadata entry naming the value serializer of a typed store. */
  public static final String VALUE_SERIALIZER = "varve.value.serializer";

  /** How keys are kept in the store. */
  public enum KeyMode {
    /** Every record holds its full key; lookups compare it. */
    FULL
  }

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
        && ((long) keyLength + valueLength > Integer.MAX_VALUE
            || dataBytes != RecordFormat.fixedPayloadBytes(recordCount, keyLength + valueLength, pageBytes))) {
      throw new IllegalArgumentException("fixed-size records do not add up to the data size");
    }
    files = List.copyOf(files);
    for (StoreFile required : new StoreFile[] {StoreFile.DATA, StoreFile.INDEX}) {
      if (files.stream().noneMatch(f -> f.name().equals(required.fileName()))) {
        throw new IllegalArgumentException("no " + required.fileName() + " file entry");
      }
    }
    boolean hasOffsets = files.stream().anyMatch(f -> f.name().equals(StoreFile.OFFSETS.fileName()));
    boolean hasBlocks = files.stream().anyMatch(f -> f.name().equals(StoreFile.BLOCKS.fileName()));
    if (hasBlocks ? hasOffsets : hasOffsets == (keyLength >= 0)) {
      throw new IllegalArgumentException(
          "an offsets file is needed exactly when record sizes vary and the index is dense (sparse: a blocks file)");
    }
    userMetadata = Collections.unmodifiableSortedMap(new TreeMap<>(userMetadata));
  }

  /** Whether every record has the same size (and the store has no offsets file). */
  public boolean isFixedSize() {
    return keyLength >= 0;
  }

  /** Whether the store's index is sparse: it maps keys to blocks ({@link RecordBlocks}), not records. */
  public boolean isSparse() {
    return hasFile(StoreFile.BLOCKS);
  }

  /** The version of the meta format this meta needs: 2 for a sparse store, else 1. */
  public int formatVersion() {
    return isSparse() ? 2 : 1;
  }

  /** Whether the store has a file of {@code kind} (every store has data and index). */
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
    out.writeInt(indexParameters.bucketSize());
    out.writeInt(indexParameters.huffmanMax());
    out.writeInt(indexParameters.skipLevels());
    out.writeByte(keyMode.ordinal());
    out.writeInt(keyLength);
    out.writeInt(valueLength);
    out.writeInt(pageBytes);
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

  /**
   * Reads and validates a payload of {@code payloadLength} bytes.
   *
   * @throws CorruptStoreException on any invalid field
   */
  public static StoreMeta readFrom(DataInput in, long payloadLength) throws IOException {
    long recordCount = in.readLong();
    long seed = in.readLong();
    int bucketSize = in.readInt();
    int huffmanMax = in.readInt();
    int skipLevels = in.readInt();
    int keyModeOrdinal = in.readUnsignedByte();
    CorruptStoreException.check(
        keyModeOrdinal < KeyMode.values().length, "unknown key mode " + keyModeOrdinal);
    int keyLength = in.readInt();
    int valueLength = in.readInt();
    int pageBytes = in.readInt();
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
    try {
      return new StoreMeta(
          recordCount,
          seed,
          new EctParameters(bucketSize, huffmanMax, skipLevels),
          KeyMode.values()[keyModeOrdinal],
          keyLength,
          valueLength,
          pageBytes,
          dataBytes,
          createdMillis,
          files,
          user);
    } catch (IllegalArgumentException e) {
      throw new CorruptStoreException("invalid meta: " + e.getMessage(), e);
    }
  }

  private static boolean isDataFileName(String name) {
    return name.equals(StoreFile.DATA.fileName())
        || name.equals(StoreFile.OFFSETS.fileName())
        || name.equals(StoreFile.INDEX.fileName())
        || name.equals(StoreFile.BLOCKS.fileName());
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
