package io.varve.silt;

import io.varve.core.format.CorruptStoreException;
import io.varve.core.format.Envelope;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * Which files make the store now: the sorted store and the logs, oldest first (the last takes the
 * writes). A merge or a new log publishes a new manifest by writing it under a temporary name,
 * forcing it and renaming it over the old; files the manifest does not name are leftovers of
 * work a crash cut short, deleted at the next open.
 *
 * <pre>
 * Manifest := Header nextNumber:int64 sortedNumber:int64 logCount:int32 logNumber:int64[logCount] Footer
 * Header   := magic:int32 = 0x56534C4D ("VSLM") version:uint8 = 1 reserved:uint8[3]
 * Footer   := crc:int32                          (CRC32C of every byte before it)
 * </pre>
 *
 * Numbers name files: the log {@code log-NNNNNNNNNNNNNNNN.vlog}, the sorted store's directory
 * {@code sorted-NNNNNNNNNNNNNNNN} (16 decimal digits); {@code nextNumber} is the next unused one.
 * Immutable; thread-safe.
 */
record SiltManifest(long nextNumber, long sortedNumber, List<Long> logNumbers) {
  static final String FILE = "MANIFEST";
  static final Envelope FORMAT = Envelope.builder("SILT manifest").magic(0x56534C4D).byteVersion().versions(1, 1).build();

  SiltManifest {
    logNumbers = List.copyOf(logNumbers);
  }

  static String logName(long number) {
    return String.format("log-%016d.vlog", number);
  }

  static String sortedName(long number) {
    return String.format("sorted-%016d", number);
  }

  /** This manifest with one number taken: {@code nextNumber} moves on. */
  SiltManifest take() {
    return new SiltManifest(nextNumber + 1, sortedNumber, logNumbers);
  }

  SiltManifest withLogs(List<Long> logs) {
    return new SiltManifest(nextNumber, sortedNumber, logs);
  }

  SiltManifest withSorted(long number, List<Long> logs) {
    return new SiltManifest(nextNumber, number, logs);
  }

  byte[] toBytes() {
    int length = FORMAT.headerLength() + 20 + 8 * logNumbers.size();
    byte[] bytes = new byte[length + FORMAT.footerLength()];
    FORMAT.putHeader(bytes, 0, 1);
    ByteBuffer b = ByteBuffer.wrap(bytes, FORMAT.headerLength(), 20 + 8 * logNumbers.size());
    b.putLong(nextNumber).putLong(sortedNumber).putInt(logNumbers.size());
    logNumbers.forEach(b::putLong);
    FORMAT.putFooter(bytes, 0, length);
    return bytes;
  }

  static SiltManifest fromBytes(byte[] bytes, String source) {
    FORMAT.checkHeader(bytes, source);
    int end = bytes.length - FORMAT.footerLength();
    CorruptStoreException.check(end >= FORMAT.headerLength() + 20, source + ": the manifest is cut short");
    FORMAT.checkFooter(bytes, 0, end, source);
    ByteBuffer b = ByteBuffer.wrap(bytes, FORMAT.headerLength(), end - FORMAT.headerLength());
    long next = b.getLong();
    long sorted = b.getLong();
    int count = b.getInt();
    CorruptStoreException.check(count >= 1 && count == b.remaining() / 8 && b.remaining() % 8 == 0,
        source + ": the manifest lists " + count + " logs in " + b.remaining() + " bytes");
    List<Long> logs = new ArrayList<>(count);
    long previous = -1;
    for (int i = 0; i < count; i++) {
      long log = b.getLong();
      CorruptStoreException.check(log > previous && log < next && log != sorted, source + ": bad log number " + log);
      logs.add(log);
      previous = log;
    }
    CorruptStoreException.check(sorted >= 0 && sorted < next, source + ": bad sorted store number " + sorted);
    return new SiltManifest(next, sorted, logs);
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
    Path temporary = directory.resolve(FILE + ".tmp");
    try (FileChannel channel = FileChannel.open(temporary, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)) {
      ByteBuffer b = ByteBuffer.wrap(toBytes());
      while (b.hasRemaining()) {
        channel.write(b);
      }
      channel.force(true);
    }
    Files.move(temporary, directory.resolve(FILE), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    forceDirectory(directory);
  }

  static void forceDirectory(Path directory) throws IOException {
    try (FileChannel channel = FileChannel.open(directory, StandardOpenOption.READ)) {
      channel.force(true);
    } catch (NoSuchFileException e) {
      throw e;
    } catch (IOException e) {
      // Some file systems cannot force a directory; the rename is then as durable as they make it.
    }
  }
}
