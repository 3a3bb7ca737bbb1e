package io.varve.core.store;

import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.zip.CRC32C;

/**
 * Writes one store file: its {@link StoreFile} header on creation, then the payload, then on
 * {@link #finish()} the footer with the CRC32C of everything before it, and forces the file to
 * disk. The layout is {@link StoreFile}'s.
 *
 * <pre>{@code
 * try (StoreFileWriter out = StoreFileWriter.create(dir.resolve("index"), StoreFile.INDEX)) {
 *   index.writeTo(out);
 *   FileSummary written = out.finish();
 * }
 * }</pre>
 *
 * {@link #close()} without {@link #finish()} abandons the file (closes it, leaves a file without a
 * footer that no reader accepts); closing after finishing does nothing, so a stream that wraps
 * this one may be closed. A large file is forced to disk every 64 MiB as it is written (by a
 * thread of its own), so that the final force has little left to do. Not thread-safe.
 *
 * <p>Bytes reach the kernel in writes of the {@link PageCacheWrites} chosen at creation, at offsets
 * that are multiples of their size: 64 KiB by default; 2 MiB ({@link PageCacheWrites#HUGE_PAGES})
 * when a reader on this host should map the file with huge pages. With {@link
 * PageCacheWrites#UNCACHED} the bytes past the first 64 MiB go to an {@link UncachedFileOutput}
 * instead, which needs no early forcing.
 */
public final class StoreFileWriter extends OutputStream {
  private final Path path;
  private final FileChannel channel;
  private PageCacheWrites writes;
  /**
   * Where the bytes go instead of {@link #channel} once they bypass the page cache ({@link
   * PageCacheWrites#UNCACHED}, from {@link #UNCACHED_FROM_BYTES} on); else null.
   */
  private UncachedFileOutput uncached;
  private final CRC32C checksum = new CRC32C();
  /** Holds the bytes up to the next multiple of its length in the file, then goes to the file. */
  private final byte[] buffer;
  private final long headerLength;
  private final StoreFile kind;
  private int buffered;
  private long flushed;
  /**
   * Forces what was written so far to disk every {@link #SYNC_INTERVAL_BYTES} while writing goes
   * on (RocksDB's {@code bytes_per_sync}): the disk works during the write instead of all at once
   * in {@link #finish()}'s force, and dirty pages do not pile up. Started by the first interval.
   */
  private java.util.concurrent.ExecutorService syncer;
  private java.util.concurrent.Future<?> pendingSync;
  private long syncedUpTo;
  private boolean finished;
  private boolean closed;

  private static final long SYNC_INTERVAL_BYTES = 64L << 20;
  /**
   * Where {@link PageCacheWrites#UNCACHED} starts to bypass the page cache: small files stay cached
   * and cost no writing thread. The switch comes at the first multiple of this writer's writes from
   * there on.
   */
  static final long UNCACHED_FROM_BYTES = 64L << 20;

