package io.varve.bcms;

import io.varve.core.files.DirectoryEntries;
import io.varve.core.files.ExclusiveUse;
import io.varve.core.files.FileIdentity;
import io.varve.core.files.InterruptSafeFile;
import io.varve.core.files.WriteFailure;
import io.varve.core.format.CorruptStoreException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.zip.CRC32C;

/**
 * An open sketch file and its life cycle: created or validated on open, marked "open for writing"
 * (and forced to disk) before its first change, and marked "closed cleanly" with the body's checksum
 * when closed. The file is the handle's alone until it closes ({@link ExclusiveUse}): a second
 * writer would write back pages over the first's counts, and estimates could fall below the truth.
 * Shared by both sketch kinds; not thread-safe (its owner serializes calls).
 */
final class SketchFileHandle {
  private static final int CHECKSUM_CHUNK = 1 << 20;

  private static final String WHAT = "a sketch";

  private static final OpenOption[] READ_WRITE = {StandardOpenOption.READ, StandardOpenOption.WRITE};

  /** Makes a directory's entries durable; replaced by tests that watch for it. */
  interface DirectorySync {
    void force(Path directory) throws IOException;
  }

  /** {@link DirectoryEntries#force(Path)}; changed only by tests. */
  static volatile DirectorySync directorySync = DirectoryEntries::force;

  /** How a sketch's file is opened: {@link FileChannel#open}; changed only by tests, between sketches. */
  static volatile InterruptSafeFile.Opener opener = FileChannel::open;

  private final Path path;
  /** Read and written by every thread using the sketch: no thread's interrupt may close it for the others. */
  private final InterruptSafeFile channel;
  private final ExclusiveUse use;
  private SketchFile.Header header;
  private boolean markedOpen;
  /**
   * The first write or force of the file that failed. From then on nothing more is written, the
   * clean state above all: the counts on the device are uncertain (a failed page write, or a failed
   * {@code fsync} that a later one would not redo), so the file must stay marked open, for {@code
   * openAfterCrash}, not be marked closed with a checksum of counts it may not hold.
   */
  private final WriteFailure writeFailure;
  /**
   * The file {@code path} named when the sketch opened it: a flush checks that it still does, as a
   * force of a file deleted (or replaced) under the open sketch succeeds and makes nothing durable.
   */
  private FileIdentity identity;
  /**
   * Whether the newest commit record is known to be durable. One read on open may be a write that a
   * killed process left unforced; a commit into the other slot, forced before it, could then leave
   * only an older record valid after a power loss.
   */
  private boolean newestDurable;

  private SketchFileHandle(Path path, InterruptSafeFile channel, ExclusiveUse use, SketchFile.Header header, boolean markedOpen) {
    this.path = path;
    this.channel = channel;
    this.use = use;
    this.header = header;
    this.markedOpen = markedOpen;
    this.writeFailure = new WriteFailure("the sketch in " + path);
  }

