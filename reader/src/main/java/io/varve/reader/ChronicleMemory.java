package io.varve.reader;

import io.varve.core.format.CorruptStoreException;
import io.varve.core.format.FileRegion;
import io.varve.core.store.RecordChecksum;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import net.openhft.chronicle.bytes.MappedBytesStore;
import net.openhft.chronicle.bytes.MappedFile;
import net.openhft.chronicle.core.Jvm;
import net.openhft.chronicle.core.UnsafeMemory;
import net.openhft.chronicle.core.io.BackgroundResourceReleaser;
import net.openhft.chronicle.core.io.IORuntimeException;
import net.openhft.chronicle.core.io.ReferenceOwner;
import net.openhft.posix.MAdviseFlag;
import net.openhft.posix.PosixAPI;

/**
 * {@link RecordMemory} at a native address, through Chronicle Bytes: either a read-only memory
 * mapping of the file ({@link #map}: one mapping, no 2 GiB limit, pages read on demand, advised
 * random access) or a copy of the file in memory outside the Java heap ({@link #load}: 2 MiB pages
 * where the operating system allows). Needs the JVM options of {@link ChronicleAccess}. Thread-safe
 * for reads; {@link #close()} must not run concurrently with reads ({@link Store} guarantees that).
 */
final class ChronicleMemory extends RecordMemory {
  private static final boolean LITTLE_ENDIAN = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;
  private static final UnsafeMemory MEMORY = UnsafeMemory.MEMORY;
  /** The size of a transparent huge page on x86-64 and (with 4 KiB base pages) on AArch64. */
  static final long HUGE_PAGE = 2L << 20;
  /** Bytes read per call while loading: the direct buffer a load reads through. */
  private static final long LOAD_CHUNK = 1L << 20;

  private final long address;
  private final long length;
  private final Runnable release;

  private ChronicleMemory(long address, long length, Runnable release) {
    this.address = address;
    this.length = length;
    this.release = release;
  }

  /**
   * Maps the bytes of {@code region} (its bounds as validated by the caller), advising the kernel
   * that access is random. A region inside a larger file (an artifact's entry) is reached by
   * mapping the file up to the region's end and adding its offset to the address once, here: a
   * lookup pays nothing for it.
   */
  static RecordMemory map(FileRegion region) throws IOException {
    Mapping mapping = Mapping.of(region.file(), region.end());
    long address = mapping.address() + region.offset();
    advise(address, region.length(), MAdviseFlag.MADV_RANDOM.value());
    return new ChronicleMemory(address, region.length(), mapping::close);
  }

  /**
   * Copies the bytes of {@code region} into memory allocated outside the heap, advised to be
   * backed by transparent huge pages. The file is read, not mapped: a file cut while it is copied
   * then ends the read early, where a mapped copy's fault would reach the caller as the JVM's
   * {@code InternalError}, perhaps only after the load returned.
   *
   * @throws EOFException naming the file when it holds fewer bytes than the region
   */
  static RecordMemory load(FileRegion region) throws IOException {
    long length = region.length();
    long allocated = Math.max(1, length);
    long address = MEMORY.allocate(allocated);
    try {
      adviseHugePages(address, allocated);
      readInto(region, address);
    } catch (IOException | RuntimeException | Error e) {
      MEMORY.freeMemory(address, allocated);
      throw e;
    }
    return new ChronicleMemory(address, length, () -> MEMORY.freeMemory(address, allocated));
  }

  /** Reads the bytes of {@code region} into the native memory at {@code address}, through one direct buffer. */
  private static void readInto(FileRegion region, long address) throws IOException {
    ByteBuffer piece = ByteBuffer.allocateDirect((int) Math.min(LOAD_CHUNK, Math.max(1, region.length())));
    try (FileChannel channel = FileChannel.open(region.file(), StandardOpenOption.READ)) {
      long pieceAddress = Jvm.address(piece);
      for (long copied = 0; copied < region.length(); ) {
        piece.clear().limit((int) Math.min(piece.capacity(), region.length() - copied));
        while (piece.hasRemaining()) {
          if (channel.read(piece, region.offset() + copied + piece.position()) < 0) {
            throw new EOFException(
                region.file() + ": ended at byte " + (region.offset() + copied + piece.position())
                    + ", short of the " + region.end() + " bytes checked when the store was opened (cut while loading)");
          }
        }
        MEMORY.copyMemory(pieceAddress, address + copied, piece.limit());
        copied += piece.limit();
      }
    } finally {
      BufferMemory.free(piece);
    }
  }

