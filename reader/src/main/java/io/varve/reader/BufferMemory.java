package io.varve.reader;

import io.varve.core.files.FileReadInterrupted;
import io.varve.core.format.FileRegion;
import io.varve.core.store.RecordChecksum;
import java.io.EOFException;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * {@link RecordMemory} in plain {@link ByteBuffer}s, for JVMs that do not grant Chronicle Bytes its
 * options: the file in chunks of {@code 2^chunkShift} bytes (1 GiB), each a read-only {@link
 * MappedByteBuffer} ({@link DataAccess#MAPPED}) or a direct buffer holding a copy ({@link
 * DataAccess#LOADED}). Each chunk's buffer also holds the {@value #OVERLAP} bytes after it, so that a
 * long read that starts in a chunk needs no second buffer; longer reads and checksums that cross a
 * chunk's end are stitched together. Slower than {@link ChronicleMemory} (a bounds check per read,
 * a copy per checksum, no advice to the kernel about access) but needs nothing from the JVM.
 * Thread-safe for reads (only absolute gets); {@link #close()} must not run concurrently with reads.
 */
final class BufferMemory extends RecordMemory {
  /** Chunks of 1 GiB: well under a buffer's 2 GiB limit. */
  static final int CHUNK_SHIFT = 30;
  /** Bytes past its chunk that each buffer also holds: a read of a long never straddles two buffers. */
  private static final int OVERLAP = 64;
  /** Checksum copies up to this size are kept per thread; larger ones are allocated per call. */
  private static final int KEPT_COPY_BYTES = 1 << 16;

  private static final ThreadLocal<byte[]> COPY = ThreadLocal.withInitial(() -> new byte[256]);

  private final ByteBuffer[] chunks;
  private final int shift;
  private final long mask;
  private final long length;

  private BufferMemory(ByteBuffer[] chunks, int shift, long length) {
    this.chunks = chunks;
    this.shift = shift;
    this.mask = (1L << shift) - 1;
    this.length = length;
  }

  /**
   * The bytes of {@code region}, mapped or copied as {@code access} says, in chunks of {@code
   * 2^shift} bytes; chunk {@code i} starts at the region's offset plus {@code i << shift}, so a
   * region inside a larger file (an artifact's entry) costs a lookup nothing.
   */
  static BufferMemory open(FileRegion region, DataAccess access, int shift) throws IOException {
    Path path = region.file();
    long length = region.length();
    int count = (int) Math.max(1, (length + (1L << shift) - 1) >>> shift);
    ByteBuffer[] chunks = new ByteBuffer[count];
    try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
      FileReadInterrupted.reading(region.name(), () -> {
        for (int i = 0; i < count; i++) {
          long start = (long) i << shift;
          int size = (int) Math.min(length - start, (1L << shift) + OVERLAP);
          long at = region.offset() + start;
          ByteBuffer chunk = access == DataAccess.LOADED ? copy(channel, path, at, size) : map(channel, path, at, size);
          chunks[i] = chunk.order(ByteOrder.LITTLE_ENDIAN);
        }
        return null;
      });
    } catch (IOException | RuntimeException | Error e) {
      release(chunks);
      throw e;
    }
    return new BufferMemory(chunks, shift, length);
  }

  /** Maps {@code size} bytes at {@code start}; a refusal (no mappings or address space left) names the file. */
  private static ByteBuffer map(FileChannel channel, Path path, long start, int size) throws IOException {
    try {
      return channel.map(FileChannel.MapMode.READ_ONLY, start, size);
    } catch (IOException e) {
      throw new IOException(path + ": cannot be mapped: " + e.getMessage(), e);
    }
  }

  private static ByteBuffer copy(FileChannel channel, Path path, long start, int size) throws IOException {
    ByteBuffer chunk = ByteBuffer.allocateDirect(size);
    try {
      while (chunk.hasRemaining()) {
        if (channel.read(chunk, start + chunk.position()) < 0) {
          throw new EOFException(path + ": ended at byte " + (start + chunk.position()) + " while loading");
        }
      }
    } catch (IOException | RuntimeException | Error e) {
      free(chunk); // not yet among the chunks that open releases
      throw e;
    }
    return chunk.clear();
  }

  @Override
  long length() {
    return length;
  }

  @Override
  long readLittleEndianLong(long position) {
    return chunks[(int) (position >>> shift)].getLong((int) (position & mask));
  }

  @Override
  long readNativeLong(long position) {
    return readLittleEndianLong(position);
  }

  @Override
  int readLittleEndianInt(long position) {
    return chunks[(int) (position >>> shift)].getInt((int) (position & mask));
  }

  @Override
  byte readByte(long position) {
    return chunks[(int) (position >>> shift)].get((int) (position & mask));
  }

  @Override
  void read(long position, byte[] target, int offset, int count) {
    while (count > 0) {
      ByteBuffer chunk = chunks[(int) (position >>> shift)];
      int at = (int) (position & mask);
      int n = Math.min(count, chunk.limit() - at);
      chunk.get(at, target, offset, n);
      position += n;
      offset += n;
      count -= n;
    }
  }

  @Override
  int xxh3Checksum(long position, long length, long payloadOffset) {
    int size = (int) length;
    byte[] copy = COPY.get();
    if (copy.length < size) {
      copy = new byte[size];
      if (size <= KEPT_COPY_BYTES) {
        COPY.set(copy);
      }
    }
    read(position, copy, 0, size);
    return RecordChecksum.XXH3.of(copy, 0, size, payloadOffset);
  }

  @Override
  void close() {
    release(chunks);
  }

  /**
   * Unmaps or frees the buffers now where the JVM lets code without options do so ({@code
   * sun.misc.Unsafe#invokeCleaner}); elsewhere the garbage collector does it later.
   */
  private static void release(ByteBuffer[] chunks) {
    for (int i = 0; i < chunks.length; i++) {
      if (chunks[i] != null) {
        free(chunks[i]);
      }
      chunks[i] = null;
    }
  }

  /** Frees a direct buffer (or unmaps a mapped one) now where the JVM allows; a heap buffer is left alone. */
  static void free(ByteBuffer buffer) {
    if (buffer.isDirect()) {
      Cleaner.clean(buffer);
    }
  }

  /** {@code sun.misc.Unsafe#invokeCleaner}, reached by reflection (it is in {@code jdk.unsupported}, open to all). */
  private static final class Cleaner {
    private static final Object UNSAFE;
    private static final Method INVOKE_CLEANER;

    static {
      Object unsafe = null;
      Method invokeCleaner = null;
      try {
        Class<?> type = Class.forName("sun.misc.Unsafe");
        Field field = type.getDeclaredField("theUnsafe");
        field.setAccessible(true);
        unsafe = field.get(null);
        invokeCleaner = type.getMethod("invokeCleaner", ByteBuffer.class);
      } catch (ReflectiveOperationException | RuntimeException unavailable) {
        unsafe = null;
        invokeCleaner = null;
      }
      UNSAFE = unsafe;
      INVOKE_CLEANER = invokeCleaner;
    }

    static void clean(ByteBuffer buffer) {
      if (INVOKE_CLEANER == null) {
        return;
      }
      try {
        INVOKE_CLEANER.invoke(UNSAFE, buffer);
      } catch (ReflectiveOperationException | RuntimeException unavailable) {
        // The garbage collector frees it instead.
      }
    }
  }
}
