package io.varve.core.store;

import io.varve.core.files.FileReadInterrupted;
import io.varve.core.format.BoundedInputStream;
import io.varve.core.format.CorruptStoreException;
import io.varve.core.format.FileRegion;
import java.io.BufferedInputStream;
import java.io.Closeable;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.StandardOpenOption;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Reads a {@link HashesFile hashes file} sequentially, one record's key hash per {@link #next}.
 * Not thread-safe.
 */
public final class HashesReader implements Closeable {
  private final String path;
  private final DataInputStream in;
  private final long count;
  private long read;

  private HashesReader(String path, InputStream raw, long count) throws IOException {
    this.path = path;
    this.count = count;
    // Named: a read cut short by an interrupt (a verify, a merge) says which file it was reading.
    this.in = new DataInputStream(new BufferedInputStream(FileReadInterrupted.naming(path, raw), 1 << 16));
    try {
      byte[] header = in.readNBytes(StoreFile.HASHES.headerLength());
      StoreFile.HASHES.checkHeader(header, path);
      in.skipNBytes(StoreFile.HASHES.payloadOffset() - StoreFile.HASHES.headerLength());
    } catch (IOException | RuntimeException e) {
      in.close();
      throw e;
    }
  }

  /**
   * Opens the hashes file of the store whose meta is {@code meta}, in its directory {@code
   * directory}, after checking its size against the meta file and its whole checksum (one pass)
   * against the footer and the meta file: a merge or re-index uses every hash.
   *
   * @throws CorruptStoreException naming the file on any defect
   */
  public static HashesReader open(Path directory, StoreMeta meta) throws IOException {
    Path path = directory.resolve(StoreFile.HASHES.fileName());
    HashesFile.checkSize(meta, path);
    int checksum = StoreFileReader.verify(path, StoreFile.HASHES);
    CorruptStoreException.check(
        checksum == meta.file(StoreFile.HASHES).checksum(), path + ": checksum differs from the meta file's");
    return new HashesReader(path.toString(), Files.newInputStream(path), meta.recordCount());
  }

  /**
   * {@link #open(Path, StoreMeta)} of a hashes file that lies in {@code region} (an artifact's
   * entry), checked the same way.
   */
  public static HashesReader open(FileRegion region, StoreMeta meta) throws IOException {
    CorruptStoreException.check(
        meta.file(StoreFile.HASHES).size() == HashesFile.fileSize(meta.recordCount()) && region.length() == meta.file(StoreFile.HASHES).size(),
        region + ": does not hold the " + meta.recordCount() + " hashes the meta file records");
    int checksum = StoreFileReader.verify(region, StoreFile.HASHES);
    CorruptStoreException.check(
        checksum == meta.file(StoreFile.HASHES).checksum(), region + ": checksum differs from the meta file's");
    FileChannel channel = FileChannel.open(region.file(), StandardOpenOption.READ);
    try {
      FileReadInterrupted.reading(region.name(), () -> channel.position(region.offset())); // interruptible too
      return new HashesReader(region.name(), new BoundedInputStream(Channels.newInputStream(channel), region.length()), meta.recordCount());
    } catch (IOException | RuntimeException e) {
      channel.close();
      throw e;
    }
  }

  /**
   * Opens a hashes file still being written by a {@link HashesWriter} (flushed, without its
   * footer yet), to read back its first {@code count} hashes.
   */
  public static HashesReader openUnfinished(Path path, long count) throws IOException {
    return new HashesReader(path.toString(), Files.newInputStream(path), count);
  }

  /** The number of hashes this reader returns. */
  public long count() {
    return count;
  }

  /**
   * Reads the next record's hash into {@code hash[0]} (hi) and {@code hash[1]} (lo).
   *
   * @throws IllegalStateException past the last hash
   * @throws CorruptStoreException when the file ends early
   */
  public void next(long[] hash) throws IOException {
    if (read == count) {
      throw new IllegalStateException(path + ": all " + count + " hashes were read");
    }
    try {
      hash[0] = in.readLong();
      hash[1] = in.readLong();
    } catch (EOFException e) {
      throw new CorruptStoreException(path + ": ends after " + read + " of " + count + " hashes", e);
    }
    read++;
  }

  @Override
  public void close() throws IOException {
    in.close();
  }
}
