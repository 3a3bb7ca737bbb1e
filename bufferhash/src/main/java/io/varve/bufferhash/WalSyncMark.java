package io.varve.bufferhash;

import io.varve.core.files.AlternatingSlots;
import io.varve.core.files.InterruptSafeFile;
import io.varve.core.format.CorruptStoreException;
import java.io.IOException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * How far the write-ahead log was synced (state versions 4 and 5): a file of two slots, written in
 * place after each force of a segment that made records durable, so that opening can tell a newest
 * segment shorter than its last sync (an older copy put back, a file system that lost its tail)
 * from a record a crash cut short. The segments alone cannot: a segment cut at a record boundary
 * reads as a whole, shorter log. As SILT's sync mark ({@code SiltSyncMark}), salted with the table id:
 *
 * <pre>
 * walmark := Slot zeros Slot                    (slot s at s × 4096: one torn page spoils one slot)
 * Slot    := magic:int32 = 0x5642484D ("VBHM") version:uint8 = 2 (1: state version 4) reserved:uint8[3]
 *            generation:int64 segment:int64 syncedBytes:int64
 *            firstSegment:int64                 (version 2 only)
 *            crc:int32                          (Check of the bytes before, salted with the table id)
 * </pre>
 *
 * {@code syncedBytes} 0 says no segment need exist (a new table, or the segments handed over to
 * the buffers file on close). {@code firstSegment} (version 2, state version 5) is the oldest
 * segment whose records an open may need: every segment from it to {@code segment} must exist, and
 * older ones are left over from a retirement or a hand-over that a crash cut short. It is written
 * and forced before the segments below it are deleted, so that it may lag a deletion's cause, never
 * the deletion: without it the oldest of several segments could be deleted unnoticed (version 1).
 * With {@code syncedBytes} 0 it is {@code segment + 1}. (Little-endian.) The slots alternate as
 * {@link AlternatingSlots} says: a sync costs the segment's force and a small write, not a second
 * force. The mark may lag the log, never lead it: it is written only once the segment's bytes are
 * durable. A power loss may lose the marks since the last force: up to a second of them, or, when
 * no sync came after the last one, that one until the kernel writes it back or the table closes.
 * Within that window a cut newest segment still opens unnoticed.
 *
 * <p>Not thread-safe: the write-ahead log calls it under its sync lock.
 */
final class WalSyncMark implements AutoCloseable {
  static final String FILE = "walmark";
  static final int MAGIC = 0x5642484D;
  /** The version a new table's mark is of: it records the first segment. */
  static final int VERSION = 2;
  /** The version of the mark of a table of state version 4, which it keeps: no first segment. */
  static final int UNNUMBERED_VERSION = 1;
  /** A version-1 slot's bytes. */
  static final int SLOT_BYTES = 36;
  /** A version-2 slot's bytes: the first segment too. */
  static final int FIRST_SEGMENT_SLOT_BYTES = 44;
  static final int SLOT_SPACING = AlternatingSlots.SLOT_SPACING;
  /** A version-1 file's bytes. */
  static final int FILE_BYTES = SLOT_SPACING + SLOT_BYTES;

  /** A slot's content; {@code firstSegment} is 0 in a version-1 slot, which does not record it. */
  record Mark(long generation, long segment, long syncedBytes, long firstSegment) {}

  /** What a slot says besides its generation. */
  private record Synced(long segment, long syncedBytes, long firstSegment) {}

  /** The slots' layout in a mark of {@code version}, sealed with the table id. */
  private record Codec(long tableId, int version) implements AlternatingSlots.Codec<Synced> {
    @Override
    public int slotBytes() {
      return WalSyncMark.slotBytes(version);
    }

    @Override
    public void encode(long generation, Synced value, byte[] b) {
      LogFormat.putInt(b, 0, MAGIC);
      b[4] = (byte) version;
      LogFormat.putLong(b, 8, generation);
      LogFormat.putLong(b, 16, value.segment());
      LogFormat.putLong(b, 24, value.syncedBytes());
      if (version >= VERSION) {
        LogFormat.putLong(b, 32, value.firstSegment());
      }
      LogFormat.seal(tableId, b, 0, b.length - 4);
    }

