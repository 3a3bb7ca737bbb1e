package io.varve.bufferhash;

import java.io.IOException;
import java.nio.file.Path;

/**
 * A table's file holds one entry (a write-ahead record, an entry of the buffers file, an incarnation
 * of one entry in the log) larger than this JVM's heap can take in: it must be in memory to be
 * replayed or hashed, and the open refuses it before allocating, instead of dying with an {@link
 * OutOfMemoryError} or going on without it. Open the table with a larger heap ({@code -Xmx}).
 * {@link BufferHash#forEach} and an eviction whose entries go to the {@link EvictionListener} or a
 * priority {@link EvictionPolicy} read an incarnation whole and copy its entries out, and refuse one
 * the heap cannot hold twice the same way, as the cause of an {@link java.io.UncheckedIOException}
 * (the eviction's put, delete or sync then fails as on a write error; nothing is evicted).
 * Immutable; thread-safe.
 */
public final class HeapTooSmallException extends IOException {
  private static final long serialVersionUID = 1L;

  private final transient Path file;
  private final long bytesNeeded;
  private final long maxHeap;

  HeapTooSmallException(Path file, String what, long bytesNeeded, long maxHeap) {
    super(file + ": " + what + " needs about " + bytesNeeded + " bytes of heap to be read back, more than this JVM's heap can hold ("
        + maxHeap + " bytes at most, -Xmx): open the table with a larger heap");
    this.file = file;
    this.bytesNeeded = bytesNeeded;
    this.maxHeap = maxHeap;
  }

  /** The file that holds the entry. */
  public Path file() {
    return file;
  }

  /** The heap the entry needs, in bytes. */
  public long bytesNeeded() {
    return bytesNeeded;
  }

  /** The heap's maximum when the open refused ({@link Runtime#maxMemory}). */
  public long maxHeap() {
    return maxHeap;
  }
}
