package io.varve.core.store;

import io.varve.core.files.FileReadInterrupted;
import io.varve.core.format.BoundedInputStream;
import io.varve.core.format.CorruptStoreException;
import io.varve.core.format.FileRegion;
import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.zip.CRC32C;

/**
 * Reads and checks store files written by {@link StoreFileWriter}: the header, the footer and
 * the checksum, before any payload byte is interpreted; every defect is a {@link
 * CorruptStoreException} that names the file. Stateless and thread-safe.
 */
public final class StoreFileReader {
  private static final int CHUNK_BYTES = 1 << 20;

  private StoreFileReader() {}

  /** Parses a payload given as a stream that ends exactly where the payload ends. */
  @FunctionalInterface
  public interface PayloadParser<T> {
    T parse(DataInputStream payload, long payloadLength) throws IOException;
  }

  /** Parses a payload of a format whose versions differ in layout: told the version found. */
  @FunctionalInterface
  public interface VersionedPayloadParser<T> {
    T parse(DataInputStream payload, long payloadLength, int version) throws IOException;
  }

  /**
   * Checks {@code path} as a file of kind {@code kind}: size, header, footer magic, and the
   * checksum over all of it (one sequential pass).
   *
   * @return the checksum stored in (and matching) the footer
   * @throws CorruptStoreException on any defect
   */
  public static int verify(Path path, StoreFile kind) throws IOException {
    return FileReadInterrupted.reading(path.toString(), () -> {
      try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
        return verify(channel, FileRegion.whole(path, channel.size()), kind);
      }
    });
  }

  /** {@link #verify(Path, StoreFile)} of a file that lies in {@code region} (an artifact's entry, say). */
  public static int verify(FileRegion region, StoreFile kind) throws IOException {
    return FileReadInterrupted.reading(region.name(), () -> {
      try (FileChannel channel = FileChannel.open(region.file(), StandardOpenOption.READ)) {
        return verify(channel, region, kind);
      }
    });
  }

  private static int verify(FileChannel channel, FileRegion region, StoreFile kind) throws IOException {
    long size = region.length();
    int stored = checkEnvelope(channel, region, kind, -1);
    CRC32C crc = new CRC32C();
    // On the heap: a direct buffer per call is freed only by a GC, and calls that come faster than
    // collections (a verify loop in a quiet process) ran out of direct memory.
    ByteBuffer buffer = ByteBuffer.allocate((int) Math.min(CHUNK_BYTES, Math.max(1, size)));
    long position = 0;
    long end = size - StoreFile.FOOTER_LENGTH;
    while (position < end) {
      buffer.clear().limit((int) Math.min(buffer.capacity(), end - position));
      int read = channel.read(buffer, region.offset() + position);
      CorruptStoreException.check(read > 0, region + ": file shrank while being read");
      position += read;
      buffer.flip();
      crc.update(buffer);
    }
    kind.envelope().checkChecksum(stored, (int) crc.getValue(), region.name());
    return stored;
  }

  /**
   * Checks the file's size, header and footer magic without reading the payload.
   *
   * @return the checksum stored in the footer
   */
  public static int checkEnvelope(FileChannel channel, Path path, StoreFile kind) throws IOException {
    return checkEnvelope(channel, path, kind, -1);
  }

  /**
   * {@link #checkEnvelope(FileChannel, Path, StoreFile)}, and that the file is of format version
   * {@code version}, the one its store's meta file implies (-1: any supported).
   */
  public static int checkEnvelope(FileChannel channel, Path path, StoreFile kind, int version) throws IOException {
    return checkEnvelope(channel, FileRegion.whole(path, channel.size()), kind, version);
  }

  /**
   * {@link #checkEnvelope(FileChannel, Path, StoreFile, int)} of a file that lies in {@code region}
   * of {@code channel}'s file.
   */
  public static int checkEnvelope(FileChannel channel, FileRegion region, StoreFile kind, int version) throws IOException {
    long size = region.length();
    CorruptStoreException.check(
        size >= kind.envelopeLength(),
        region + ": " + size + " bytes is too short for a " + kind.formatName() + " file (truncated)");
    ByteBuffer header = ByteBuffer.allocate(kind.headerLength());
    readFully(channel, header, region.offset(), region);
    int found = kind.checkHeader(header.array(), region.name());
    CorruptStoreException.check(
        version < 0 || found == version,
        region + ": " + kind.formatName() + " format version " + found + ", but the meta file describes version " + version);
    ByteBuffer footer = ByteBuffer.allocate(StoreFile.FOOTER_LENGTH);
    readFully(channel, footer, region.end() - StoreFile.FOOTER_LENGTH, region);
    return kind.envelope().storedChecksum(footer.flip(), region.name());
  }

  /**
   * {@link #verify Verifies} the file, then parses its payload with {@code parser}, which must
   * consume it exactly.
   *
   * @throws CorruptStoreException on any defect, including a payload the parser does not consume
   *     exactly or ends early
   */
  public static <T> T read(Path path, StoreFile kind, PayloadParser<T> parser) throws IOException {
    return read(path, kind, (VersionedPayloadParser<T>) (payload, payloadLength, version) -> parser.parse(payload, payloadLength));
  }

  /** {@link #read(Path, StoreFile, PayloadParser)}, telling the parser the file's format version. */
  public static <T> T read(Path path, StoreFile kind, VersionedPayloadParser<T> parser) throws IOException {
    verify(path, kind);
    return parseVerified(path, kind, parser);
  }

  /**
   * {@link #read(Path, StoreFile, PayloadParser)} of a file whose checksum its store's meta file
   * records as {@code expectedChecksum}: the one pass that verifies the file also refuses it unless
   * its checksum is that one.
   */
  public static <T> T read(Path path, StoreFile kind, int expectedChecksum, PayloadParser<T> parser) throws IOException {
    return FileReadInterrupted.reading(path.toString(), () -> {
      try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
        return read(channel, FileRegion.whole(path, channel.size()), kind, expectedChecksum, parser);
      }
    });
  }

  /**
   * {@link #read(Path, StoreFile, int, PayloadParser)} of a file that lies in {@code region} (an
   * artifact's entry, say).
   */
  public static <T> T read(FileRegion region, StoreFile kind, int expectedChecksum, PayloadParser<T> parser) throws IOException {
    return FileReadInterrupted.reading(region.name(), () -> {
      try (FileChannel channel = FileChannel.open(region.file(), StandardOpenOption.READ)) {
        return read(channel, region, kind, expectedChecksum, parser);
      }
    });
  }

  /** {@link #read(Path, StoreFile, VersionedPayloadParser)} of a file that lies in {@code region}. */
  public static <T> T read(FileRegion region, StoreFile kind, VersionedPayloadParser<T> parser) throws IOException {
    return FileReadInterrupted.reading(region.name(), () -> {
      try (FileChannel channel = FileChannel.open(region.file(), StandardOpenOption.READ)) {
        verify(channel, region, kind);
        return parseVerified(channel, region, kind, parser);
      }
    });
  }

  private static <T> T read(FileChannel channel, FileRegion region, StoreFile kind, int expectedChecksum, PayloadParser<T> parser)
      throws IOException {
    CorruptStoreException.check(verify(channel, region, kind) == expectedChecksum, region + ": checksum differs from the meta file's");
    return parseVerified(channel, region, kind, (payload, payloadLength, version) -> parser.parse(payload, payloadLength));
  }

  private static <T> T parseVerified(Path path, StoreFile kind, VersionedPayloadParser<T> parser) throws IOException {
    return FileReadInterrupted.reading(path.toString(), () -> {
      try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
        return parseVerified(channel, FileRegion.whole(path, channel.size()), kind, parser);
      }
    });
  }

  private static <T> T parseVerified(FileChannel channel, FileRegion region, StoreFile kind, VersionedPayloadParser<T> parser)
      throws IOException {
    long payloadLength = region.length() - kind.envelopeLength();
    ByteBuffer header = ByteBuffer.allocate(kind.headerLength());
    readFully(channel, header, region.offset(), region);
    int version = kind.checkHeader(header.array(), region.name());
    channel.position(region.offset() + kind.payloadOffset());
    BoundedInputStream bounded =
        new BoundedInputStream(new BufferedInputStream(Channels.newInputStream(channel), 1 << 16), payloadLength);
    T parsed;
    try {
      parsed = parser.parse(new DataInputStream(bounded), payloadLength, version);
    } catch (EOFException e) {
      throw new CorruptStoreException(region + ": payload ends early", e);
    } catch (CorruptStoreException e) {
      throw new CorruptStoreException(region + ": " + e.getMessage(), e);
    }
    CorruptStoreException.check(
        bounded.remaining() == 0, region + ": " + bounded.remaining() + " unexpected bytes after the payload");
    return parsed;
  }

  private static void readFully(FileChannel channel, ByteBuffer buffer, long position, FileRegion region)
      throws IOException {
    while (buffer.hasRemaining()) {
      int read = channel.read(buffer, position + buffer.position());
      CorruptStoreException.check(read > 0, region + ": truncated");
    }
  }
}
