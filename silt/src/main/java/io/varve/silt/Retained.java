package io.varve.silt;

import java.io.IOException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A part of the store that readers may still hold after the store moved on (a log store merged
 * away, a sorted store replaced): it is closed when its last holder releases it. It starts with
 * one reference, its owner's. Thread-safe.
 */
abstract class Retained {
  private final AtomicInteger references = new AtomicInteger(1);
  private volatile boolean obsolete;

  /** Takes a reference, unless the last one is gone already. */
  final boolean tryRetain() {
    for (int r = references.get(); r > 0; r = references.get()) {
      if (references.compareAndSet(r, r + 1)) {
        return true;
      }
    }
    return false;
  }

  final void retain() {
    if (!tryRetain()) {
      throw new IllegalStateException(this + " is released");
    }
  }

  /** Deletes the part's files once its last reference is gone: no manifest names it any more. */
  final void deleteWhenReleased() {
    obsolete = true;
  }

  /**
   * Drops a reference; the last one closes the part. A file it then fails to delete is left for
   * the next open, which deletes every file the manifest does not name.
   */
  final void release() {
    int left = references.decrementAndGet();
    if (left == 0) {
      try {
        released(obsolete);
      } catch (IOException | RuntimeException ignored) {
        // Nothing names the part any more: a failed close or delete leaves only a leftover.
      }
    } else if (left < 0) {
      throw new IllegalStateException(this + " released once too often");
    }
  }

  /** Closes the part, and deletes its files when {@code delete}: its last reference is gone. */
  abstract void released(boolean delete) throws IOException;
}
