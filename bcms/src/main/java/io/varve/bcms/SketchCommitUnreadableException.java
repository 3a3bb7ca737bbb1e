package io.varve.bcms;

import java.io.IOException;

/**
 * Opening a sketch file met a read error on a commit slot's page (see {@link SketchFile}) and could
 * not show that the other slot's record is the newest: the unreadable slot may hold a newer one,
 * and opening with the older record would commit over it (an older total weight, or counts taken
 * for missing). The sketch is refused without writing the file. The error may be transient (retry
 * the open); a slot that never reads again needs the file restored. Both slots unreadable, or the
 * other slot without a valid record, is refused the same way, each read error attached as
 * suppressed or as the cause.
 *
 * <p>Thrown by the sketches' opens as the cause of an {@link java.io.UncheckedIOException}.
 * Immutable; thread-safe.
 */
public final class SketchCommitUnreadableException extends IOException {
  private static final long serialVersionUID = 1L;

  SketchCommitUnreadableException(String message, IOException cause) {
    super(message, cause);
  }
}
