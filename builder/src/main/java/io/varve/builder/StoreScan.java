package io.varve.builder;

import io.varve.core.format.BoundedInputStream;
import io.varve.core.format.CorruptStoreException;
import io.varve.core.store.HashesReader;
import io.varve.core.store.RecordBlocks;
import io.varve.core.store.StoreFile;
import io.varve.core.store.StoreFileReader;
import io.varve.core.store.StoreMeta;
import io.varve.core.succinct.EliasFano;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.zip.CRC32C;
import java.util.zip.CheckedInputStream;

/**
 * A sequential scan of a finished store's records in hash order, with their key hashes: what a
 * merge reads its old stores with. The data file is streamed once and checked as it goes: its
 * envelope and its size and checksum in {@code meta} before the first record, the checksum of
 * every byte after the last, so a damaged store fails the merge instead of spreading into the
 * new one (the offsets file is checked in full as it loads). A store without full keys gives the
 * hashes of its hash file instead (checked in full first). Holds the store's offsets in memory
 * (a few bits per record), or its blocks for a store with a sparse index. Not thread-safe.
 */
final class StoreScan extends DataFileCursor {
  private final StoreMeta meta;
  private final Path dataPath;
  private final CRC32C crc;
  private final int storedChecksum;

  private StoreScan(
      StoreMeta meta,
      Starts starts,
      Path dataPath,
      InputStream data,
      CRC32C crc,
      int storedChecksum,
      RecordHasher hasher,
      java.io.Closeable hashes) {
    super(
        data,
        meta.recordCount(),
        starts,
        meta.keyLength(),
        meta.valueLength(),
        meta.pageBytes(),
        meta.checkBytes(),
        hasher,
        () -> Closeables.closeAll(data, hashes));
    this.meta = meta;
    this.dataPath = dataPath;
    this.crc = crc;
    this.storedChecksum = storedChecksum;
  }

  /** Reads the meta of the store in {@code directory} (checked in full). */
  static StoreMeta readMeta(Path directory) throws IOException {
    return StoreMeta.read(directory.resolve(StoreFile.META.fileName()));
  }

  /**
   * Opens a scan of the store in {@code directory}, whose meta was read by {@link #readMeta}, hashing
   * keys with {@code hasher} (which must be the store's: its seed orders the records).
   */
  static StoreScan open(Path directory, StoreMeta meta, RecordHasher hasher) throws IOException {
    for (StoreMeta.FileEntry entry : meta.files()) {
      Path file = directory.resolve(entry.name());
      CorruptStoreException.check(Files.exists(file), file + ": missing, but the meta file lists it (damaged store)");
    }
    Starts starts = null;
    if (meta.isSparse()) {
      Path blocksPath = directory.resolve(StoreFile.BLOCKS.fileName());
      RecordBlocks blocks =
          StoreFileReader.read(
              blocksPath,
              StoreFile.BLOCKS,
              (in, length) -> RecordBlocks.readFrom(in, meta.recordCount(), meta.dataBytes(), meta.pageBytes()));
      starts = meta.keyLength() < 0 ? new BlockStarts(blocks) : null;
    } else if (meta.keyLength() < 0) {
      EliasFano offsets;
      Path offsetsPath = directory.resolve(StoreFile.OFFSETS.fileName());
      offsets = StoreFileReader.read(offsetsPath, StoreFile.OFFSETS, (in, length) -> EliasFano.readFrom(in, meta.recordCount() + 1));
      CorruptStoreException.check(
          offsets.size() == meta.recordCount() + 1 && offsets.get(meta.recordCount()) == meta.dataBytes(),
          offsetsPath + ": does not hold " + meta.recordCount() + " records of " + meta.dataBytes() + " bytes");
      starts = new EliasFanoStarts(offsets);
    }
    HashesReader keptHashes = null;
    if (!meta.keyMode().keepsKeys()) {
      // No keys to hash: the hashes come, in record order, from the store's hash file.
      keptHashes = HashesReader.open(directory, meta);
      hasher = RecordHasher.keptHashes(keptHashes);
    }
    Path dataPath = directory.resolve(StoreFile.DATA.fileName());
    FileChannel channel;
    try {
      channel = FileChannel.open(dataPath, StandardOpenOption.READ);
    } catch (IOException | RuntimeException e) {
      if (keptHashes != null) {
        keptHashes.close();
      }
      throw e;
    }
    try {
      int stored = StoreFileReader.checkEnvelope(channel, dataPath, StoreFile.DATA, meta.dataFormatVersion());
      StoreMeta.FileEntry entry = meta.file(StoreFile.DATA);
      CorruptStoreException.check(
          entry != null && entry.size() == channel.size() && entry.checksum() == stored,
          dataPath + ": size or checksum differs from what meta records");
      CorruptStoreException.check(
          channel.size() == meta.dataBytes() + StoreFile.DATA.envelopeLength(),
          dataPath + ": " + channel.size() + " bytes do not hold a payload of " + meta.dataBytes());
      channel.position(0);
      CRC32C crc = new CRC32C();
      // The checksum covers everything before the footer: the stream ends there.
      InputStream beforeFooter = new BoundedInputStream(Channels.newInputStream(channel), channel.size() - StoreFile.FOOTER_LENGTH);
      CheckedInputStream checked = new CheckedInputStream(beforeFooter, crc);
      checked.readNBytes(StoreFile.DATA.payloadOffset());
      return new StoreScan(meta, starts, dataPath, checked, crc, stored, hasher, keptHashes);
    } catch (IOException | RuntimeException e) {
      Closeables.closeAll(channel, keptHashes);
      throw e;
    }
  }

  StoreMeta meta() {
    return meta;
  }

  @Override
  void finished() throws IOException {
    CorruptStoreException.check(
        position() == meta.dataBytes(), dataPath + ": the records end at " + position() + ", not at " + meta.dataBytes());
    // Draining the stream passes the rest of what precedes the footer through the checksum.
    CorruptStoreException.check(!drain(), dataPath + ": bytes after the last record");
    long checksummed = crc.getValue();
    CorruptStoreException.check(
        (int) checksummed == storedChecksum, dataPath + ": checksum mismatch (the data file is damaged)");
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
}
