package io.varve.silt;

import io.varve.core.format.CorruptStoreException;
import java.nio.file.Path;

/**
 * Opening found the newest log shorter than its last sync reached, as the store's sync mark
 * recorded it: writes acknowledged as durable are missing from it (an older copy of the log put
 * back, from a backup, a snapshot or a file-level rollback; or the device lost them). The store is
 * refused, not opened without them; {@link SiltOptions#dropDamagedLogTail} opens it with what the
 * log holds.
 *
 * <p>Immutable; thread-safe.
 */
public final class LogShorterThanSyncException extends CorruptStoreException {
  private static final long serialVersionUID = 1L;

  private final transient Path file;
  private final long logBytes;
  private final long syncedBytes;

  LogShorterThanSyncException(Path file, long logBytes, long syncedBytes) {
    super(file + ": the log is shorter than its last sync: " + logBytes + " bytes, where the sync mark ("
        + SiltSyncMark.FILE + ") records " + syncedBytes + " bytes synced; an older copy of the log put back? Writes"
        + " acknowledged as synced would be lost (SiltOptions.dropDamagedLogTail opens the store without them)");
    this.file = file;
    this.logBytes = logBytes;
    this.syncedBytes = syncedBytes;
  }

  /** The log. */
  public Path file() {
    return file;
  }

  /** Its length. */
  public long logBytes() {
    return logBytes;
  }

  /** The length its last sync reached. */
  public long syncedBytes() {
    return syncedBytes;
  }
}
