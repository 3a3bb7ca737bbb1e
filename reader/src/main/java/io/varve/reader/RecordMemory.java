package io.varve.reader;

import io.varve.core.files.FileReadInterrupted;
import io.varve.core.format.FileRegion;
import io.varve.core.store.RecordChecksum;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.zip.CRC32C;

/**
 * The bytes of a store's data file, addressable for lookups. Through Chronicle Bytes ({@link
 * ChronicleMemory}: native addresses, one mapping of any size) when the JVM grants the options of
 * {@link ChronicleAccess}; otherwise through plain {@code FileChannel} mappings ({@link
 * BufferMemory}: one {@code MappedByteBuffer} per GiB), so that a store opens without JVM flags.
 * Reads are bounds-checked against the file's length by the caller ({@link Records} validates every
 * position before reading), so implementations add no checks of their own on the hot path.
 * Thread-safe for reads; {@link #close()} must not run concurrently with reads ({@link Store}
 * guarantees that).
 */
abstract class RecordMemory {
  private static final AtomicBoolean FALLBACK_LOGGED = new AtomicBoolean();
  private static final ThreadLocal<byte[]> PIECE = ThreadLocal.withInitial(() -> new byte[4096]);

  /**
   * Opens the data file in {@code region} (a whole file, or an artifact's entry; its bounds as
   * validated by the caller): positions given to the memory are relative to the region's start.
   */
  @FunctionalInterface
  interface Opener {
    RecordMemory open(FileRegion region, DataAccess access) throws IOException;
  }

  /** The bytes of {@code region} reached as {@code access} says, the fastest way this JVM allows. */
  static RecordMemory open(FileRegion region, DataAccess access) throws IOException {
    if (ChronicleAccess.isGranted()) {
      // Chronicle's mapping wraps the channel's exception in its own: named here, once for both.
      return FileReadInterrupted.reading(region.name(),
          () -> access == DataAccess.LOADED ? ChronicleMemory.load(region) : ChronicleMemory.map(region));
    }
    if (FALLBACK_LOGGED.compareAndSet(false, true)) {
      System.getLogger(Store.class.getName())
          .log(
              Level.INFO,
              "Varve reads stores through FileChannel mappings: the JVM lacks the options for the faster Chronicle Bytes path ({0})",
              String.join(" ", ChronicleAccess.JVM_OPTIONS));
    }
    return BufferMemory.open(region, access, BufferMemory.CHUNK_SHIFT);
  }

  abstract long length();

  /** The eight bytes at {@code position} as a little-endian long (byte 0 lowest). */
  abstract long readLittleEndianLong(long position);

  /** The eight bytes at {@code position} in any order: a touch that brings them into the cache. */
  abstract long readNativeLong(long position);

  /** The four bytes at {@code position} as a little-endian int (byte 0 lowest). */
  abstract int readLittleEndianInt(long position);

  /**
   * The check by {@code function} of the {@code length} bytes at {@code position}, a record starting
   * at {@code payloadOffset}. A function that {@link RecordChecksum#streaming streams} checks the
   * bytes copied into this thread's scratch array, piece by piece when they do not fit it.
   */
  final int checksum(long position, long length, long payloadOffset, RecordChecksum function) {
    if (!function.streaming()) {
      return xxh3Checksum(position, length, payloadOffset);
    }
    byte[] piece = PIECE.get();
    if (length <= piece.length) {
      read(position, piece, 0, (int) length);
      return function.of(piece, 0, (int) length, payloadOffset);
    }
    RecordChecksum.Stream stream = function.stream();
    for (long done = 0; done < length; ) {
      int n = (int) Math.min(piece.length, length - done);
      read(position + done, piece, 0, n);
      stream.update(piece, 0, n);
      done += n;
    }
    return stream.check(payloadOffset);
  }

  /** {@link #checksum} by {@link RecordChecksum#XXH3}, which reads native memory itself. */
  abstract int xxh3Checksum(long position, long length, long payloadOffset);

  /** The CRC32C of the bytes before {@code end}: a file's footer checksum, over a loaded copy. */
  final int crc32c(long end) {
    CRC32C crc = new CRC32C();
    byte[] chunk = new byte[1 << 16]; // allocated per call: only a follower's recovery calls this
    for (long at = 0; at < end; ) {
      int n = (int) Math.min(chunk.length, end - at);
      read(at, chunk, 0, n);
      crc.update(chunk, 0, n);
      at += n;
    }
    return (int) crc.getValue();
  }

  abstract byte readByte(long position);

  abstract void read(long position, byte[] target, int offset, int count);

  /** Unmaps or frees the bytes (synchronously where the JVM allows: no read may follow). */
  abstract void close();
}
