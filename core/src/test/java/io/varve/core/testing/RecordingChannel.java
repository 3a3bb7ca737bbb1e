package io.varve.core.testing;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;

/**
 * A file's channel for the crash tests: it keeps, in {@link ForcedPages}, the pages its unforced
 * writes change, as they were when last forced, and runs its forces through {@link ForceFaults}.
 * A subclass may act before each write ({@link #beforeWrite}: a torn write). Thread-safe: the
 * records are kept under the owner's monitor, which the owner also holds while it builds a crash
 * image from them.
 */
public class RecordingChannel extends DelegatingChannel {
  protected final Path file;
  protected final Object monitor;
  private final ForcedPages forcedPages;
  private final ForceFaults faults;

  public RecordingChannel(Path file, FileChannel real, int pageBytes, ForceFaults faults, Object monitor) throws IOException {
    super(real);
    this.file = file;
    this.monitor = monitor;
    this.faults = faults;
    this.forcedPages = new ForcedPages(file, pageBytes);
  }

  /** What the file held at its last force. */
  public final ForcedPages forcedPages() {
    return forcedPages;
  }

  /** Called before each write reaches the file, after its pages are remembered; may throw instead. */
  protected void beforeWrite(ByteBuffer src, long position) throws IOException {}

  /** Keeps the forced content of the pages {@code [position, position + length)} touch. */
  protected final void remember(long position, long length) throws IOException {
    synchronized (monitor) {
      forcedPages.remember(position, length);
    }
  }

  @Override
  public int write(ByteBuffer src, long position) throws IOException {
    remember(position, src.remaining());
    beforeWrite(src, position);
    return real.write(src, position);
  }

  @Override
  public int write(ByteBuffer src) throws IOException {
    long position = real.position();
    remember(position, src.remaining());
    beforeWrite(src, position);
    return real.write(src);
  }

  @Override
  public long write(ByteBuffer[] srcs, int offset, int length) {
    throw new UnsupportedOperationException("gathering writes are not recorded");
  }

  @Override
  public FileChannel truncate(long size) throws IOException {
    synchronized (monitor) {
      remember(size, Math.max(0, real.size() - size));
      return super.truncate(size);
    }
  }

  @Override
  public void force(boolean metaData) throws IOException {
    synchronized (monitor) {
      faults.force(file.getFileName().toString(), () -> real.force(metaData));
      forcedPages.forced(real.size());
    }
  }

  @Override
  protected void implCloseChannel() throws IOException {
    try (ForcedPages pages = forcedPages) {
      super.implCloseChannel();
    }
  }
}
