package io.varve.reader;

import io.varve.core.format.CorruptStoreException;
import java.io.IOException;
import java.nio.ByteOrder;
import java.nio.file.Path;
import net.openhft.chronicle.bytes.MappedBytesStore;
import net.openhft.chronicle.bytes.MappedFile;
import net.openhft.chronicle.core.io.BackgroundResourceReleaser;
import net.openhft.chronicle.core.io.ReferenceOwner;
import net.openhft.posix.MAdviseFlag;
import net.openhft.posix.PosixAPI;

/**
 * A read-only memory mapping of a whole file through Chronicle Bytes (one mapping, no 2 GiB
 * limit). Reads are bounds-checked against the file's length by the caller ({@link Store}
 * validates every position before reading), so this class adds no checks of its own on the hot
 * path. Thread-safe for reads; {@link #close()} must not run concurrently with reads ({@link
 * Store} guarantees that).
 */
final class MappedData {
  private static final boolean LITTLE_ENDIAN = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;

  private final ReferenceOwner owner;
  private final MappedFile file;
  private final MappedBytesStore bytes;
  private final long length;

  private MappedData(ReferenceOwner owner, MappedFile file, MappedBytesStore bytes, long length) {
    this.owner = owner;
    this.file = file;
    this.bytes = bytes;
    this.length = length;
  }

  /** Maps {@code length} bytes of {@code path} (its size as validated by the caller). */
  static MappedData map(Path path, long length) throws IOException {
    ChronicleAccess.check();
    ReferenceOwner owner = ReferenceOwner.temporary("varve:" + path);
    MappedFile file = MappedFile.ofSingle(path.toFile(), Math.max(1, length), true);
    try {
      MappedBytesStore bytes = file.acquireByteStore(owner, 0);
      if (bytes.capacity() < length) {
        throw new CorruptStoreException(path + ": mapped " + bytes.capacity() + " of " + length + " bytes");
      }
      adviseRandomAccess(bytes, length);
      return new MappedData(owner, file, bytes, length);
    } catch (IOException | RuntimeException e) {
      file.releaseLast();
      throw e;
    }
  }

  long length() {
    return length;
  }

  /**
   * Lookups touch one record at a random place: without this advice a page fault makes the kernel
   * read around it (128 KiB by default), 32 times the bytes a small record needs, evicting useful
   * pages. Best effort: where the advice cannot be given, lookups are still correct.
   */
  private static void adviseRandomAccess(MappedBytesStore bytes, long length) {
    if (length == 0) {
      return;
    }
    try {
      PosixAPI.posix().madvise(bytes.addressForRead(0), length, MAdviseFlag.MADV_RANDOM);
    } catch (RuntimeException | LinkageError unavailable) {
      // No native access on this platform: keep the kernel's default read-ahead.
    }
  }

  /** The eight bytes at {@code position} as a little-endian long (byte 0 lowest). */
  long readLittleEndianLong(long position) {
    long value = bytes.readLong(position);
    return LITTLE_ENDIAN ? value : Long.reverseBytes(value);
  }

  /** The eight bytes at {@code position} in native order. */
  long readNativeLong(long position) {
    return bytes.readLong(position);
  }

  byte readByte(long position) {
    return bytes.readByte(position);
  }

  void read(long position, byte[] target, int offset, int count) {
    if (count > 0) {
      bytes.read(position, target, offset, count);
    }
  }

  /** Unmaps the file (synchronously: the mapping is gone when this returns). */
  void close() {
    bytes.release(owner);
    bytes.releaseLast();
    file.releaseLast();
    BackgroundResourceReleaser.releasePendingResources();
  }
}
