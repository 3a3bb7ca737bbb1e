package io.varve.bcms;

import io.varve.core.files.InterruptSafeFile;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;

/**
 * The counter array of a plain sketch, addressed by a {@code long} index so that sketches pass 2 GiB:
 * on the heap in chunks of arrays, or on a file through memory mappings of 1 GiB each. Not
 * thread-safe for writes.
 */
abstract class Counters {
  abstract long get(long index);

  abstract void set(long index, long value);

  /** Bytes of memory this array pins (heap arrays; a mapping pins none, the page cache decides). */
  abstract long heapBytes();

  /** Writes changed counters back to the file, if any. */
  void force() {}

  /** Releases mappings; the array must not be used afterwards. */
  void release() {}

  static Counters onHeap(long count, int counterBytes) {
    return counterBytes == 4 ? new HeapInts(count) : new HeapLongs(count);
  }

  static Counters mapped(InterruptSafeFile channel, long offset, long count, int counterBytes) {
    return new Mapped(channel, offset, count, counterBytes);
  }

  private static final int CHUNK_SHIFT = 27;
  private static final long CHUNK_MASK = (1L << CHUNK_SHIFT) - 1;

  private static int chunkCount(long count) {
    return (int) ((count + CHUNK_MASK) >>> CHUNK_SHIFT);
  }

  private static int chunkLength(long count, int chunk) {
    return (int) Math.min(1L << CHUNK_SHIFT, count - ((long) chunk << CHUNK_SHIFT));
  }

  private static final class HeapInts extends Counters {
    private final int[][] chunks;
    private final long count;

    HeapInts(long count) {
      this.count = count;
      chunks = new int[chunkCount(count)][];
      for (int c = 0; c < chunks.length; c++) {
        chunks[c] = new int[chunkLength(count, c)];
      }
    }

    @Override
    long get(long index) {
      return Integer.toUnsignedLong(chunks[(int) (index >>> CHUNK_SHIFT)][(int) (index & CHUNK_MASK)]);
    }

    @Override
    void set(long index, long value) {
      chunks[(int) (index >>> CHUNK_SHIFT)][(int) (index & CHUNK_MASK)] = (int) value;
    }

    @Override
    long heapBytes() {
      return count * 4;
    }
  }

  private static final class HeapLongs extends Counters {
    private final long[][] chunks;
    private final long count;

    HeapLongs(long count) {
      this.count = count;
      chunks = new long[chunkCount(count)][];
      for (int c = 0; c < chunks.length; c++) {
        chunks[c] = new long[chunkLength(count, c)];
      }
    }

    @Override
    long get(long index) {
      return chunks[(int) (index >>> CHUNK_SHIFT)][(int) (index & CHUNK_MASK)];
    }

    @Override
    void set(long index, long value) {
      chunks[(int) (index >>> CHUNK_SHIFT)][(int) (index & CHUNK_MASK)] = value;
    }

    @Override
    long heapBytes() {
      return count * 8;
    }
  }

  /** Counters in mappings of {@code 2^30} bytes each (a whole number of counters of 4 or 8 bytes). */
  private static final class Mapped extends Counters {
    private static final int MAPPING_SHIFT = 30;
    private static final long MAPPING_MASK = (1L << MAPPING_SHIFT) - 1;

    private final MappedByteBuffer[] mappings;
    private final int shift;

    Mapped(InterruptSafeFile channel, long offset, long count, int counterBytes) {
      this.shift = Integer.numberOfTrailingZeros(counterBytes);
      long length = count << shift;
      mappings = new MappedByteBuffer[(int) ((length + MAPPING_MASK) >>> MAPPING_SHIFT)];
      try {
        for (int m = 0; m < mappings.length; m++) {
          long start = (long) m << MAPPING_SHIFT;
          mappings[m] = channel.map(FileChannel.MapMode.READ_WRITE, offset + start,
              Math.min(1L << MAPPING_SHIFT, length - start));
          mappings[m].order(ByteOrder.LITTLE_ENDIAN);
        }
      } catch (IOException e) {
        release();
        throw new UncheckedIOException("cannot map sketch counters", e);
      }
    }

    @Override
    long get(long index) {
      long at = index << shift;
      MappedByteBuffer mapping = mappings[(int) (at >>> MAPPING_SHIFT)];
      return shift == 2
          ? Integer.toUnsignedLong(mapping.getInt((int) (at & MAPPING_MASK)))
          : mapping.getLong((int) (at & MAPPING_MASK));
    }

    @Override
    void set(long index, long value) {
      long at = index << shift;
      MappedByteBuffer mapping = mappings[(int) (at >>> MAPPING_SHIFT)];
      if (shift == 2) {
        mapping.putInt((int) (at & MAPPING_MASK), (int) value);
      } else {
        mapping.putLong((int) (at & MAPPING_MASK), value);
      }
    }

    @Override
    long heapBytes() {
      return 0;
    }

    @Override
    void force() {
      for (MappedByteBuffer mapping : mappings) {
        mapping.force();
      }
    }

    @Override
    void release() {
      for (int m = 0; m < mappings.length; m++) {
        if (mappings[m] != null) {
          Unmapper.unmap(mappings[m]);
          mappings[m] = null;
        }
      }
    }
  }
}
