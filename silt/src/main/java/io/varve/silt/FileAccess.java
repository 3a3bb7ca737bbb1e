package io.varve.silt;

import io.varve.core.files.InterruptSafeFile;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.OpenOption;
import java.nio.file.Path;

/**
 * A SILT file's channel that no thread's interrupt closes for the others: an {@link
 * InterruptSafeFile}, every one opened through the store's test hook ({@link #opener}).
 *
 * <p>Thread-safe.
 */
final class FileAccess implements Closeable {
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

  private final InterruptSafeFile file;

  private FileAccess(InterruptSafeFile file) {
    this.file = file;
  }

  /** Opens {@code file}; a reopen uses {@code reopenOptions} (never {@code CREATE_NEW}). */
  static FileAccess open(Path file, OpenOption[] openOptions, OpenOption... reopenOptions) throws IOException {
    Opener current = opener;
    return new FileAccess(InterruptSafeFile.open(current::open, file, openOptions, reopenOptions));
  }

  Path file() {
    return file.file();
  }

  /** Reads from {@code position} until {@code b} is full or the file ends. */
  void readFully(ByteBuffer b, long position) throws IOException {
    file.readFully(b, position);
  }

  /** Writes all of {@code b} at {@code position}. */
  void writeFully(ByteBuffer b, long position) throws IOException {
    file.writeFully(b, position);
  }

  long size() throws IOException {
    return file.size();
  }

  void truncate(long size) throws IOException {
    file.truncate(size);
  }

  void force(boolean metadata) throws IOException {
    file.force(metadata);
  }

  @Override
  public void close() throws IOException {
    file.close();
  }
}
