package io.varve.core.files;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.file.OpenOption;
import java.nio.file.Path;

/**
 * A file's channel that no thread's interrupt closes for the others. A {@link FileChannel} closes
 * itself when a thread blocked in it is interrupted (or enters it interrupted), which fails every
 * later read, write and force of every thread until the store is reopened; a store whose lookups
 * run on pool threads that get interrupted (a cancelled request, a shut-down executor) would stop
 * serving, and its close would fail and lose what it still had to write. Here a call clears its
 * thread's interrupt for its duration (and sets it again after), and a channel closed by another
 * thread's interrupt all the same is reopened and the call retried: every call is positional, so
 * retrying one is harmless. (SILT's {@code FileAccess} does the same for its files.)
 *
 * <p>Thread-safe.
 */
public final class InterruptSafeFile implements Closeable {
  private static final int MAX_REOPENS = 100;

  /** How the file's channel is opened: {@code FileChannel::open}, or a test's hook. */
  @FunctionalInterface
  public interface Opener {
    FileChannel open(Path file, OpenOption... options) throws IOException;
  }

  private final Path file;
  private final Opener opener;
  private final OpenOption[] reopenOptions;
  private volatile FileChannel channel;
  private volatile boolean closed;
  private volatile Reopened reopened = () -> {};

  private InterruptSafeFile(Path file, Opener opener, FileChannel channel, OpenOption[] reopenOptions) {
    this.file = file;
    this.opener = opener;
    this.channel = channel;
    this.reopenOptions = reopenOptions;
  }

  /**
   * Opens {@code file} through {@code opener} with {@code openOptions}; a reopen uses {@code
   * reopenOptions} (never {@code CREATE_NEW}, nor {@code TRUNCATE_EXISTING}).
   */
  public static InterruptSafeFile open(Opener opener, Path file, OpenOption[] openOptions, OpenOption... reopenOptions)
      throws IOException {
    return new InterruptSafeFile(file, opener, opener.open(file, openOptions), reopenOptions);
  }

  public Path file() {
    return file;
  }

  /** What follows a reopen. */
  @FunctionalInterface
  public interface Reopened {
    void after() throws IOException;
  }

  /**
   * Runs {@code action} after each reopen, before the call is retried: a file locked through
   * another channel lost the lock when its channel closed ({@link ExclusiveUse#renew}).
   */
  public InterruptSafeFile onReopen(Reopened action) {
    this.reopened = action;
    return this;
  }

  private interface Call<T> {
    T on(FileChannel channel) throws IOException;
  }

  private <T> T call(Call<T> call) throws IOException {
    boolean interrupted = false;
    try {
      for (int reopens = 0; ; reopens++) {
        interrupted |= Thread.interrupted();
        FileChannel current = channel;
        try {
          return call.on(current);
        } catch (ClosedChannelException e) {
          if (closed || reopens == MAX_REOPENS) {
            throw e;
          }
          reopen(current);
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private synchronized void reopen(FileChannel failed) throws IOException {
    if (channel == failed && !closed) {
      FileChannel next = opener.open(file, reopenOptions);
      try {
        reopened.after();
      } catch (IOException | RuntimeException e) {
        closed = true; // the file is not ours to write any more: every later call fails
        try {
          next.close();
        } catch (IOException suppressed) {
          e.addSuppressed(suppressed);
        }
        throw e;
      }
      channel = next;
    }
  }

  /** As {@link FileChannel#read(ByteBuffer, long)}: bytes read, or -1 at the end of the file. */
  public int read(ByteBuffer dst, long position) throws IOException {
    int start = dst.position();
    return call(c -> c.read(dst.position(start), position));
  }

  /** As {@link FileChannel#write(ByteBuffer, long)}: bytes written. */
  public int write(ByteBuffer src, long position) throws IOException {
    int start = src.position();
    return call(c -> c.write(src.position(start), position));
  }

  /** Reads from {@code position} until {@code dst} is full or the file ends. */
  public void readFully(ByteBuffer dst, long position) throws IOException {
    while (dst.hasRemaining()) {
      int read = read(dst, position);
      if (read < 0) {
        return;
      }
      position += read;
    }
  }

  /** As {@link FileChannel#truncate}. */
  public void truncate(long size) throws IOException {
    call(c -> c.truncate(size));
  }

  /** Writes all of {@code src} at {@code position}. */
  public void writeFully(ByteBuffer src, long position) throws IOException {
    while (src.hasRemaining()) {
      position += write(src, position);
    }
  }

  /** As {@link FileChannel#map}: a mapping outlives the channel it came from. */
  public MappedByteBuffer map(FileChannel.MapMode mode, long position, long size) throws IOException {
    return call(c -> c.map(mode, position, size));
  }

  public long size() throws IOException {
    return call(FileChannel::size);
  }

  public void force(boolean metadata) throws IOException {
    call(c -> {
      c.force(metadata);
      return null;
    });
  }

  @Override
  public synchronized void close() throws IOException {
    closed = true;
    channel.close();
  }
}
