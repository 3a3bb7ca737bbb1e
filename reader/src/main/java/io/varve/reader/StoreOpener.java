package io.varve.reader;

import io.varve.core.files.FileReadInterrupted;
import io.varve.core.artifact.StoreFiles;
import io.varve.core.format.CorruptStoreException;
import io.varve.core.format.FileRegion;
import io.varve.core.index.RankIndex;
import io.varve.core.store.IndexFile;
import io.varve.core.store.PageTable;
import io.varve.core.store.RecordBlocks;
import io.varve.core.store.StoreFile;
import io.varve.core.store.StoreFileReader;
import io.varve.core.store.StoreMeta;
import io.varve.core.succinct.EliasFano;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Opens a store directory or artifact: validates every file against the meta file (size, envelope,
 * checksum once, structure), loads the index and the offsets or blocks (or a paged store's page
 * table, which is its index and is loaded even when the index is not), and maps or loads the data
 * file (an artifact's data entry in place, at its offset). Stateless; thread-safe.
 */
final class StoreOpener {
  private StoreOpener() {}

  static Store open(Path path, boolean withIndex, DataAccess access) throws IOException {
    return open(path, withIndex, access, RecordMemory::open);
  }

  /** {@link #open(Path, boolean, DataAccess, RecordMemory.Opener, LookupGuard)} with a guard of the store's own. */
  static Store open(Path path, boolean withIndex, DataAccess access, RecordMemory.Opener memory) throws IOException {
    return open(path, withIndex, access, memory, null);
  }

  /**
   * {@link #open(Path, boolean, DataAccess)} with the data file opened by {@code memory}, its
   * lookups counted by {@code sharedGuard} (a sharded store's, shared by its shards; null: a guard
   * of the store's own). On a thread whose interrupt flag is set it fails with an {@code
   * InterruptedIOException} naming the store, and holds nothing open.
   */
  static Store open(Path path, boolean withIndex, DataAccess access, RecordMemory.Opener memory, LookupGuard sharedGuard)
      throws IOException {
    return Interrupted.of(path, access == DataAccess.LOADED ? "loading the store" : "opening the store",
        () -> openUninterrupted(path, withIndex, access, memory, sharedGuard));
  }

  private static Store openUninterrupted(
      Path path, boolean withIndex, DataAccess access, RecordMemory.Opener memory, LookupGuard sharedGuard) throws IOException {
    StoreFiles files = StoreFiles.of(path);
    FileRegion metaRegion = files.metaRegion();
    StoreMeta meta = StoreMeta.read(metaRegion);
    long fileBytes = metaRegion.length();
    for (StoreMeta.FileEntry entry : meta.files()) {
      if (withIndex || !entry.name().equals(StoreFile.INDEX.fileName())) {
        fileBytes += files.listed(entry).length();
      }
    }
    if (!withIndex && !meta.keyMode().keepsKeys()) {
      throw new UnsupportedOperationException(
          path + " keeps no full keys (key mode " + meta.keyMode() + "): it cannot be searched without its index");
    }
    RecordBlocks blocks = null;
    if (meta.isSparse()) {
      blocks =
          readChecked(
              files,
              StoreFile.BLOCKS,
              meta,
              (in, length) -> RecordBlocks.readFrom(in, meta.recordCount(), meta.dataBytes(), meta.pageBytes()));
    }
    PageTable pages = null;
    if (meta.isPaged()) {
      pages =
          readChecked(
              files,
              StoreFile.PAGES,
              meta,
              (in, length) -> PageTable.readFrom(in, length, meta.recordCount(), meta.dataBytes(), meta.pageBytes(), meta.checkBytes()));
    }
    RankIndex index = withIndex && !meta.isPaged() ? readIndex(files, meta, blocks) : null;
    EliasFano offsets = null;
    if (!meta.isFixedSize() && blocks == null && pages == null) {
      offsets = readChecked(files, StoreFile.OFFSETS, meta, (in, length) -> EliasFano.readFrom(in, meta.recordCount() + 1));
      checkOffsets(offsets, meta, files.listed(meta, StoreFile.OFFSETS));
    }
    FileRegion data = files.listed(meta, StoreFile.DATA);
    long dataFileLength = StoreFile.DATA.envelopeLength() + meta.dataBytes();
    CorruptStoreException.check(
        meta.file(StoreFile.DATA).size() == dataFileLength,
        data + ": " + meta.file(StoreFile.DATA).size() + " bytes cannot hold " + meta.dataBytes() + " bytes of records");
    FileReadInterrupted.reading(data.name(), () -> {
      try (FileChannel channel = FileChannel.open(data.file(), StandardOpenOption.READ)) {
        int footer = StoreFileReader.checkEnvelope(channel, data, StoreFile.DATA, meta.dataFormatVersion());
        CorruptStoreException.check(footer == meta.file(StoreFile.DATA).checksum(), data + ": checksum differs from the meta file's");
      }
      return null;
    });
    RecordMemory memoryOfData = memory.open(data, access);
    return new Store(files, data, meta, index, offsets, blocks, pages, memoryOfData, access, fileBytes, sharedGuard);
  }

  private static RankIndex readIndex(StoreFiles files, StoreMeta meta, RecordBlocks blocks) throws IOException {
    return readChecked(
        files,
        StoreFile.INDEX,
        meta,
        (in, length) -> {
          RankIndex read = IndexFile.readFrom(in, meta, blocks == null ? null : blocks.boundaries());
          // readFrom buffers ahead: bytes after the index would go unseen without this check.
          CorruptStoreException.check(read.serializedBytes() == length, "unexpected bytes after the index");
          return read;
        });
  }

  private static <T> T readChecked(StoreFiles files, StoreFile kind, StoreMeta meta, StoreFileReader.PayloadParser<T> parser)
      throws IOException {
    return StoreFileReader.read(files.listed(meta, kind), kind, meta.file(kind).checksum(), parser);
  }

  private static void checkOffsets(EliasFano offsets, StoreMeta meta, FileRegion region) {
    long n = meta.recordCount();
    CorruptStoreException.check(
        offsets.size() == n + 1 && offsets.get(0) == 0 && offsets.get(n) == meta.dataBytes(),
        region + ": offsets do not span the data (" + offsets.size() + " offsets for " + n + " records)");
  }
}
