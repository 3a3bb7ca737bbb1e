package io.varve.bcms;

import io.varve.core.files.InterruptSafeFile;
import io.varve.core.files.MappingFaults;
import io.varve.core.format.CorruptStoreException;
import java.io.IOException;
import java.nio.file.Path;

/**
 * What a fault of a file sketch's mapping becomes: the JVM reports an access to a mapped page that
 * the file no longer holds (another process truncated it, or rewrote it in place) as an {@link
 * InternalError}, which is the file's damage, not the JVM's. The sketch turns it into the {@link
 * CorruptStoreException} built here, naming the file. Thread-safe (immutable; the file's size is
 * asked of the open channel, which every thread shares).
 */
final class SketchFileFaults {
  private final Path path;
  private final InterruptSafeFile channel;
  private final long openedLength;

  /** Faults of the sketch file at {@code path}, open as {@code channel}, whose header and body take {@code length} bytes. */
  SketchFileFaults(Path path, InterruptSafeFile channel, long length) {
    this.path = path;
    this.channel = channel;
    this.openedLength = length;
  }

  /** The damage {@code fault}, caught around the mapping's accesses, reports; other errors are thrown as they are. */
  CorruptStoreException fault(InternalError fault) {
    if (!MappingFaults.isUnsafeAccess(fault)) {
      throw fault;
    }
    return truncated(fault);
  }

  /**
   * Whether the open file is now shorter than its header and body (the file, not the path: a
   * mapping follows the file, and a file deleted under the sketch is {@link SketchFileHandle}'s
   * case). One {@code fstat}: for flushes and failure paths, not per update.
   */
  boolean fileShrank() {
    return sizeNow() < openedLength;
  }

  /** The damage of a file cut under the open sketch, {@code cause} the error that revealed it (or null). */
  CorruptStoreException truncated(Throwable cause) {
    // First: the steps below call into the runtime, where a second pending fault of the same call
    // would escape. The call itself may deliver it (a call that deoptimizes returns through the
    // runtime): caught here.
    try {
      MappingFaults.absorbLate();
    } catch (InternalError late) {
      if (!MappingFaults.isUnsafeAccess(late)) {
        throw late;
      }
    }
    long now = sizeNow();
    return new CorruptStoreException("sketch file " + path + ": its counters can no longer be read or written ("
        + (now < 0 ? "its size cannot be read" : now + " bytes now") + ", " + openedLength + " when the sketch opened it):"
        + " the file was truncated or rewritten under the open sketch; the counts since its last flush are lost", cause);
  }

  /** The open file's size, or -1 when it cannot be read. */
  private long sizeNow() {
    try {
      return channel.size();
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }
}
