package io.varve.builder;

import io.varve.core.artifact.StoreFiles;
import io.varve.core.format.BoundedInputStream;
import io.varve.core.format.CorruptStoreException;
import io.varve.core.format.FileRegion;
import io.varve.core.store.HashesReader;
import io.varve.core.store.PageTable;
import io.varve.core.store.RecordBlocks;
import io.varve.core.store.StoreFile;
import io.varve.core.store.StoreFileReader;
import io.varve.core.store.StoreMeta;
import io.varve.core.succinct.EliasFano;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.StandardOpenOption;
import java.util.zip.CRC32C;
import java.util.zip.CheckedInputStream;

/**
 * A sequential scan of a finished store's records in hash order, with their key hashes: what a
 * merge or a re-index reads its old store with, from a store directory or a one-file artifact read
 * in place ({@link StoreFiles}). Every file the meta lists must be there with the size it records;
 * the offsets or blocks are checked in full as they load (envelope, the meta's checksum); the data
 * is streamed once and checked as it goes: its envelope and the meta's checksum before the first
 * record, the checksum of every byte after the last, so a damaged store fails the merge instead of
 * spreading into the new one. A store without full keys gives the hashes of its hash file instead
 * (checked in full first). Messages name the file as {@link StoreFiles#nameOf} does. Holds the
 * store's offsets in memory (a few bits per record), its blocks for a store with a sparse index, or
 * its page table for a paged one.
 * Not thread-safe.
 */
final class StoreScan extends DataFileCursor {
  private final StoreMeta meta;
  private final FileRegion data;
  private final CRC32C crc;
  private final int storedChecksum;

  private StoreScan(
      StoreMeta meta,
      Starts starts,
      FileRegion data,
      InputStream payload,
      CRC32C crc,
      int storedChecksum,
      RecordHasher hasher,
      java.io.Closeable hashes) {
    super(
        data.name(),
        payload,
        meta.recordCount(),
        starts,
        meta.keyLength(),
        meta.valueLength(),
        meta.pageBytes(),
        meta.recordChecksum(),
        meta.recordCheckSalt(),
        hasher,
        () -> Closeables.closeAll(payload, hashes));
    this.meta = meta;
    this.data = data;
    this.crc = crc;
    this.storedChecksum = storedChecksum;
  }

  /**
   * Opens a scan of the store whose files are {@code files} and whose meta ({@link
   * StoreFiles#readMeta()}) is {@code meta}, hashing keys with {@code hasher} (which must be the
   * store's: its seed orders the records).
   *
   * @throws CorruptStoreException naming the file on a defect found before the first record
   * @throws java.nio.file.NoSuchFileException naming the store when it was deleted ({@link GoneStores})
   */
  static StoreScan open(StoreFiles files, StoreMeta meta, RecordHasher hasher) throws IOException {
    try {
      return openChecked(files, meta, hasher);
    } catch (IOException | RuntimeException e) {
      GoneStores.throwIfGone(files, e);
      throw e;
    }
  }