  /** Creates a new sketch file of zero counters; fails if {@code path} exists. */
  static SketchFileHandle create(Path path, SketchFile.Layout layout, SketchParameters parameters) {
    SketchFile.Header header = SketchFile.Header.forNewSketch(layout, parameters);
    InterruptSafeFile channel;
    try {
      channel = InterruptSafeFile.open(opener, path,
          new OpenOption[] {StandardOpenOption.CREATE_NEW, StandardOpenOption.READ, StandardOpenOption.WRITE}, READ_WRITE);
    } catch (FileAlreadyExistsException e) {
      throw new IllegalStateException("sketch file " + path + " already exists; open it, or delete it first", e);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create sketch file " + path, e);
    }
    ExclusiveUse use;
    try {
      use = ExclusiveUse.acquire(path, false, WHAT);
    } catch (IOException | RuntimeException e) {
      closeQuietly(channel);
      try {
        Files.deleteIfExists(path);
      } catch (IOException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e instanceof IOException ? new UncheckedIOException("cannot lock sketch file " + path, (IOException) e) : (RuntimeException) e;
    }
    channel.onReopen(use::renew);
    SketchFileHandle handle = new SketchFileHandle(path, channel, use, header, true);
    try {
      handle.identity = FileIdentity.of(path);
      handle.newestDurable = true; // nothing older to lose: the file is forced below before any commit
      channel.writeFully(SketchFile.encodeNew(header), 0);
      if (layout == SketchFile.Layout.ROWS) {
        handle.writeZeroBody();
      } else {
        // Zero counters without writing them: the body is a hole until pages are written, each
        // through the channel, which reports a full disk.
        channel.write(ByteBuffer.allocate(1), header.headerLength() + header.bodyLength() - 1);
      }
      channel.force(true);
      // The file's name: without it, a power loss could take a sketch that closed cleanly.
      directorySync.force(path.toAbsolutePath().getParent());
    } catch (IOException | RuntimeException e) {
      handle.closeQuietly();
      try {
        Files.deleteIfExists(path);
      } catch (IOException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e instanceof IOException ? new UncheckedIOException("cannot create sketch file " + path, (IOException) e)
          : (RuntimeException) e;
    }
    return handle;
  }

  /** What open does with a file whose writer stopped before it closed or flushed. */
  enum Unclean {
    /** Refuses it: counts could be missing. */
    REFUSE,
    /**
     * Takes it as it is: its counters, which only grow, are at least what they were at its last
     * flush. The body's checksum is computed anew, the file marked closed, and its total weight is
     * the one of that flush.
     */
    RECOVER
  }

  /**
   * Opens an existing sketch file of {@code layout}, validating its header against its size and, if
   * {@code verifyBody}, its body against the stored checksum.
   *
   * @throws CorruptStoreException if the file is damaged, foreign, of another layout, or was not
   *     closed cleanly
   * @throws IllegalStateException if a sketch in this process or another has the file open
   */
  static SketchFileHandle open(Path path, SketchFile.Layout layout, boolean verifyBody) {
    return open(path, layout, verifyBody, Unclean.REFUSE);
  }

  /** As {@link #open(Path, SketchFile.Layout, boolean)}, a file not closed cleanly handled as {@code unclean} says. */
  static SketchFileHandle open(Path path, SketchFile.Layout layout, boolean verifyBody, Unclean unclean) {
    ExclusiveUse use;
    InterruptSafeFile channel;
    try {
      use = ExclusiveUse.acquire(path, false, WHAT); // first: a refused open must not open the file
    } catch (NoSuchFileException e) {
      throw new IllegalArgumentException("no sketch file " + path, e);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot open sketch file " + path, e);
    }
    try {
      channel = InterruptSafeFile.open(opener, path, READ_WRITE, READ_WRITE).onReopen(use::renew);
    } catch (IOException e) {
      use.close();
      throw new UncheckedIOException("cannot open sketch file " + path, e);
    }
    try {
      SketchFile.Read read = SketchFile.read(channel::read, channel.size(), path);
      SketchFile.Header header = read.header();
      if (header.layout() != layout) {
        throw new CorruptStoreException("sketch file " + path + " holds a "
            + (header.layout() == SketchFile.Layout.PAGES ? "BufferedCountMinSketch" : "CountMinSketch")
            + ", not a " + (layout == SketchFile.Layout.PAGES ? "BufferedCountMinSketch" : "CountMinSketch"));
      }
      IOException unreadable = read.otherSlotUnreadable();
      if (unreadable != null && header.state() != SketchFile.STATE_CLOSED) {
        throw unreadableSlot(path, header, unreadable, "is open for writing");
      }
      if (header.state() != SketchFile.STATE_CLOSED && unclean == Unclean.REFUSE) {
        throw new CorruptStoreException("sketch file " + path + " was not closed cleanly (a writer stopped "
            + "before close()); its counts may be incomplete, so estimates could fall below the truth "
            + "(openAfterCrash takes it as it is: estimates at least the counts of its last flush)");
      }
      SketchFileHandle handle = new SketchFileHandle(path, channel, use, header, false);
      handle.identity = FileIdentity.of(path);
      // A closed record beside an invalid slot may be older than the body: the invalid one may have
      // been a newer open record, damaged after the body changed. Trusted only once the body checks.
      boolean suspect = !read.otherSlotValid();
      if (header.state() != SketchFile.STATE_CLOSED) {
        handle.markRecovered(handle.bodyChecksum());
      } else if (verifyBody || suspect) {
        int actual = handle.bodyChecksum();
        if (actual != header.bodyCrc() && unreadable != null) {
          throw unreadableSlot(path, header, unreadable, "does not match the body");
        }
        if (actual != header.bodyCrc() && suspect && unclean == Unclean.RECOVER) {
          handle.markRecovered(actual);
        } else if (actual != header.bodyCrc()) {
          throw new CorruptStoreException("sketch file " + path + ": body checksum mismatch (stored 0x"
              + Integer.toHexString(header.bodyCrc()) + ", computed 0x" + Integer.toHexString(actual) + ")"
              + (suspect ? "; its other commit record is damaged, and may have been newer (openAfterCrash takes the"
                  + " counters as they are)" : ""));
        }
      }
      return handle;
    } catch (IOException e) {
      closeQuietly(channel);
      use.close();
      throw new UncheckedIOException("cannot read sketch file " + path, e);
    } catch (RuntimeException e) {
      closeQuietly(channel);
      use.close();
      throw e;
    }
  }

  /**
   * The refusal of a file whose other commit slot could not be read, beside a record that is not
   * provably the newest. Only a closed record that matches the body is: the record after a closed
   * one is an open record of the same total weight, or (openAfterCrash) a closed one of a changed
   * body. Any other record read may be older than the unreadable one, and the next commit, into the
   * slot not holding the record read, would then write an older total weight over a newer record
   * (openAfterCrash at once): refused, the file untouched, rather than rolled back.
   */
  private static SketchCommitUnreadableException unreadableSlot(Path path, SketchFile.Header header, IOException unreadable,
      String why) {
    return new SketchCommitUnreadableException("sketch file " + path + ": commit slot " + (1 - header.slot())
        + " could not be read (" + unreadable.getMessage() + "), and the record of slot " + header.slot() + " (generation "
        + header.commit().generation() + ") " + why + ", so the unreadable slot may hold a newer one; not opened, rather"
        + " than rolled back to the older record: retry once the file reads", unreadable);
  }

  /** Closes and deletes a file this process just created, after its construction failed. */
  void discardNewFile(Throwable failure) {
    closeQuietly();
    try {
      Files.deleteIfExists(path);
    } catch (IOException e) {
      failure.addSuppressed(e);
    }
  }

  Path path() {
    return path;
  }

  InterruptSafeFile channel() {
    return channel;
  }

  SketchFile.Header header() {
    return header;
  }

  /** Offset of the body in the file. */
  long bodyOffset() {
    return header.headerLength();
  }

  /**
   * Records on disk that the file is being changed, before the first change: a crash from here to
   * {@link #finish} leaves a file that refuses to open.
   */
  void beforeFirstChange() {
    checkWritable();
    if (!markedOpen) {
      header = header.withState(SketchFile.STATE_OPEN, header.totalWeight(), 0);
      try {
        writeCommit();
        channel.force(false);
      } catch (IOException e) {
        throw writeFailed("cannot write sketch file " + path, e);
      }
      markedOpen = true;
    }
  }

  /**
   * Writes the row layout's body as zeros, so that every block of it is allocated now: counters are
   * written through a memory mapping, and a write there that needs a block the file system cannot
   * give (a full disk) is lost, its error surfacing anywhere. A disk too small fails here instead.
   */
  private void writeZeroBody() throws IOException {
    ByteBuffer zeros = ByteBuffer.allocateDirect(CHECKSUM_CHUNK);
    long position = header.headerLength();
    long end = position + header.bodyLength();
    for (; position < end; position += zeros.limit()) {
      channel.writeFully(zeros.clear().limit((int) Math.min(CHECKSUM_CHUNK, end - position)), position);
    }
  }

  /**
   * @throws UncheckedIOException once a write or force of the file has failed: the sketch then
   *     takes no more changes (estimates go on)
   */
  void checkWritable() {
    writeFailure.checkUnchecked();
  }

  /** Whether a write or force of the file has failed. */
  boolean writeFailed() {
    return writeFailure.failed();
  }

  /** Records that a write of the file failed (see {@link #checkWritable}); returns the error to throw. */
  UncheckedIOException writeFailed(String message, IOException e) {
    return new UncheckedIOException(message, writeFailure.record(e));
  }

  /** Marks a file whose writer stopped before it finished as closed, with its body's checksum computed anew. */
  private void markRecovered(int bodyChecksum) throws IOException {
    header = header.withState(SketchFile.STATE_CLOSED, header.totalWeight(), bodyChecksum);
    writeCommit();
    channel.force(false);
    System.getLogger(SketchFileHandle.class.getName())
        .log(System.Logger.Level.WARNING, "sketch file {0} was not closed cleanly: opened as it is, with the total weight of its last flush ({1})",
            path, header.totalWeight());
  }

  boolean changed() {
    return markedOpen;
  }

  /**
   * Forces the body to disk, then records the clean state, total weight and body checksum: the one
   * given, or for the row layout (when {@code bodyChecksum} is null) computed in a pass over the body
   * that also checks the counters against the total weight ({@link RowSums}): a shortfall throws
   * and leaves the file unclean.
   */
  void finish(long totalWeight, Integer bodyChecksum) {
    if (!markedOpen) {
      return;
    }
    checkWritable();
    try {
      channel.force(false);
      int checksum;
      if (bodyChecksum != null) {
        checksum = bodyChecksum;
      } else if (header.layout() == SketchFile.Layout.PAGES) {
        checksum = pagesChecksum();
      } else {
        RowSums sums = new RowSums(header.parameters());
        checksum = rowsChecksum(sums);
        String shortfall = sums.shortfall(totalWeight);
        if (shortfall != null) {
          throw new IOException("counts were lost, so the file is left unclean (openAfterCrash takes it as of its last flush): "
              + shortfall + ". A write through the memory mapping failed, as on a full disk under a sparse file");
        }
      }
      header = header.withState(SketchFile.STATE_CLOSED, totalWeight, checksum);
      writeCommit();
      channel.force(false);
      identity.check();
    } catch (IOException e) {
      throw writeFailed("cannot finish sketch file " + path, e);
    }
    markedOpen = false;
  }

  void close() {
    try {
      channel.close();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot close sketch file " + path, e);
    } finally {
      use.close();
    }
  }

  void closeQuietly() {
    closeQuietly(channel);
    use.close();
  }

  /**
   * Writes the header's commit: in version 2 into the slot that does not hold the newest valid
   * record, so that however a power loss tears the write, that record stays (see {@link SketchFile}).
   */
  private void writeCommit() throws IOException {
    if (!newestDurable) {
      channel.force(false);
      newestDurable = true;
    }
    channel.writeFully(SketchFile.encodeCommit(header), SketchFile.commitOffset(header));
  }

  /** The body checksum the header should hold, computed from the body (see {@link SketchFile}). */
  int bodyChecksum() throws IOException {
    return header.layout() == SketchFile.Layout.ROWS ? rowsChecksum(null) : pagesChecksum();
  }

  private int pagesChecksum() throws IOException {
    int pageSize = header.parameters().pageSize();
    int pagesPerChunk = Math.max(1, CHECKSUM_CHUNK / pageSize);
    ByteBuffer chunk = ByteBuffer.allocateDirect(pagesPerChunk * pageSize);
    int checksum = 0;
    long bodyOffset = header.headerLength();
    for (long page = 0; page < header.pageCount(); page += pagesPerChunk) {
      int pages = (int) Math.min(pagesPerChunk, header.pageCount() - page);
      readFully(chunk.clear().limit(pages * pageSize), bodyOffset + page * pageSize);
      CRC32C crc = new CRC32C();
      for (int i = 0; i < pages; i++) {
        crc.reset();
        crc.update(chunk.limit((i + 1) * pageSize).position(i * pageSize));
        checksum ^= SketchFile.pageChecksum(page + i, (int) crc.getValue());
      }
    }
    return checksum;
  }

  private void readFully(ByteBuffer into, long position) throws IOException {
    while (into.hasRemaining()) {
      if (channel.read(into, position + into.position()) < 0) {
        throw new CorruptStoreException("sketch file " + path + " ended at " + (position + into.position())
            + ", inside its body");
      }
    }
  }

  /** The row layout's body checksum; feeds the counters to {@code sums} too, unless it is null. */
  private int rowsChecksum(RowSums sums) throws IOException {
    CRC32C crc = new CRC32C();
    ByteBuffer chunk = ByteBuffer.allocateDirect(CHECKSUM_CHUNK);
    long position = header.headerLength();
    long end = position + header.bodyLength();
    while (position < end) {
      readFully(chunk.clear().limit((int) Math.min(CHECKSUM_CHUNK, end - position)), position);
      chunk.flip();
      if (sums != null) {
        sums.add(chunk, (position - header.headerLength()) / header.parameters().counterBytes());
      }
      crc.update(chunk);
      position += chunk.limit();
    }
    return (int) crc.getValue();
  }

  private static void closeQuietly(InterruptSafeFile channel) {
    try {
      channel.close();
    } catch (IOException ignored) {
      // already failing; the first error is the one to report
    }
  }
}
