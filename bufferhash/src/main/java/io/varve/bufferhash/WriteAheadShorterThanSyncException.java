package io.varve.bufferhash;

import io.varve.core.format.CorruptStoreException;
import java.nio.file.Path;

/**
 * Opening found the write-ahead segment the table's sync mark ({@code walmark}) names shorter than
 * its last sync reached, or missing with no newer segment: writes acknowledged as durable are
 * missing from it (an older copy put back, from a backup, a snapshot or a file-level rollback; a
 * file system that lost the file's tail). The table is refused, not opened without them; {@link
 * BufferHashBuilder#dropDamagedWriteAheadTail} opens it with what the segments hold.
 *
 * <p>Immutable; thread-safe.
 */
public final class WriteAheadShorterThanSyncException extends CorruptStoreException {
  private static final long serialVersionUID = 1L;

  private final transient Path file;
  private final long segmentBytes;
  private final long syncedBytes;

  WriteAheadShorterThanSyncException(Path file, long segmentBytes, long syncedBytes, boolean missing) {
    super(file + (missing ? " is missing (0 bytes), and no newer segment exists" : " is shorter than its last sync: " + segmentBytes + " bytes")
        + ", where the write-ahead sync mark (" + WalSyncMark.FILE + ") records " + syncedBytes + " bytes synced; an older copy put back?"
        + " Writes acknowledged as synced would be lost (BufferHashBuilder.dropDamagedWriteAheadTail opens the table without them)");
    this.file = file;
    this.segmentBytes = segmentBytes;
    this.syncedBytes = syncedBytes;
  }

  /** The write-ahead segment. */
  public Path file() {
    return file;
  }

  /** Its length (0 when missing). */
  public long segmentBytes() {
    return segmentBytes;
  }

  /** The length its last sync reached. */
  public long syncedBytes() {
    return syncedBytes;
  }
}