  /**
   * Asks for huge pages on the whole 2 MiB pages inside {@code [address, address + length)},
   * before they are first touched (the kernel backs a page with a huge page at its first fault).
   */
  private static void adviseHugePages(long address, long length) {
    long first = (address + HUGE_PAGE - 1) & -HUGE_PAGE;
    long end = (address + length) & -HUGE_PAGE;
    if (end > first) {
      advise(first, end - first, MAdviseFlag.MADV_HUGEPAGE.value());
    }
  }

  /**
   * Best effort: where the advice cannot be given (no native access, another operating system,
   * transparent huge pages disabled) lookups are still correct, only slower.
   */
  private static void advise(long address, long length, int advice) {
    if (length == 0) {
      return;
    }
    try {
      PosixAPI.posix().madvise(address, length, advice);
    } catch (RuntimeException | LinkageError unavailable) {
      // Nothing to do: the advice is an optimisation.
    }
  }

  @Override
  long length() {
    return length;
  }

  /** The eight bytes at {@code position} as a little-endian long (byte 0 lowest). */
  @Override
  long readLittleEndianLong(long position) {
    long value = MEMORY.readLong(address + position);
    return LITTLE_ENDIAN ? value : Long.reverseBytes(value);
  }

  /** The eight bytes at {@code position} in native order. */
  @Override
  long readNativeLong(long position) {
    return MEMORY.readLong(address + position);
  }

  /** The four bytes at {@code position} as a little-endian int (byte 0 lowest). */
  @Override
  int readLittleEndianInt(long position) {
    int value = MEMORY.readInt(address + position);
    return LITTLE_ENDIAN ? value : Integer.reverseBytes(value);
  }

  /** The {@link RecordChecksum} of the {@code length} bytes at {@code position}, a record starting at {@code payloadOffset}. */
  @Override
  int xxh3Checksum(long position, long length, long payloadOffset) {
    return RecordChecksum.XXH3.ofMemory(address + position, length, payloadOffset);
  }

  @Override
  byte readByte(long position) {
    return MEMORY.readByte(address + position);
  }

  @Override
  void read(long position, byte[] target, int offset, int count) {
    if (count > 0) {
      MEMORY.readBytes(address + position, target, offset, count);
    }
  }

  /** Unmaps or frees the bytes (synchronously: they are gone when this returns). */
  @Override
  void close() {
    release.run();
  }

  /** A read-only mapping of a whole file, held until {@link #close()}. */
  private static final class Mapping {
    private final ReferenceOwner owner;
    private final MappedFile file;
    private final MappedBytesStore bytes;

    private Mapping(ReferenceOwner owner, MappedFile file, MappedBytesStore bytes) {
      this.owner = owner;
      this.file = file;
      this.bytes = bytes;
    }

    /**
     * Maps the first {@code length} bytes of {@code path}.
     *
     * @throws IOException naming the file when the kernel refuses the mapping (no mappings left
     *     under {@code vm.max_map_count}, no address space, a file system that cannot map files),
     *     which Chronicle Bytes reports unchecked
     */
    static Mapping of(Path path, long length) throws IOException {
      ChronicleAccess.check();
      ReferenceOwner owner = ReferenceOwner.temporary("varve:" + path);
      MappedFile file;
      try {
        file = MappedFile.ofSingle(path.toFile(), Math.max(1, length), true);
      } catch (IORuntimeException e) {
        throw cannotMap(path, e);
      }
      try {
        MappedBytesStore bytes = file.acquireByteStore(owner, 0);
        if (bytes.capacity() < length) {
          bytes.release(owner);
          throw new CorruptStoreException(path + ": mapped " + bytes.capacity() + " of " + length + " bytes");
        }
        closeDescriptor(file);
        return new Mapping(owner, file, bytes);
      } catch (IORuntimeException e) {
        file.releaseLast();
        throw cannotMap(path, e);
      } catch (IOException | RuntimeException e) {
        file.releaseLast();
        throw e;
      }
    }

    /**
     * Closes the file's descriptor, which the mapping outlives (nothing reads the file through it):
     * held for as long as the store is open, one per store made a sharded store of a thousand
     * shards fail to open under the usual limit of 1,024 descriptors, and a swap of two such
     * versions need twice that. Best effort: a descriptor that cannot be closed now is closed with
     * the mapping.
     */
    private static void closeDescriptor(MappedFile file) {
      try {
        file.raf().close();
      } catch (IOException | RuntimeException keptUntilClose) {
        // Closed with the mapping instead.
      }
    }

    private static IOException cannotMap(Path path, IORuntimeException e) {
      Throwable cause = e.getCause() != null ? e.getCause() : e;
      return new IOException(path + ": cannot be mapped: " + cause.getMessage(), e);
    }

    long address() {
      return bytes.addressForRead(0);
    }

    void close() {
      bytes.release(owner);
      bytes.releaseLast();
      file.releaseLast();
      BackgroundResourceReleaser.releasePendingResources();
    }
  }
}