    /** A slot's mark, or null when it is not one (torn, never written, damaged, another table's). */
    @Override
    public AlternatingSlots.Slot<Synced> decode(byte[] b) {
      if (LogFormat.getInt(b, 0) != MAGIC || b[4] != version || !LogFormat.isSealed(tableId, b, 0, b.length - 4)) {
        return null;
      }
      return new AlternatingSlots.Slot<>(LogFormat.getLong(b, 8),
          new Synced(LogFormat.getLong(b, 16), LogFormat.getLong(b, 24), version < VERSION ? 0 : LogFormat.getLong(b, 32)));
    }
  }

  private final Path file;
  private final int version;
  private final AlternatingSlots<Synced> slots;

  private WalSyncMark(Path file, int version, AlternatingSlots<Synced> slots) {
    this.file = file;
    this.version = version;
    this.slots = slots;
  }

  /** A slot's bytes in a mark of {@code version}. */
  static int slotBytes(int version) {
    return version >= VERSION ? FIRST_SEGMENT_SLOT_BYTES : SLOT_BYTES;
  }

  /** The file's bytes in a mark of {@code version}. */
  static int fileBytes(int version) {
    return SLOT_SPACING + slotBytes(version);
  }

  /**
   * Creates the mark file of a new table in {@code directory} (of {@link #VERSION}), both slots
   * saying nothing was synced and segment 1 comes first, forced; closed.
   */
  static void create(Path directory, long tableId) throws IOException {
    try (InterruptSafeFile channel = Channels.openShared(directory.resolve(FILE), StandardOpenOption.CREATE_NEW)) {
      AlternatingSlots.create(channel, new Codec(tableId, VERSION), new Synced(0, 0, 1));
    }
  }

  /**
   * Opens the mark file of {@code directory}, of {@code version} (the one the table's state calls
   * for: a table keeps its version), taking the valid slot of the highest generation, and forces
   * it: the slot read may be a write a killed process left unforced.
   *
   * @throws CorruptStoreException if the file is missing, has another length (another version's),
   *     neither slot is valid, or the newest has impossible fields
   */
  static WalSyncMark open(Path directory, long tableId, int version) throws IOException {
    Path file = directory.resolve(FILE);
    CorruptStoreException.check(java.nio.file.Files.exists(file), file + " is missing: the state says the table keeps one");
    InterruptSafeFile channel = Channels.openShared(file);
    try {
      long size = channel.size();
      CorruptStoreException.check(size == fileBytes(version),
          file + ": a write-ahead sync mark of " + size + " bytes, not " + fileBytes(version) + " (version " + version + ", as the state says)");
      AlternatingSlots<Synced> slots =
          AlternatingSlots.open(channel, new Codec(tableId, version), "write-ahead sync mark", " (damaged, or another table's)");
      Synced best = slots.last().value();
      CorruptStoreException.check(best.segment() >= 0 && best.syncedBytes() >= 0 && best.syncedBytes() <= Integer.MAX_VALUE
              && (best.syncedBytes() == 0 || best.syncedBytes() >= WriteAheadLog.SEGMENT_HEADER_BYTES && best.segment() > 0)
              && (version < VERSION || best.firstSegment() >= 1 && best.firstSegment() <= best.segment() + (best.syncedBytes() == 0 ? 1 : 0)),
          file + ": bad mark: segment " + best.segment() + ", " + best.syncedBytes() + " bytes synced"
              + (version < VERSION ? "" : ", first segment " + best.firstSegment()));
      return new WalSyncMark(file, version, slots);
    } catch (IOException | RuntimeException e) {
      channel.close();
      throw e;
    }
  }

  /** Whether the mark records the first segment (version 2). */
  boolean recordsFirstSegment() {
    return version >= VERSION;
  }

  Path file() {
    return file;
  }

  /** The newest valid mark. */
  Mark last() {
    AlternatingSlots.Slot<Synced> last = slots.last();
    Synced value = last.value();
    return new Mark(last.generation(), value.segment(), value.syncedBytes(), value.firstSegment());
  }

  /**
   * Records that segment {@code segment} is durable up to {@code bytes} (0: no segment is needed),
   * which the caller has made so, and that no segment before {@code firstSegment} is needed
   * (version 2; ignored by version 1), as {@link AlternatingSlots#record} does: nothing is written
   * when the mark already says so.
   */
  void record(long firstSegment, long segment, long bytes) throws IOException {
    slots.record(new Synced(segment, bytes, recordsFirstSegment() ? firstSegment : 0));
  }

  /** Forces the scratch slot, if written since the last force; it becomes the durable one. */
  void force() throws IOException {
    slots.force();
  }

  @Override
  public void close() throws IOException {
    slots.close();
  }
}
