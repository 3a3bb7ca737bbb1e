package io.varve.core.testing;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.List;

/**
 * A file channel that notes where each positional read starts, to check a reader's access
 * pattern (that it reads a file in order, say). Thread-safe as far as the list given is.
 */
public final class ReadRecordingChannel extends DelegatingChannel {
  private final List<Long> positions;

  private ReadRecordingChannel(FileChannel real, List<Long> positions) {
    super(real);
    this.positions = positions;
  }

  /** {@code real}, adding the position of every positional read to {@code positions}. */
  public static FileChannel wrap(FileChannel real, List<Long> positions) {
    return new ReadRecordingChannel(real, positions);
  }

  @Override
  public int read(ByteBuffer dst, long position) throws IOException {
    positions.add(position);
    return real.read(dst, position);
  }

  @Override
  public java.nio.MappedByteBuffer map(MapMode mode, long position, long size) throws IOException {
    throw new UnsupportedOperationException("a recorded channel is read, not mapped");
  }
}
