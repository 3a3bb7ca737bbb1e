package io.varve.silt;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.file.OpenOption;
import java.nio.file.Path;

/**
 * A file's channel that no thread's interrupt closes for the others. A {@link FileChannel} closes
 * itself when a thread blocked in it is interrupted, which would fail every later read, write and
 * sync of the store until it is reopened. Here a call clears its thread's interrupt for its
 * duration (and sets it again after), and a channel closed by another thread's interrupt all the
 * same is reopened and the call retried: every call is positional, so retrying it is harmless.
 *
 * <p>Thread-safe.
 */
final class FileAccess implements Closeable {
  private static final int MAX_REOPENS = 100;

  /** How a file is opened: {@link FileChannel#open}; tests put channels that fail in its place. */
  interface Opener {
    FileChannel open(Path file, OpenOption... options) throws IOException;
  }

  /**
   * The opener of every channel the store writes or reads through, the manifest's, a hash store's
   * being written and the directory's forced ones included (the sorted store's are the builder's);
   * changed only by tests, between stores.
   */
  static volatile Opener opener = FileChannel::open;

  private final Path file;
  private final OpenOption[] options;
  private volatile FileChannel channel;
  private volatile boolean closed;

  private FileAccess(Path file, FileChannel channel, OpenOption[] options) {
    this.file = file;
    this.channel = channel;
    this.options = options;
  }

  /** Opens {@code file}; a reopen uses {@code reopenOptions} (never {@code CREATE_NEW}). */
  static FileAccess open(Path file, OpenOption[] openOptions, OpenOption... reopenOptions) throws IOException {
    return new FileAccess(file, opener.open(file, openOptions), reopenOptions);
  }

  Path file() {
    return file;
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
      channel = opener.open(file, options);
    }
  }

  /** Reads from {@code position} until {@code b} is full or the file ends. */
  void readFully(ByteBuffer b, long position) throws IOException {
    int start = b.position();
    call(c -> {
      b.position(start);
      long at = position;
      while (b.hasRemaining()) {
        int n = c.read(b, at);
        if (n < 0) {
          break;
        }
        at += n;
      }
      return null;
    });
  }

  /** Writes all of {@code b} at {@code position}. */
  void writeFully(ByteBuffer b, long position) throws IOException {
    int start = b.position();
    call(c -> {
      b.position(start);
      long at = position;
      while (b.hasRemaining()) {
        at += c.write(b, at);
      }
      return null;
    });
  }

  long size() throws IOException {
    return call(FileChannel::size);
  }

  void truncate(long size) throws IOException {
    call(c -> c.truncate(size));
  }

  void force(boolean metadata) throws IOException {
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
