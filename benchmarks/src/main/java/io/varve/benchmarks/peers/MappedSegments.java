package io.varve.benchmarks.peers;

import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A file of any length mapped as 1 GiB buffers, read and written at absolute positions (ranges may
 * cross buffers). Reads are thread-safe; writes are for one thread at build time.
 */
final class MappedSegments {
  private static final int SEGMENT_SHIFT = 30;
  private static final long SEGMENT_BYTES = 1L << SEGMENT_SHIFT;
  private final MappedByteBuffer[] segments;

  private MappedSegments(MappedByteBuffer[] segments) {
    this.segments = segments;
  }

  /** Creates (or truncates) {@code file} at {@code length} bytes, mapped read-write. */
  static MappedSegments create(Path file, long length) throws IOException {
    try (FileChannel channel =
        FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE,
            StandardOpenOption.TRUNCATE_EXISTING)) {
      channel.truncate(length);
      if (length > 0) {
        channel.write(java.nio.ByteBuffer.wrap(new byte[1]), length - 1);
      }
      return map(channel, FileChannel.MapMode.READ_WRITE, length);
    }
  }

  /** Maps an existing file read-only. */
  static MappedSegments open(Path file) throws IOException {
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
      return map(channel, FileChannel.MapMode.READ_ONLY, channel.size());
    }
  }

  private static MappedSegments map(FileChannel channel, FileChannel.MapMode mode, long length) throws IOException {
    int count = (int) ((length + SEGMENT_BYTES - 1) >>> SEGMENT_SHIFT);
    MappedByteBuffer[] segments = new MappedByteBuffer[count];
    for (int s = 0; s < count; s++) {
      long start = (long) s << SEGMENT_SHIFT;
      segments[s] = channel.map(mode, start, Math.min(SEGMENT_BYTES, length - start));
    }
    return new MappedSegments(segments);
  }

  /** Copies {@code length} bytes at {@code position} into {@code target}. */
  void read(long position, byte[] target, int offset, int length) {
    while (length > 0) {
      int segment = (int) (position >>> SEGMENT_SHIFT);
      int within = (int) (position & (SEGMENT_BYTES - 1));
      int chunk = (int) Math.min(length, SEGMENT_BYTES - within);
      segments[segment].get(within, target, offset, chunk);
      position += chunk;
      offset += chunk;
      length -= chunk;
    }
  }

  /** Writes {@code length} bytes of {@code source} at {@code position}. */
  void write(long position, byte[] source, int offset, int length) {
    while (length > 0) {
      int segment = (int) (position >>> SEGMENT_SHIFT);
      int within = (int) (position & (SEGMENT_BYTES - 1));
      int chunk = (int) Math.min(length, SEGMENT_BYTES - within);
      segments[segment].put(within, source, offset, chunk);
      position += chunk;
      offset += chunk;
      length -= chunk;
    }
  }

  /** Writes dirty pages to the file. */
  void force() {
    for (MappedByteBuffer segment : segments) {
      segment.force();
    }
  }
}
