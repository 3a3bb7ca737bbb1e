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

  /**
   * Replays one segment; returns its number, its first sequence and the sequence after its last
   * record, or null for a newest segment whose header was never whole (it is deleted).
   */
  static long[] replay(
      Path file, boolean newest, boolean dropDamaged, int superTables, long tableId, long expectedFirst, WriteAheadLog.Replayer replayer,
      boolean entries)
      throws IOException {
    byte[] bytes = WholeFile.read(file, "write-ahead segment");
    String where = file.toString();
    if (newest && !LogFormat.isSealed(tableId, bytes, 0, 24)
        && bytes.length <= SEGMENT_HEADER_BYTES) {
      Files.delete(file);
      return null;
    }
    CorruptStoreException.check(bytes.length >= SEGMENT_HEADER_BYTES, where + ": shorter than a segment header");
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
    while (at < bytes.length) {
      boolean whole = at + RECORD_HEADER_BYTES <= bytes.length;
      int length = whole ? LogFormat.getInt(bytes, at) : -1;
      whole = whole && length >= BODY_HEADER_BYTES && at + RECORD_HEADER_BYTES + (long) length <= bytes.length;
      boolean valid = whole && LogFormat.getInt(bytes, at + 4) == LogFormat.check(tableId, bytes, at + RECORD_HEADER_BYTES, at + RECORD_HEADER_BYTES + length);
      if (!valid) {
        cutAtDamage(file, bytes, at, whole, length, newest, dropDamaged, tableId, sequence);
        break;
      }
      int body = at + RECORD_HEADER_BYTES;
      long recordSequence = LogFormat.getLong(bytes, body);
      byte kind = bytes[body + 8];
      int superTable = LogFormat.getInt(bytes, body + 9);
      // The checks build their messages only on failure: they run for every record replayed.
      if (recordSequence != sequence) {
        throw new CorruptStoreException(where + ": record " + recordSequence + " where " + sequence + " belongs");
      }
      if (superTable < 0 || superTable >= superTables) {
        throw new CorruptStoreException(where + ": super table " + superTable);
      }
      int payload = body + BODY_HEADER_BYTES;
      int end = body + length;
      if (kind == KIND_ENTRY) {
        int size = IncarnationCodec.checkedEntrySize(bytes, payload, end, where);
        if (payload + size != end) {
          throw new CorruptStoreException(where + ": record " + recordSequence + " has bytes after its entry");
        }
        if (entries) {
          replayer.entry(recordSequence, superTable, WriteBuffer.key(bytes, payload), WriteBuffer.value(bytes, payload));
        }
      } else if (kind == KIND_FLUSHED) {
        if (end - payload != 8) {
          throw new CorruptStoreException(where + ": record " + recordSequence + " of a wrong length");
        }
        if (!entries) {
          replayer.flushed(superTable, LogFormat.getLong(bytes, payload));
        }
      } else {
        throw new CorruptStoreException(where + ": record " + recordSequence + " of unknown kind " + kind);
      }
      sequence++;
      at = end;
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
      Path file, byte[] bytes, int at, boolean whole, int length, boolean newest, boolean dropDamaged, long tableId, long sequence)
      throws IOException {
    boolean cutShort = at + RECORD_HEADER_BYTES > bytes.length
        || (length >= BODY_HEADER_BYTES && at + RECORD_HEADER_BYTES + (long) length > bytes.length
            && !wholeUnderItsLength(bytes, at, tableId, sequence));
    boolean torn = newest && (cutShort || zerosFrom(bytes, whole ? at + RECORD_HEADER_BYTES + length : at));
    if (!torn && !dropDamaged) {
      throw new CorruptStoreException(file + ": damaged record at offset " + at + (newest
          ? " (if a power loss left it among writes not yet synced, BufferHashBuilder.dropDamagedWriteAheadTail drops it and the records after it)"
          : ""));
    }
    if (!torn) {
      System.getLogger(BufferHash.class.getName())
          .log(Level.WARNING, "{0}: damaged record at offset {1}: dropped with the {2} bytes after it, as dropDamagedWriteAheadTail asks",
              file, at, bytes.length - at);
    }
    truncate(file, at);
  }

  /**
   * Whether the record at {@code at}, whose length runs past the end, is whole all the same: its
   * body, of the length its own entry (or kind) implies, carries the sequence expected and the
   * header's checksum. Then its length was damaged, and the synced records after it are there:
   * before, they were all dropped as a write the crash cut short, without a word.
   */
  private static boolean wholeUnderItsLength(byte[] bytes, int at, long tableId, long sequence) {
    int body = at + RECORD_HEADER_BYTES;
    if (bytes.length - body < BODY_HEADER_BYTES || LogFormat.getLong(bytes, body) != sequence) {
      return false;
    }
    long bodyBytes;
    if (bytes[body + 8] == KIND_FLUSHED) {
      bodyBytes = BODY_HEADER_BYTES + 8;
    } else if (bytes[body + 8] == KIND_ENTRY) {
      int payload = body + BODY_HEADER_BYTES;
      long keyLength = LogFormat.getVarint(bytes, payload, bytes.length);
      long valueCode = keyLength < 0 ? -1 : LogFormat.getVarint(bytes, (int) (keyLength >>> 32), bytes.length);
      if (valueCode < 0) {
        return false;
      }
      int code = (int) valueCode;
      bodyBytes = (valueCode >>> 32) - body + (keyLength & 0xFFFFFFFFL) + (code == 0 ? 0 : code - 1L);
    } else {
      return false;
    }
    return body + bodyBytes <= bytes.length && LogFormat.getInt(bytes, at + 4) == LogFormat.check(tableId, bytes, body, (int) (body + bodyBytes));
  }

  /** Whether {@code bytes} from {@code from} to the end are all zero (true for none). */
  private static boolean zerosFrom(byte[] bytes, int from) {
    for (int i = from; i < bytes.length; i++) {
      if (bytes[i] != 0) {
        return false;
      }
    }
    return true;
  }

  private static void truncate(Path file, long length) throws IOException {
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
      channel.truncate(length);
      channel.force(true);
    }
  }
}
