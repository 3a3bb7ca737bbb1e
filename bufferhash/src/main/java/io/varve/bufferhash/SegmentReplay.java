package io.varve.bufferhash;

import static io.varve.bufferhash.WriteAheadLog.BODY_HEADER_BYTES;
import static io.varve.bufferhash.WriteAheadLog.KIND_ENTRY;
import static io.varve.bufferhash.WriteAheadLog.KIND_FLUSHED;
import static io.varve.bufferhash.WriteAheadLog.MAGIC;
import static io.varve.bufferhash.WriteAheadLog.RECORD_HEADER_BYTES;
import static io.varve.bufferhash.WriteAheadLog.SEGMENT;
import static io.varve.bufferhash.WriteAheadLog.SEGMENT_HEADER_BYTES;
import static io.varve.bufferhash.WriteAheadLog.segmentName;

import io.varve.core.format.CorruptStoreException;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Reads one write-ahead segment back on open ({@link WriteAheadLog}'s grammar): checks its header
 * and records, decides what at the end of the newest segment a crash left (and cuts it off), and
 * hands the records to a {@link WriteAheadLog.Replayer}. Stateless; thread-safe.
 */
final class SegmentReplay {
  private SegmentReplay() {}

  /** Bytes of a record's body that tell its sequence, kind, super table and entry size: the body's header and two varints. */
  private static final int BODY_PREFIX_BYTES = BODY_HEADER_BYTES + 10;

  /**
   * Replays one segment; returns its number, its first sequence and the sequence after its last
   * record, or null for a newest segment whose header was never whole (it is deleted). The
   * segment is read a window at a time ({@link WholeFile}): a record longer than the window is
   * checked through it, and read whole only when its entry is handed over ({@code entries}) and
   * {@link WriteAheadLog.Replayer#wants} it, after {@link HeapTooSmallException} if the heap
   * cannot take it in.
   */
  static long[] replay(
      Path file, boolean newest, boolean dropDamaged, int superTables, long tableId, long expectedFirst, WriteAheadLog.Replayer replayer,
      boolean entries)
      throws IOException {
    try (WholeFile segment = WholeFile.open(file, "write-ahead segment")) {
      return replay(segment, file, newest, dropDamaged, superTables, tableId, expectedFirst, replayer, entries);
    }
  }

  private static long[] replay(
      WholeFile segment, Path file, boolean newest, boolean dropDamaged, int superTables, long tableId, long expectedFirst,
      WriteAheadLog.Replayer replayer, boolean entries)
      throws IOException {
    String where = file.toString();
    int size = segment.size();
    byte[] bytes = new byte[0];
    if (size > 0) {
      int length = Math.min(size, SEGMENT_HEADER_BYTES);
      int offset = segment.at(0, length);
      bytes = java.util.Arrays.copyOfRange(segment.window(), offset, offset + length);
    }
    if (newest && !LogFormat.isSealed(tableId, bytes, 0, 24)
        && size <= SEGMENT_HEADER_BYTES) {
      segment.close();
      Files.delete(file);
      return null;
    }
    CorruptStoreException.check(size >= SEGMENT_HEADER_BYTES, where + ": shorter than a segment header");
    CorruptStoreException.check(LogFormat.getInt(bytes, 0) == MAGIC, where + ": not a write-ahead log segment");
    int version = SEGMENT.checkHeader(bytes, where);
    LogFormat.checkVersion(SEGMENT, version, tableId, where);
    LogFormat.checkSealed(SEGMENT, tableId, bytes, 0, 24, where);
    long number = LogFormat.getLong(bytes, 8);
    long first = LogFormat.getLong(bytes, 16);
    CorruptStoreException.check(
        file.getFileName().toString().equals(segmentName(number)), where + ": the header says segment " + number + ", the file name another");
    CorruptStoreException.check(
        expectedFirst < 0 || first == expectedFirst, where + ": starts at sequence " + first + ", the segment before ends before " + expectedFirst);
    long sequence = first;
    int at = SEGMENT_HEADER_BYTES;
    while (at < size) {
      boolean whole = at + RECORD_HEADER_BYTES <= size;
      int length = -1;
      int crc = 0;
      if (whole) {
        int offset = segment.at(at, RECORD_HEADER_BYTES);
        length = LogFormat.getInt(segment.window(), offset);
        crc = LogFormat.getInt(segment.window(), offset + 4);
      }
      whole = whole && length >= BODY_HEADER_BYTES && at + RECORD_HEADER_BYTES + (long) length <= size;
      boolean inWindow = whole && length <= WholeFile.WINDOW_BYTES;
      int body = at + RECORD_HEADER_BYTES;
      boolean valid;
      if (inWindow) {
        int offset = segment.at(body, length);
        valid = crc == LogFormat.check(tableId, segment.window(), offset, offset + length);
      } else {
        valid = whole && crc == segment.check(tableId, body, body + (long) length);
      }
      if (!valid) {
        cutAtDamage(segment, file, at, whole, length, newest, dropDamaged, tableId, sequence);
        break;
      }
      // The body, at b[from, from + length) (of a long record not handed over, only its prefix).
      byte[] b;
      int from;
      if (inWindow) {
        from = segment.at(body, length);
        b = segment.window();
      } else {
        from = 0;
        int offset = segment.at(body, BODY_PREFIX_BYTES);
        b = java.util.Arrays.copyOfRange(segment.window(), offset, offset + BODY_PREFIX_BYTES);
        int superTable = LogFormat.getInt(b, 9); // checked below; asked about only in range
        if (entries && b[8] == KIND_ENTRY && superTable >= 0 && superTable < superTables && replayer.wants(LogFormat.getLong(b, 0), superTable)) {
          b = segment.read(body, length, 2, "write-ahead record " + sequence + " (" + length + " bytes)");
        }
      }
      long recordSequence = LogFormat.getLong(b, from);
      byte kind = b[from + 8];
      int superTable = LogFormat.getInt(b, from + 9);
      // The checks build their messages only on failure: they run for every record replayed.
      if (recordSequence != sequence) {
        throw new CorruptStoreException(where + ": record " + recordSequence + " where " + sequence + " belongs");
      }
      if (superTable < 0 || superTable >= superTables) {
        throw new CorruptStoreException(where + ": super table " + superTable);
      }
      int payload = from + BODY_HEADER_BYTES;
      int end = from + length;
      if (kind == KIND_ENTRY) {
        int entrySize = entrySize(b, payload, end, where);
        if (payload + entrySize != end) {
          throw new CorruptStoreException(where + ": record " + recordSequence + " has bytes after its entry");
        }
        if (entries && end <= b.length) { // a prefix only: a long record the replayer does not want
          replayer.entry(recordSequence, superTable, WriteBuffer.key(b, payload), WriteBuffer.value(b, payload));
        }
      } else if (kind == KIND_FLUSHED) {
        if (end - payload != 8) {
          throw new CorruptStoreException(where + ": record " + recordSequence + " of a wrong length");
        }
        if (!entries) {
          replayer.flushed(superTable, LogFormat.getLong(b, payload));
        }
      } else {
        throw new CorruptStoreException(where + ": record " + recordSequence + " of unknown kind " + kind);
      }
      sequence++;
      at = body + length;
    }
    return new long[] {number, first, sequence};
  }

  /**
   * Cuts the file at the damaged record at {@code at}, or throws. A record cut short at the very
   * end of the newest segment is an append the process did not finish (a crash may leave zeros
   * after the part written, up to where the file's length reached; a length has no checksum of its
   * own, so one that runs past the end is taken as cut short, unless the record it heads is whole
   * before the end, see {@link #wholeUnderItsLength}). Any other damage is refused, unless {@code
   * dropDamaged}: then it goes with every record after it, logged.
   */
  private static void cutAtDamage(
      WholeFile segment, Path file, int at, boolean whole, int length, boolean newest, boolean dropDamaged, long tableId, long sequence)
      throws IOException {
    long size = segment.size();
    boolean cutShort = at + RECORD_HEADER_BYTES > size
        || (length >= BODY_HEADER_BYTES && at + RECORD_HEADER_BYTES + (long) length > size
            && !wholeUnderItsLength(segment, at, tableId, sequence));
    boolean torn = newest && (cutShort || segment.zerosFrom(whole ? at + RECORD_HEADER_BYTES + (long) length : at));
    if (!torn && !dropDamaged) {
      throw new CorruptStoreException(file + ": damaged record at offset " + at + (newest
          ? " (if a power loss left it among writes not yet synced, BufferHashBuilder.dropDamagedWriteAheadTail drops it and the records after it)"
          : ""));
    }
    if (!torn) {
      System.getLogger(BufferHash.class.getName())
          .log(Level.WARNING, "{0}: damaged record at offset {1}: dropped with the {2} bytes after it, as dropDamagedWriteAheadTail asks",
              file, at, size - at);
    }
    truncate(file, at);
  }

  /**
   * The size of the entry at {@code payload} of a record body ending at {@code end}, as {@link
   * IncarnationCodec#checkedEntrySize}; {@code bytes} may hold only the body's prefix (a long
   * record not read whole), whose varints say it.
   */
  private static int entrySize(byte[] bytes, int payload, int end, String where) {
    if (end <= bytes.length) {
      return IncarnationCodec.checkedEntrySize(bytes, payload, end, where);
    }
    long keyLength = LogFormat.getVarint(bytes, payload, bytes.length);
    long valueCode = keyLength < 0 ? -1 : LogFormat.getVarint(bytes, (int) (keyLength >>> 32), bytes.length);
    if (valueCode < 0) {
      throw new CorruptStoreException(where + ": malformed entry at unit offset " + payload);
    }
    int code = (int) valueCode;
    long size = (valueCode >>> 32) - payload + (keyLength & 0xFFFFFFFFL) + (code == 0 ? 0 : code - 1L);
    if (payload + size > end) {
      throw new CorruptStoreException(where + ": entry at unit offset " + payload + " runs past its unit");
    }
    return (int) size;
  }

  /**
   * Whether the record at {@code at}, whose length runs past the end, is whole all the same: its
   * body, of the length its own entry (or kind) implies, carries the sequence expected and the
   * header's checksum. Then its length was damaged, and the synced records after it are there:
   * before, they were all dropped as a write the crash cut short, without a word.
   */
  private static boolean wholeUnderItsLength(WholeFile segment, int at, long tableId, long sequence) throws IOException {
    int crc = LogFormat.getInt(segment.window(), segment.at(at, RECORD_HEADER_BYTES) + 4);
    long body = at + RECORD_HEADER_BYTES;
    if (segment.size() - body < BODY_HEADER_BYTES) {
      return false;
    }
    int prefix = (int) Math.min(segment.size() - body, BODY_PREFIX_BYTES);
    int from = segment.at(body, prefix);
    byte[] bytes = segment.window();
    int end = from + prefix;
    if (LogFormat.getLong(bytes, from) != sequence) {
      return false;
    }
    long bodyBytes;
    if (bytes[from + 8] == KIND_FLUSHED) {
      bodyBytes = BODY_HEADER_BYTES + 8;
    } else if (bytes[from + 8] == KIND_ENTRY) {
      int payload = from + BODY_HEADER_BYTES;
      long keyLength = LogFormat.getVarint(bytes, payload, end);
      long valueCode = keyLength < 0 ? -1 : LogFormat.getVarint(bytes, (int) (keyLength >>> 32), end);
      if (valueCode < 0) {
        return false;
      }
      int code = (int) valueCode;
      bodyBytes = (valueCode >>> 32) - from + (keyLength & 0xFFFFFFFFL) + (code == 0 ? 0 : code - 1L);
    } else {
      return false;
    }
    return body + bodyBytes <= segment.size() && crc == segment.check(tableId, body, body + bodyBytes);
  }

  private static void truncate(Path file, long length) throws IOException {
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
      channel.truncate(length);
      channel.force(true);
    }
  }
}
