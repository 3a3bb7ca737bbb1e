package io.varve.bcms;

import io.varve.core.files.InterruptSafeFile;
import io.varve.core.files.MappingFaults;
import io.varve.core.format.CorruptStoreException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;

/**
 * What a fault of a file sketch's mapping becomes: the JVM reports an access to a mapped page that
 * the file no longer holds (another process truncated it, or rewrote it in place) as an {@link
 * InternalError}, which is the file's damage, not the JVM's; so does a write to a page the file
 * system cannot give a block (a full disk under a sparse or copy-on-write file). The sketch turns
 * it into the exception built here, naming the file. Thread-safe (immutable; the file's size is
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

  /**
   * What {@code fault}, caught around the mapping's accesses, reports: a {@link
   * CorruptStoreException} when the file is now shorter, else an {@link UncheckedIOException} (a
   * write the file system could not take). Other errors are thrown as they are.
   */
  RuntimeException fault(InternalError fault) {
    if (!MappingFaults.isUnsafeAccess(fault)) {
      throw fault;
    }
    if (fileShrank()) {
      return truncated(fault);
    }
    absorbLate();
    String message = "sketch file " + path + ": an access to its counters' memory mapping failed though the file is as long"
        + " as when the sketch opened it: a write the file system could not take (a full disk under a sparse or"
        + " copy-on-write file), or the file was rewritten in place; the counts since its last flush are lost";
    return new UncheckedIOException(message, new IOException(message, fault));
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
    absorbLate();
    long now = sizeNow();
    return new CorruptStoreException("sketch file " + path + ": its counters can no longer be read or written ("
        + (now < 0 ? "its size cannot be read" : now + " bytes now") + ", " + openedLength + " when the sketch opened it):"
        + " the file was truncated or rewritten under the open sketch; the counts since its last flush are lost", cause);
  }

  /**
   * First on a failure path: the steps after it call into the runtime, where a second pending fault
   * of the same call would escape. The call itself may deliver it (a call that deoptimizes returns
   * through the runtime): caught here.
   */
  private static void absorbLate() {
    try {
      MappingFaults.absorbLate();
    } catch (InternalError late) {
      if (!MappingFaults.isUnsafeAccess(late)) {
        throw late;
      }
    }
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
