package io.varve.bufferhash;

import static io.varve.bufferhash.WriteAheadLog.segmentName;

import io.varve.core.format.CorruptStoreException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * What an open checks of the write-ahead segments found against the table's {@link WalSyncMark},
 * before it replays them. Stateless; thread-safe.
 */
final class WriteAheadMarkCheck {
  private WriteAheadMarkCheck() {}

  /**
   * Refuses the segments when the one the mark names is shorter than the mark says, or missing with
   * no newer one: synced records would be lost ({@link WriteAheadShorterThanSyncException}). With
   * {@code drop}, logs it and goes on with what they hold. A newer segment than the mark's is
   * fine: the mark lags the log (its last writes unforced at a power loss).
   */
  static void checkNewest(WalSyncMark mark, Path directory, List<Path> files, boolean drop) throws IOException {
    WalSyncMark.Mark last = mark.last();
    if (last.syncedBytes() == 0) {
      return;
    }
    Path marked = directory.resolve(segmentName(last.segment()));
    boolean newer = !files.isEmpty() && files.get(files.size() - 1).getFileName().toString().compareTo(marked.getFileName().toString()) > 0;
    boolean exists = files.contains(marked);
    long size = exists ? Files.size(marked) : 0;
    if (exists ? size >= last.syncedBytes() : newer) {
      return;
    }
    WriteAheadShorterThanSyncException e = new WriteAheadShorterThanSyncException(marked, size, last.syncedBytes(), !exists);
    if (!drop) {
      throw e;
    }
    System.getLogger(BufferHash.class.getName())
        .log(System.Logger.Level.WARNING, "{0}: opened without them, as dropDamagedWriteAheadTail asks", e.getMessage());
  }

  /**
   * Refuses the segments when one from the mark's first segment to the segment before its newest
   * is missing: records an open needs are gone (the oldest of several deleted, a partial restore).
   * Returns the segments before the first: a retirement or a hand-over that a crash cut short
   * left them, once the mark said they were not needed; they are not replayed, and are deleted.
   * (The newest segment the mark names is {@link #checkNewest}'s.)
   */
  static List<Path> checkFirst(WalSyncMark mark, Path directory, List<Path> files) {
    WalSyncMark.Mark last = mark.last();
    if (last.syncedBytes() > 0) {
      for (long n = last.firstSegment(); n < last.segment(); n++) {
        Path needed = directory.resolve(segmentName(n));
        if (!files.contains(needed)) {
          throw new CorruptStoreException(needed + " is missing: the write-ahead sync mark (" + mark.file() + ") says segments "
              + segmentName(last.firstSegment()) + " to " + segmentName(last.segment()) + " hold records an open may need"
              + " (a segment deleted, or left out of a restore?)");
        }
      }
    }
    String first = segmentName(last.firstSegment());
    List<Path> retired = new ArrayList<>();
    for (Path file : files) {
      if (file.getFileName().toString().compareTo(first) < 0) {
        retired.add(file);
      }
    }
    return retired;
  }
}
