package io.varve.core.testing;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A file channel that fails on command, as a full disk or a failing device does: a write that
 * writes half its bytes and then throws, or a {@code force} that throws. A store's tests make the
 * store open these through its package's hook ({@link #wrap}). The flags are shared by every
 * channel: arm them only while one store runs.
 */
public final class FailingChannel extends DelegatingChannel {
  /** Arm to fail the next write (positional or not) after half its bytes. */
  public static final AtomicBoolean FAIL_NEXT_WRITE = new AtomicBoolean();
  /** Arm to fail the next force. */
  public static final AtomicBoolean FAIL_NEXT_FORCE = new AtomicBoolean();

  private FailingChannel(FileChannel real) {
    super(real);
  }

  /** {@code real}, failing when armed. */
  public static FileChannel wrap(FileChannel real) {
    return new FailingChannel(real);
  }

  /** Clears both flags. */
  public static void disarm() {
    FAIL_NEXT_WRITE.set(false);
    FAIL_NEXT_FORCE.set(false);
  }

  private static IOException diskFull() {
    return new IOException("No space left on device (injected)");
  }

  private static ByteBuffer half(ByteBuffer src) {
    ByteBuffer half = src.duplicate();
    half.limit(half.position() + half.remaining() / 2);
    return half;
  }

  @Override
  public int write(ByteBuffer src, long position) throws IOException {
    if (FAIL_NEXT_WRITE.getAndSet(false)) {
      real.write(half(src), position);
      throw diskFull();
    }
    return real.write(src, position);
  }

  @Override
  public void force(boolean metaData) throws IOException {
    if (FAIL_NEXT_FORCE.getAndSet(false)) {
      throw new IOException("Input/output error (injected fsync failure)");
    }
    real.force(metaData);
  }

  @Override
  public int write(ByteBuffer src) throws IOException {
    if (FAIL_NEXT_WRITE.getAndSet(false)) {
      real.write(half(src));
      throw diskFull();
    }
    return real.write(src);
  }

  @Override
  public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
    if (FAIL_NEXT_WRITE.getAndSet(false)) {
      throw diskFull();
    }
    return real.write(srcs, offset, length);
  }
}
