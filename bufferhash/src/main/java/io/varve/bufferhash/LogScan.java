package io.varve.bufferhash;

import static io.varve.bufferhash.LogFormat.HEADER_BYTES;
import static io.varve.bufferhash.LogFormat.PAGE_BYTES;

import io.varve.core.files.InterruptSafeFile;
import io.varve.core.format.CorruptStoreException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * What an open finds in the log: the incarnations the state names, checked, and the whole ones
 * written after its head since the log was last forced. Reads only; {@link IncarnationLog#scan}
 * takes the result in. Not thread-safe (used once, by the opening thread).
 */
final class LogScan {
  /** The incarnations found, oldest first, and the head and next sequence after the last. */
  record Found(List<Incarnation> live, int head, long nextSequence) {}

  private final InterruptSafeFile log;
  private final Path logFile;
  private final int totalPages;
  private final int superTables;
  private final long tableId;
  /** The version of the state read on open: before 2, sequence numbers never skip. */
  private final int stateVersion;
  private final List<Incarnation> live = new ArrayList<>();
  private final byte[] header = new byte[HEADER_BYTES];

  LogScan(InterruptSafeFile log, Path logFile, int totalPages, int superTables, long tableId, int stateVersion) {
    this.log = log;
    this.logFile = logFile;
    this.totalPages = totalPages;
    this.superTables = superTables;
    this.tableId = tableId;
    this.stateVersion = stateVersion;
  }

  /**
   * Reads every incarnation between the state's tail and head, oldest first, checking sequence
   * numbers and checksums; {@code decoder} checks each and returns what RAM keeps. Then takes in
   * those written since ({@link #rollForwardWhole}).
   *
   * <p>The incarnations must run from the state's tail exactly to its head; the first carries
   * the state's tail sequence, each next one the sequence after, or after it by a whole number of
   * skips of {@code totalPages + 1} (one per open, see {@code IncarnationLog#skipSequences}), and
   * the next sequence follows the last the same way. So an incarnation of an older lap in place of
   * a live one (a lower sequence), or a state whose head or next sequence is off, is still refused.
   */
  Found run(IncarnationLog.Decoder decoder, int tail, long tailSequence, int head, long nextSequence) throws IOException {
    int page = tail;
    long sequence = tailSequence;
    if (tailSequence < nextSequence) {
      // Pages from the tail round to the head: the whole log when they meet.
      long span = head > tail ? head - tail : (long) totalPages - tail + head;
      long walked = 0;
      while (walked < span) {
        if (page == totalPages) {
          page = 0;
        }
        IncarnationLog.readFully(log, ByteBuffer.wrap(header), (long) page * PAGE_BYTES, logFile);
        if (IncarnationCodec.isWrap(header, 0)) {
          CorruptStoreException.check(page != 0, logFile + ": a wrap marker at page 0");
          walked += totalPages - page;
          page = 0;
          continue;
        }
        String where = logFile + " at page " + page;
        IncarnationCodec.Header fields = IncarnationCodec.readHeader(header, tableId, where);
        CorruptStoreException.check(
            walked == 0 ? fields.sequence == sequence : followsBySkips(sequence, fields.sequence) && fields.sequence < nextSequence,
            where + ": sequence " + fields.sequence + ", expected " + sequence + (walked == 0 ? "" : " (or after skips of " + (totalPages + 1L) + ")"));
        CorruptStoreException.check(
            fields.superTable >= 0 && fields.superTable < superTables && page + (long) fields.pages <= totalPages,
            where + ": header out of range");
        CorruptStoreException.check(
            walked + fields.pages <= span, logFile + ": the incarnations run past page " + head + ", the state's head");
        LargeIncarnations.checkUnits(log, page, fields, where);
        Incarnation incarnation = decode(decoder, fields, page);
        if (incarnation.startPage != page) {
          throw new IllegalStateException("decoder placed " + incarnation + " elsewhere than page " + page);
        }
        live.add(incarnation);
        walked += fields.pages;
        page += fields.pages;
        sequence = fields.sequence + 1;
      }
      CorruptStoreException.check(
          walked == span && followsBySkips(sequence, nextSequence),
          logFile + ": the incarnations end at page " + page + " before sequence " + sequence + ", the state says page " + head
              + " before sequence " + nextSequence);
    }
    return rollForwardWhole(decoder, head, nextSequence);
  }

  private Incarnation decode(IncarnationLog.Decoder decoder, IncarnationCodec.Header fields, int page) throws IOException {
    // Read whole to be decoded: one entry of more than the heap (a table written by a JVM with a
    // larger heap) is refused as such, where the allocation gave an OutOfMemoryError.
    WholeFile.checkHeap(logFile, "the incarnation at page " + page + " (" + fields.pages + " pages)", (long) fields.pages * PAGE_BYTES);
    byte[] bytes = new byte[fields.pages * PAGE_BYTES];
    IncarnationLog.readFully(log, ByteBuffer.wrap(bytes), (long) page * PAGE_BYTES, logFile);
    return decoder.decode(bytes, fields, page);
  }

  /** Whether {@code actual} is {@code expected}, or after it by a whole number of skips (of {@code totalPages + 1}). */
  private boolean followsBySkips(long expected, long actual) {
    if (stateVersion < 2) {
      return actual == expected;
    }
    return actual >= expected && (actual - expected) % (totalPages + 1L) == 0;
  }

  /**
   * Takes in whole incarnations written after the state's head: written since the log was last
   * forced, or the newest state slot was damaged and the older one was read. An incarnation counts
   * only with the next sequence number and every unit's checksum right (a torn write is left out:
   * nothing recorded it).
   */
  private Found rollForwardWhole(IncarnationLog.Decoder decoder, int head, long nextSequence) throws IOException {
    while (true) {
      int page = head == totalPages ? 0 : head;
      IncarnationLog.readFully(log, ByteBuffer.wrap(header), (long) page * PAGE_BYTES, logFile);
      if (IncarnationCodec.isWrap(header, 0) && page != 0) {
        page = 0;
        IncarnationLog.readFully(log, ByteBuffer.wrap(header), 0, logFile);
      }
      IncarnationCodec.Header fields;
      try {
        fields = IncarnationCodec.readHeader(header, tableId, logFile + " at page " + page);
      } catch (CorruptStoreException notAnIncarnation) {
        return new Found(live, head, nextSequence);
      }
      if (fields.sequence != nextSequence || fields.superTable < 0 || fields.superTable >= superTables || page + (long) fields.pages > totalPages
          || overlapsLive(page, fields.pages)) {
        return new Found(live, head, nextSequence);
      }
      Incarnation incarnation;
      try {
        LargeIncarnations.checkUnits(log, page, fields, logFile + " at page " + page);
        incarnation = decode(decoder, fields, page);
      } catch (CorruptStoreException torn) {
        return new Found(live, head, nextSequence);
      }
      live.add(incarnation);
      head = page + fields.pages;
      nextSequence++;
    }
  }

  private boolean overlapsLive(int page, int pages) {
    for (Incarnation incarnation : live) {
      if (page < incarnation.startPage + incarnation.pages && incarnation.startPage < page + pages) {
        return true;
      }
    }
    return false;
  }
}
