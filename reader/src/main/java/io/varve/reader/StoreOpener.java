package io.varve.reader;

import io.varve.core.format.CorruptStoreException;
import io.varve.core.index.RankIndex;
import io.varve.core.store.IndexFile;
import io.varve.core.store.RecordBlocks;
import io.varve.core.store.StoreFile;
import io.varve.core.store.StoreFileReader;
import io.varve.core.store.StoreMeta;
import io.varve.core.succinct.EliasFano;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Opens a store directory: validates every file against the meta file (size, envelope, checksum
 * once, structure), loads the index and the offsets or blocks, and maps or loads the data file.
 * Stateless; thread-safe.
 */
final class StoreOpener {
  private StoreOpener() {}

  static Store open(Path directory, boolean withIndex, DataAccess access) throws IOException {
    return open(directory, withIndex, access, RecordMemory::open);
  }

  /** {@link #open(Path, boolean, DataAccess)} with the data file opened by {@code memory}. */
  static Store open(Path directory, boolean withIndex, DataAccess access, RecordMemory.Opener memory) throws IOException {
    if (!Files.isDirectory(directory)) {
      throw new NoSuchFileException(directory.toString(), null, "not a store directory");
    }
    Path metaPath = directory.resolve(StoreFile.META.fileName());
    StoreMeta meta = StoreMeta.read(metaPath);
    long fileBytes = Files.size(metaPath);
    for (StoreMeta.FileEntry entry : meta.files()) {
      if (withIndex || !entry.name().equals(StoreFile.INDEX.fileName())) {
        fileBytes += listedFileSize(directory, entry);
      }
    }
    if (!withIndex && !meta.keyMode().keepsKeys()) {
      throw new UnsupportedOperationException(
          directory + " keeps no full keys (key mode " + meta.keyMode() + "): it cannot be searched without its index");
    }
    RecordBlocks blocks = null;
    if (meta.isSparse()) {
      blocks =
          readChecked(
              directory,
              StoreFile.BLOCKS,
              meta,
              (in, length) -> RecordBlocks.readFrom(in, meta.recordCount(), meta.dataBytes(), meta.pageBytes()));
    }
    RankIndex index = withIndex ? readIndex(directory, meta, blocks) : null;
    EliasFano offsets = null;
    if (!meta.isFixedSize() && blocks == null) {
      offsets = readChecked(directory, StoreFile.OFFSETS, meta, (in, length) -> EliasFano.readFrom(in, meta.recordCount() + 1));
      checkOffsets(offsets, meta, directory.resolve(StoreFile.OFFSETS.fileName()));
    }
    Path dataPath = directory.resolve(StoreFile.DATA.fileName());
    long dataFileLength = StoreFile.DATA.envelopeLength() + meta.dataBytes();
    CorruptStoreException.check(
        meta.file(StoreFile.DATA).size() == dataFileLength,
        dataPath + ": " + meta.file(StoreFile.DATA).size() + " bytes cannot hold " + meta.dataBytes() + " bytes of records");
    try (FileChannel channel = FileChannel.open(dataPath, StandardOpenOption.READ)) {
      int footer = StoreFileReader.checkEnvelope(channel, dataPath, StoreFile.DATA, meta.dataFormatVersion());
      CorruptStoreException.check(footer == meta.file(StoreFile.DATA).checksum(), dataPath + ": checksum differs from the meta file's");
    }
    RecordMemory data = memory.open(dataPath, dataFileLength, access);
    return new Store(directory, meta, index, offsets, blocks, data, access, fileBytes);
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

  private static RankIndex readIndex(Path directory, StoreMeta meta, RecordBlocks blocks) throws IOException {
    return readChecked(
        directory,
        StoreFile.INDEX,
        meta,
        (in, length) -> {
          RankIndex read = IndexFile.readFrom(in, meta, blocks == null ? null : blocks.boundaries());
          // readFrom buffers ahead: bytes after the index would go unseen without this check.
          CorruptStoreException.check(read.serializedBytes() == length, "unexpected bytes after the index");
          return read;
        });
  }

  private static <T> T readChecked(Path directory, StoreFile kind, StoreMeta meta, StoreFileReader.PayloadParser<T> parser)
      throws IOException {
    return StoreFileReader.read(directory.resolve(kind.fileName()), kind, meta.file(kind).checksum(), parser);
  }

  private static void checkOffsets(EliasFano offsets, StoreMeta meta, Path path) {
    long n = meta.recordCount();
    CorruptStoreException.check(
        offsets.size() == n + 1 && offsets.get(0) == 0 && offsets.get(n) == meta.dataBytes(),
        path + ": offsets do not span the data (" + offsets.size() + " offsets for " + n + " records)");
  }
}
