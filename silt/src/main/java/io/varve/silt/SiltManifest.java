package io.varve.silt;

import io.varve.core.files.DirectoryEntries;
import io.varve.core.format.CorruptStoreException;
import io.varve.core.format.Envelope;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * Which files make the store now: the sorted store, the hash stores oldest first, and the logs
 * oldest first (the last takes the writes). A merge or a new log publishes a new manifest by writing it under a temporary name,
 * forcing it and renaming it over the old; files the manifest does not name are leftovers of
 * work a crash cut short, deleted at the next open.
 *
 * <pre>
 * Manifest := Header Identity nextNumber:int64 sortedNumber:int64 hashCount:int32 hashNumber:int64[hashCount]
 *             logCount:int32 Log[logCount] Footer
 * Identity := storeId:int64 sortedMeta:int32      (versions 2 and 3; storeId: random, never 0;
 *                                                  sortedMeta: CRC32C of the sorted store's meta
 *                                                  file; version 1: neither, the store id is 0)
 * Log      := number:int64 bytes:int64            (bytes: the length of a frozen log, which never
 *                                                  changes again; 0 for the newest, which grows)
 * Header   := magic:int32 = 0x56534C4D ("VSLM") version:uint8 = 1, 2 or 3 reserved:uint8[3]
 * Footer   := crc:int32                          (CRC32C of every byte before it)
 * </pre>
 *
 * The store id salts the checks of the store's logs and hash stores ({@link SiltCheck}), and
 * {@code sortedMeta} names the exact sorted store, so that a file of another store put in under a
 * number this one uses is refused. A store of version 1 (made before ids) keeps id 0 and writes
 * version 1 forever: it is never converted, so no crash can leave it half converted. Version 3 is
 * version 2's layout for a store that also keeps a sync mark ({@link SiltSyncMark}) and hashes its
 * keys with its id as the seed ({@link #hasher()}), which an older library, reading version 2,
 * would ignore; a store of version 2 likewise stays version 2, without either.
 *
 * Numbers name files: a log {@code log-NNNNNNNNNNNNNNNN.vlog}, a hash store {@code
 * hash-NNNNNNNNNNNNNNNN.vhash}, the sorted store's directory {@code sorted-NNNNNNNNNNNNNNNN} (16
 * decimal digits); each list rises, every number differs, and {@code nextNumber} is above them all.
 * There is at least one log. A frozen log's recorded length tells a log cut short at a record
 * boundary from a whole one.
 * Immutable; thread-safe.
 */
record SiltManifest(
    long storeId, boolean syncMark, long nextNumber, long sortedNumber, int sortedMeta, List<Long> hashNumbers, List<Long> logNumbers, List<Long> logBytes) {
  static final String FILE = "MANIFEST";
  /** The file whose lock an open store holds; empty, never deleted. */
  static final String LOCK_FILE = "LOCK";
  static final Envelope FORMAT = Envelope.builder("SILT manifest").magic(0x56534C4D).byteVersion().versions(1, 3).build();

  SiltManifest {
    if (syncMark && storeId == 0) {
      throw new IllegalArgumentException("a sync mark needs a store id");
    }
    hashNumbers = List.copyOf(hashNumbers);
    logNumbers = List.copyOf(logNumbers);
    logBytes = List.copyOf(logBytes);
    if (logBytes.size() != logNumbers.size()) {
      throw new IllegalArgumentException(logNumbers.size() + " logs but " + logBytes.size() + " lengths");
    }
  }

  static String logName(long number) {
    return String.format("log-%016d.vlog", number);
  }

  static String hashName(long number) {
    return String.format("hash-%016d.vhash", number);
  }

  /** The scratch directory of the conversion into hash store {@code number}: never in a manifest. */
  static String scratchName(long number) {
    return String.format("convert-%016d", number);
  }

  /** Whether {@code name} is one of the names this manifest's store gives its files. */
  static boolean isStoreFileName(String name) {
    return name.equals(FILE + ".tmp") || name.equals(SiltSyncMark.FILE) || name.matches("log-\\d{16}\\.vlog") || name.matches("hash-\\d{16}\\.vhash")
        || name.matches("sorted-\\d{16}") || name.matches("convert-\\d{16}");
  }

  /** The names of the files this manifest names, itself included. */
  java.util.Set<String> fileNames() {
    java.util.Set<String> names = new java.util.HashSet<>();
    names.add(FILE);
    if (syncMark) {
      names.add(SiltSyncMark.FILE);
    }
    names.add(sortedName(sortedNumber));
    hashNumbers.forEach(n -> names.add(hashName(n)));
    logNumbers.forEach(n -> names.add(logName(n)));
    return names;
  }

  static String sortedName(long number) {
    return String.format("sorted-%016d", number);
  }

  /**
   * The hash of this store's keys, which places them in its log stores' tables and so in its hash
   * stores: XXH3-128 seeded with the store id in a store of version 3, so that keys crafted to
   * share buckets (which fill a log store early: a freeze and a conversion for every few keys) need
   * the id; the fixed public seed 0x5117106 in versions 1 and 2, whose hash stores were laid out
   * with it. Fixed per store: a log replays into the table it had.
   */
  io.varve.core.hash.KeyHasher hasher() {
    return version() >= 3 ? io.varve.core.hash.KeyHasher.withSeed(storeId) : LogStore.FIXED_HASHER;
  }

  /** The checks of this store's logs and hash stores. */
  SiltCheck check() {
    return storeId == 0 ? SiltCheck.NONE : new SiltCheck(storeId);
  }

  /** The manifest's version: 3 with a store id and a sync mark, 2 with an id only, 1 without (a store made before ids). */
  int version() {
    return storeId == 0 ? 1 : syncMark ? 3 : 2;
  }

  /** This manifest with one number taken: {@code nextNumber} moves on. */
  SiltManifest take() {
    return new SiltManifest(storeId, syncMark, nextNumber + 1, sortedNumber, sortedMeta, hashNumbers, logNumbers, logBytes);
  }

  /** This manifest with other hash stores and logs, the same sorted store. */
  SiltManifest with(List<Long> hashes, List<Long> logs, List<Long> bytes) {
    return new SiltManifest(storeId, syncMark, nextNumber, sortedNumber, sortedMeta, hashes, logs, bytes);
  }

  /** This manifest naming the sorted store {@code sorted}, whose meta file's CRC32C is {@code meta}, and {@code hashes}. */
  SiltManifest withSorted(long sorted, int meta, List<Long> hashes) {
    return new SiltManifest(storeId, syncMark, nextNumber, sorted, meta, hashes, logNumbers, logBytes);
  }

  byte[] toBytes() {
    int identity = storeId == 0 ? 0 : 12;
    int body = identity + 24 + 8 * hashNumbers.size() + 16 * logNumbers.size();
    int length = FORMAT.headerLength() + body;
    byte[] bytes = new byte[length + FORMAT.footerLength()];
    FORMAT.putHeader(bytes, 0, version());
    ByteBuffer b = ByteBuffer.wrap(bytes, FORMAT.headerLength(), body);
    if (storeId != 0) {
      b.putLong(storeId).putInt(sortedMeta);
    }
    b.putLong(nextNumber).putLong(sortedNumber).putInt(hashNumbers.size());
    hashNumbers.forEach(b::putLong);
    b.putInt(logNumbers.size());
    for (int i = 0; i < logNumbers.size(); i++) {
      b.putLong(logNumbers.get(i)).putLong(logBytes.get(i));
    }
    FORMAT.putFooter(bytes, 0, length);
    return bytes;
  }

  static SiltManifest fromBytes(byte[] bytes, String source) {
    int version = FORMAT.checkHeader(bytes, source);
    int identity = version == 1 ? 0 : 12;
    int end = bytes.length - FORMAT.footerLength();
    CorruptStoreException.check(end >= FORMAT.headerLength() + identity + 24, source + ": the manifest is cut short");
    FORMAT.checkFooter(bytes, 0, end, source);
    ByteBuffer b = ByteBuffer.wrap(bytes, FORMAT.headerLength(), end - FORMAT.headerLength());
    long storeId = 0;
    int sortedMeta = 0;
    if (version >= 2) {
      storeId = b.getLong();
      sortedMeta = b.getInt();
      CorruptStoreException.check(storeId != 0, source + ": a manifest of version " + version + " with store id 0");
    }
    long next = b.getLong();
    long sorted = b.getLong();
    CorruptStoreException.check(sorted >= 0 && sorted < next, source + ": bad sorted store number " + sorted);
    java.util.Set<Long> seen = new java.util.HashSet<>();
    seen.add(sorted);
    List<Long> hashes = new ArrayList<>();
    numbers(b, next, seen, 0, "hash store", source, hashes, null);
    List<Long> logs = new ArrayList<>();
    List<Long> lengths = new ArrayList<>();
    numbers(b, next, seen, 1, "log", source, logs, lengths);
    CorruptStoreException.check(!b.hasRemaining(), source + ": " + b.remaining() + " bytes after the manifest's lists");
    return new SiltManifest(storeId, version == 3, next, sorted, sortedMeta, hashes, logs, lengths);
  }

  /** Reads a list of numbers (with a length after each when {@code lengths} is given). */
  private static void numbers(
      ByteBuffer b, long next, java.util.Set<Long> seen, int least, String what, String source, List<Long> numbers, List<Long> lengths) {
    CorruptStoreException.check(b.remaining() >= 4, source + ": the manifest is cut short");
    int count = b.getInt();
    int entryBytes = lengths == null ? 8 : 16;
    CorruptStoreException.check(count >= least && count <= b.remaining() / entryBytes, source + ": the manifest lists " + count + " " + what + "s");
    long previous = -1;
    for (int i = 0; i < count; i++) {
      long number = b.getLong();
      CorruptStoreException.check(number > previous && number < next && seen.add(number), source + ": bad " + what + " number " + number);
      numbers.add(number);
      previous = number;
      if (lengths != null) {
        long length = b.getLong();
        CorruptStoreException.check(i == count - 1 ? length == 0 : length >= SiltLog.HEADER_BYTES && length <= SiltLog.MAX_BYTES,
            source + ": bad length " + length + " of " + what + " " + number);
        lengths.add(length);
      }
    }
  }

  /** Reads the manifest of {@code directory}. */
  static SiltManifest read(Path directory) throws IOException {
    Path file = directory.resolve(FILE);
    return fromBytes(Files.readAllBytes(file), file.toString());
  }

  static boolean exists(Path directory) {
    return Files.exists(directory.resolve(FILE));
  }

  /** Publishes this manifest in {@code directory}, durably and atomically. */
  void write(Path directory) throws IOException {
    replace(directory, writeTemporary(directory));
  }

  /**
   * Writes this manifest to its temporary file in {@code directory} and forces it; the manifest in
   * use is untouched, whether this returns or throws.
   */
  Path writeTemporary(Path directory) throws IOException {
    Path temporary = directory.resolve(FILE + ".tmp");
    // Through FileAccess: a put that fills its log store freezes it and writes this, on a thread
    // whose interrupt would close a plain channel, fail the freeze, and leave the store read-only.
    try (FileAccess file = FileAccess.open(temporary,
        new OpenOption[] {StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE}, StandardOpenOption.WRITE)) {
      file.writeFully(ByteBuffer.wrap(toBytes()), 0);
      file.force(true);
    }
    return temporary;
  }

  /**
   * Renames the forced {@code temporary} over the manifest of {@code directory} and forces the
   * directory, so that the rename survives a crash. When this throws, the rename may have happened
   * or not, and a crash may keep it or not: either manifest may be the one the next open reads.
   */
  static void replace(Path directory, Path temporary) throws IOException {
    Files.move(temporary, directory.resolve(FILE), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    forceDirectory(directory);
  }

  /**
   * Forces {@code directory}'s entries (names created, renamed or deleted in it) to the device,
   * through the test hook: until then a crash may undo them ({@link DirectoryEntries#force(Path,
   * DirectoryEntries.Opener)} says which failures are taken as the platform's word).
   */
  static void forceDirectory(Path directory) throws IOException {
    DirectoryEntries.force(directory, FileAccess.opener::open);
  }
}