  private StoreFileWriter(Path path, StoreFile kind, int version, PageCacheWrites writes) throws IOException {
    this.path = path;
    this.kind = kind;
    this.buffer = new byte[writes.chunkBytes()];
    this.channel = FileChannel.open(path, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
    this.writes = writes;
    this.headerLength = kind.payloadOffset();
    try {
      kind.writeHeader(new DataOutputStream(this), version);
    } catch (IOException | RuntimeException e) {
      close();
      throw e;
    }
  }

  /**
   * Creates {@code path} (which must not exist) and writes the header of {@code kind}.
   *
   * @throws java.nio.file.FileAlreadyExistsException if the file exists
   */
  public static StoreFileWriter create(Path path, StoreFile kind) throws IOException {
    return new StoreFileWriter(path, kind, kind.minimumVersion(), PageCacheWrites.SMALL);
  }

  /**
   * Like {@link #create}, writing format version {@code version} of {@code kind} (files are written
   * in the oldest version that can hold them, so that older readers read what they can).
   */
  public static StoreFileWriter create(Path path, StoreFile kind, int version) throws IOException {
    return new StoreFileWriter(path, kind, version, PageCacheWrites.SMALL);
  }

  /**
   * Like {@link #create(Path, StoreFile)}, handing the bytes to the kernel as {@code writes} says.
   *
   * @throws java.nio.file.FileAlreadyExistsException if the file exists
   */
  public static StoreFileWriter create(Path path, StoreFile kind, PageCacheWrites writes) throws IOException {
    return create(path, kind, kind.minimumVersion(), writes);
  }

  /** Like {@link #create(Path, StoreFile, int)}, handing the bytes to the kernel as {@code writes} says. */
  public static StoreFileWriter create(Path path, StoreFile kind, int version, PageCacheWrites writes) throws IOException {
    return new StoreFileWriter(path, kind, version, java.util.Objects.requireNonNull(writes, "writes"));
  }

  @Override
  public void write(int b) throws IOException {
    checkOpen();
    buffer[buffered++] = (byte) b;
    if (buffered == room()) {
      flushBuffer();
    }
  }

  @Override
  public void write(byte[] bytes, int offset, int length) throws IOException {
    checkOpen();
    java.util.Objects.checkFromIndexSize(offset, length, bytes.length);
    while (length > 0) {
      int room = room();
      if (buffered == 0 && length >= room) {
        // Straight from the caller's array: up to the next boundary, so that writes stay aligned.
        int direct = length - length % buffer.length;
        direct = room < buffer.length ? room : direct;
        checksum.update(bytes, offset, direct);
        writeFully(ByteBuffer.wrap(bytes, offset, direct));
        offset += direct;
        length -= direct;
        continue;
      }
      int copied = Math.min(length, room - buffered);
      System.arraycopy(bytes, offset, buffer, buffered, copied);
      buffered += copied;
      offset += copied;
      length -= copied;
      if (buffered == room) {
        flushBuffer();
      }
    }
  }

  /**
   * How many bytes the buffer takes before it goes to the file: up to the next multiple of its
   * length in the file (less than its length only after an explicit {@link #flush()}).
   */
  private int room() {
    return buffer.length - (int) (flushed % buffer.length);
  }

  /** Hands buffered bytes to the file (so that they can be read back); no-op once closed. */
  @Override
  public void flush() throws IOException {
    if (!closed) {
      flushBuffer();
      if (uncached != null) {
        uncached.flush();
      }
    }
  }

  /** Bytes of payload written so far (header and padding excluded). */
  public long payloadBytes() {
    return flushed + buffered - headerLength;
  }

  /**
   * Writes the footer, forces the file's content to disk and closes it. Call once.
   *
   * @return the file's final size and its checksum
   */
  public FileSummary finish() throws IOException {
    checkOpen();
    flushBuffer();
    int crc = (int) checksum.getValue();
    writeFully(ByteBuffer.wrap(kind.envelope().footer(crc)));
    if (uncached != null) {
      uncached.flush();
    }
    awaitSync();
    channel.force(true);
    long size = channel.size();
    if (size != flushed) {
      // A file the meta would call truncated: fail the build rather than publish it.
      throw new IOException(path + ": " + size + " bytes on disk after " + flushed + " were written");
    }
    finished = true;
    close();
    return new FileSummary(flushed, crc);
  }

  /** Closes the file; without a previous {@link #finish()} the file is left unusable. */
  @Override
  public void close() throws IOException {
    if (!closed) {
      closed = true;
      try {
        if (syncer != null) {
          syncer.shutdown();
          try {
            // A force in progress finishes (interrupting it would close the channel under it).
            syncer.awaitTermination(10, java.util.concurrent.TimeUnit.MINUTES);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        }
      } finally {
        try {
          if (uncached != null) {
            uncached.close();
          }
        } finally {
          channel.close();
        }
      }
    }
  }

  /** Whether the bytes now go past the page cache ({@link PageCacheWrites#UNCACHED}, on a file system that takes it). */
  boolean bypassesPageCache() {
    return uncached != null;
  }

  /** Whether {@link #finish()} completed. */
  public boolean isFinished() {
    return finished;
  }

  private void flushBuffer() throws IOException {
    if (buffered > 0) {
      checksum.update(buffer, 0, buffered);
      writeFully(ByteBuffer.wrap(buffer, 0, buffered));
      buffered = 0;
    }
  }

  private void writeFully(ByteBuffer bytes) throws IOException {
    if (uncached == null
        && writes == PageCacheWrites.UNCACHED
        && flushed >= UNCACHED_FROM_BYTES
        && flushed % buffer.length == 0) {
      uncached = UncachedFileOutput.openOrNull(path, flushed);
      if (uncached == null) {
        writes = PageCacheWrites.SMALL; // not here: the page cache for the rest
      }
    }
    flushed += bytes.remaining();
    if (uncached != null) {
      uncached.write(bytes);
      return; // on the device once written: nothing to force early
    }
    while (bytes.hasRemaining()) {
      channel.write(bytes);
    }
    // An UNCACHED file's cached head is forced at the finish: no early force runs beside the direct
    // writes and cuts that follow it (a CI run once found such a file 8 KiB short mid-way).
    if (writes != PageCacheWrites.UNCACHED
        && flushed - syncedUpTo >= SYNC_INTERVAL_BYTES
        && (pendingSync == null || pendingSync.isDone())) {
      syncEarly();
    }
  }

  private void syncEarly() throws IOException {
    if (pendingSync != null) {
      awaitSync(); // done already: surfaces a failure
    }
    if (syncer == null) {
      syncer =
          java.util.concurrent.Executors.newSingleThreadExecutor(
              task -> {
                Thread thread = new Thread(task, "varve-file-sync");
                thread.setDaemon(true);
                return thread;
              });
    }
    syncedUpTo = flushed;
    pendingSync =
        syncer.submit(
            () -> {
              channel.force(false);
              return null;
            });
  }

  private void awaitSync() throws IOException {
    if (pendingSync == null) {
      return;
    }
    try {
      pendingSync.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(path + ": interrupted while forcing to disk", e);
    } catch (java.util.concurrent.ExecutionException e) {
      Throwable cause = e.getCause();
      throw cause instanceof IOException io ? io : new IOException(path + ": forcing to disk failed", cause);
    } finally {
      pendingSync = null;
    }
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException(path + ": writer already " + (finished ? "finished" : "closed"));
    }
  }

  /**
   * What a finished file holds: its size in bytes and the checksum in its footer.
   *
   * @param size the file's size, envelope included
   * @param checksum the CRC32C of header and payload
   */
  public record FileSummary(long size, int checksum) {}
}
