package io.varve.silt;

import io.varve.core.format.CorruptStoreException;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * Sequential reads of a file through one buffer (a log replayed, a hash store merged), grown for
 * records larger than it. Not thread-safe.
 */
final class ReadWindow {
  private final FileAccess channel;
  private final long size;
  private ByteBuffer buffer = ByteBuffer.allocate(1 << 20);
  private long start;

  /** A window over the first {@code size} bytes of {@code channel}. */
  ReadWindow(FileAccess channel, long size) {
    this.channel = channel;
    this.size = size;
    buffer.limit(0);
  }

  /** A view whose position is {@code offset}'s byte, with {@code n} bytes readable. */
  ByteBuffer at(long offset, int n) throws IOException {
    if (offset < start || offset + n > start + buffer.limit()) {
      if (buffer.capacity() < n) {
        buffer = ByteBuffer.allocate(n);
      }
      buffer.clear();
      buffer.limit((int) Math.min(buffer.capacity(), size - offset));
      channel.readFully(buffer, offset);
      buffer.flip();
      start = offset;
      if (buffer.limit() < n) {
        throw new CorruptStoreException("the file ended while it was read");
      }
    }
    ByteBuffer view = buffer.duplicate();
    view.position((int) (offset - start));
    return view;
  }
}