  private static StoreScan openChecked(StoreFiles files, StoreMeta meta, RecordHasher hasher) throws IOException {
    for (StoreMeta.FileEntry entry : meta.files()) {
      files.listed(entry);
    }
    Starts starts = null;
    if (meta.isPaged()) {
      PageTable pages =
          readChecked(
              files,
              meta,
              StoreFile.PAGES,
              (in, length) -> PageTable.readFrom(in, length, meta.recordCount(), meta.dataBytes(), meta.pageBytes(), meta.checkBytes()));
      starts = new PageStarts(pages);
    } else if (meta.isSparse()) {
      RecordBlocks blocks =
          readChecked(
              files,
              meta,
              StoreFile.BLOCKS,
              (in, length) -> RecordBlocks.readFrom(in, meta.recordCount(), meta.dataBytes(), meta.pageBytes()));
      starts = meta.keyLength() < 0 ? new BlockStarts(blocks) : null;
    } else if (meta.keyLength() < 0) {
      EliasFano offsets =
          readChecked(files, meta, StoreFile.OFFSETS, (in, length) -> EliasFano.readFrom(in, meta.recordCount() + 1));
      CorruptStoreException.check(
          offsets.size() == meta.recordCount() + 1 && offsets.get(meta.recordCount()) == meta.dataBytes(),
          files.nameOf(StoreFile.OFFSETS.fileName()) + ": does not hold " + meta.recordCount() + " records of "
              + meta.dataBytes() + " bytes");
      starts = new EliasFanoStarts(offsets);
    }
    HashesReader keptHashes = null;
    if (!meta.keyMode().keepsKeys()) {
      // No keys to hash: the hashes come, in record order, from the store's hash file.
      keptHashes = HashesReader.open(files.listed(meta, StoreFile.HASHES), meta);
      hasher = RecordHasher.keptHashes(keptHashes);
    }
    FileChannel channel = null;
    try {
      FileRegion data = files.listed(meta, StoreFile.DATA);
      CorruptStoreException.check(
          data.length() == meta.dataBytes() + StoreFile.DATA.envelopeLength(),
          data + ": " + data.length() + " bytes do not hold a payload of " + meta.dataBytes());
      channel = FileChannel.open(data.file(), StandardOpenOption.READ);
      int stored = StoreFileReader.checkEnvelope(channel, data, StoreFile.DATA, meta.dataFormatVersion());
      CorruptStoreException.check(
          stored == meta.file(StoreFile.DATA).checksum(), data + ": checksum differs from the meta file's");
      channel.position(data.offset());
      CRC32C crc = new CRC32C();
      // The checksum covers everything before the footer: the stream ends there.
      InputStream beforeFooter = new BoundedInputStream(Channels.newInputStream(channel), data.length() - StoreFile.FOOTER_LENGTH);
      CheckedInputStream checked = new CheckedInputStream(beforeFooter, crc);
      checked.readNBytes(StoreFile.DATA.payloadOffset());
      return new StoreScan(meta, starts, data, checked, crc, stored, hasher, keptHashes);
    } catch (IOException | RuntimeException e) {
      Closeables.closeAll(channel, keptHashes);
      throw e;
    }
  }

  /** Reads the file of {@code kind} in full, checked against its envelope and the meta's checksum. */
  private static <T> T readChecked(StoreFiles files, StoreMeta meta, StoreFile kind, StoreFileReader.PayloadParser<T> parser)
      throws IOException {
    return StoreFileReader.read(files.listed(meta, kind), kind, meta.file(kind).checksum(), parser);
  }

  StoreMeta meta() {
    return meta;
  }

  @Override
  void finished() throws IOException {
    CorruptStoreException.check(
        position() == meta.dataBytes(), data + ": the records end at " + position() + ", not at " + meta.dataBytes());
    // Draining the stream passes the rest of what precedes the footer through the checksum.
    CorruptStoreException.check(!drain(), data + ": bytes after the last record");
    long checksummed = crc.getValue();
    CorruptStoreException.check(
        (int) checksummed == storedChecksum, data + ": checksum mismatch (the data file is damaged)");
  }

  /** The starts of a finished store's records, from its offsets. */
  private static final class EliasFanoStarts implements Starts {
    private final EliasFano offsets;

    EliasFanoStarts(EliasFano offsets) {
      this.offsets = offsets;
    }

    @Override
    public long start(long rank, long previousEnd) {
      return offsets.get(rank);
    }
  }

  /**
   * The starts of a sparse store's records: back to back within a block, each block's first at the
   * start its table gives.
   */
  private static final class BlockStarts implements Starts {
    private final RecordBlocks blocks;
    /** The next block whose first record is still ahead. */
    private long nextBlock;

    BlockStarts(RecordBlocks blocks) {
      this.blocks = blocks;
    }

    @Override
    public long start(long rank, long previousEnd) {
      long start = previousEnd;
      while (nextBlock < blocks.blockCount() && blocks.firstRank(nextBlock) <= rank) {
        if (blocks.firstRank(nextBlock) == rank) {
          start = blocks.firstStart(nextBlock);
        }
        nextBlock++;
      }
      return start;
    }
  }

  /**
   * The starts of a paged store's records: back to back within a frame, each frame's first after
   * its head, where the page table says the head is.
   */
  private static final class PageStarts implements Starts {
    private final PageTable pages;
    /** The next frame whose records are still ahead. */
    private int nextFrame;
    /** The rank of the first record of {@link #nextFrame}. */
    private long nextFrameRank;

    PageStarts(PageTable pages) {
      this.pages = pages;
    }

    @Override
    public long start(long rank, long previousEnd) {
      while (nextFrame < pages.frameCount() && pages.count(nextFrame) == 0) {
        nextFrame++;
      }
      if (nextFrame < pages.frameCount() && nextFrameRank == rank) {
        long start = (long) nextFrame * pages.pageBytes() + pages.recordsStart(nextFrame);
        nextFrameRank += pages.count(nextFrame);
        nextFrame++;
        return start;
      }
      return previousEnd;
    }
  }
}
