package io.varve.bufferhash;

import io.varve.core.files.InterruptSafeFile;
import io.varve.core.format.CorruptStoreException;
import java.io.IOException;
import java.nio.ByteBuffer;
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
 * With {@code syncedBytes} 0 it is {@code segment + 1}. One slot is durable (forced, valid), the other is scratch: each mark
 * goes to the scratch slot with the next generation, unforced, and the file is forced at most
 * every {@link #FORCE_INTERVAL_NANOS} (and at close and open), the scratch slot then becoming the
 * durable one. So a sync costs the segment's force and a 36-byte write, not a second force; a write
 * in flight never touches the durable slot; the newest valid slot answers. The mark may lag the
 * log, never lead it: it is written only once the segment's bytes are durable. A killed process
 * loses no mark (the kernel holds the write); a power loss may lose those since the last force: up
 * to a second of them, or, when no sync came after the last one, that one until the kernel writes
 * it back or the table closes. Within that window a cut newest segment still opens unnoticed.
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
  /** A page apart: a write torn within a page or a sector damages one slot only. */
  static final int SLOT_SPACING = 4096;
  /** A version-1 file's bytes. */
  static final int FILE_BYTES = SLOT_SPACING + SLOT_BYTES;
  /** The longest a mark stays unforced (unless no sync comes): what a power loss may take of it. */
  static final long FORCE_INTERVAL_NANOS = 1_000_000_000L;

  /** A slot's content; {@code firstSegment} is 0 in a version-1 slot, which does not record it. */
  record Mark(long generation, long segment, long syncedBytes, long firstSegment) {}

  private final Path file;
  private final InterruptSafeFile channel;
  private final long tableId;
  private final int version;
  private final ByteBuffer slot;
  private Mark last;
  /** The slot the next mark goes to; the other one is forced and valid. */
  private int scratch;
  /** Whether the scratch slot was written since the last force. */
  private boolean unforced;
  private long forcedAt = System.nanoTime();

  private WalSyncMark(Path file, InterruptSafeFile channel, long tableId, int version, Mark last, int durable) {
    this.file = file;
    this.channel = channel;
    this.tableId = tableId;
    this.version = version;
    this.slot = ByteBuffer.allocate(slotBytes(version));
    this.last = last;
    this.scratch = 1 - durable;
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
      WalSyncMark mark = new WalSyncMark(directory.resolve(FILE), channel, tableId, VERSION, null, 1);
      mark.put(new Mark(0, 0, 0, 1), 0);
      mark.put(new Mark(1, 0, 0, 1), 1);
      channel.force(true);
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
      Mark best = null;
      int bestSlot = 0;
      for (int s = 0; s < 2; s++) {
        ByteBuffer b = ByteBuffer.allocate(slotBytes(version));
        channel.readFully(b, (long) s * SLOT_SPACING);
        Mark m = parse(b.array(), tableId, version);
        if (m != null && (best == null || m.generation() > best.generation())) {
          best = m;
          bestSlot = s;
        }
      }
      CorruptStoreException.check(best != null, file + ": neither slot of the write-ahead sync mark is valid (damaged, or another table's)");
      CorruptStoreException.check(best.segment() >= 0 && best.syncedBytes() >= 0 && best.syncedBytes() <= Integer.MAX_VALUE
              && (best.syncedBytes() == 0 || best.syncedBytes() >= WriteAheadLog.SEGMENT_HEADER_BYTES && best.segment() > 0)
              && (version < VERSION || best.firstSegment() >= 1 && best.firstSegment() <= best.segment() + (best.syncedBytes() == 0 ? 1 : 0)),
          file + ": bad mark: segment " + best.segment() + ", " + best.syncedBytes() + " bytes synced"
              + (version < VERSION ? "" : ", first segment " + best.firstSegment()));
      channel.force(false);
      return new WalSyncMark(file, channel, tableId, version, best, bestSlot);
    } catch (IOException | RuntimeException e) {
      channel.close();
      throw e;
    }
  }

  /** A slot's mark, or null when it is not one (torn, never written, damaged, another table's). */
  private static Mark parse(byte[] b, long tableId, int version) {
    int end = slotBytes(version) - 4;
    if (LogFormat.getInt(b, 0) != MAGIC || b[4] != version || !LogFormat.isSealed(tableId, b, 0, end)) {
      return null;
    }
    return new Mark(LogFormat.getLong(b, 8), LogFormat.getLong(b, 16), LogFormat.getLong(b, 24), version < VERSION ? 0 : LogFormat.getLong(b, 32));
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
    return last;
  }

  /**
   * Records that segment {@code segment} is durable up to {@code bytes} (0: no segment is needed),
   * which the caller has made so, and that no segment before {@code firstSegment} is needed
   * (version 2; ignored by version 1): writes the scratch slot, and forces the file if the last
   * force is {@link #FORCE_INTERVAL_NANOS} old. Nothing is written when the mark already says so.
   */
  void record(long firstSegment, long segment, long bytes) throws IOException {
    long first = recordsFirstSegment() ? firstSegment : 0;
    if (last.segment() == segment && last.syncedBytes() == bytes && last.firstSegment() == first) {
      return; // a sync with nothing new
    }
    put(new Mark(last.generation() + 1, segment, bytes, first), scratch);
    unforced = true;
    if (System.nanoTime() - forcedAt >= FORCE_INTERVAL_NANOS) {
      force();
    }
  }

  /** Forces the scratch slot, if written since the last force; it becomes the durable one. */
  void force() throws IOException {
    if (unforced) {
      channel.force(false); // the length never changes: no metadata to force
      unforced = false;
      scratch = 1 - scratch;
    }
    forcedAt = System.nanoTime();
  }

  private void put(Mark m, int into) throws IOException {
    byte[] b = slot.array();
    java.util.Arrays.fill(b, (byte) 0);
    LogFormat.putInt(b, 0, MAGIC);
    b[4] = (byte) version;
    LogFormat.putLong(b, 8, m.generation());
    LogFormat.putLong(b, 16, m.segment());
    LogFormat.putLong(b, 24, m.syncedBytes());
    if (recordsFirstSegment()) {
      LogFormat.putLong(b, 32, m.firstSegment());
    }
    LogFormat.seal(tableId, b, 0, b.length - 4);
    slot.clear();
    channel.writeFully(slot, (long) into * SLOT_SPACING);
    last = m;
  }

  @Override
  public void close() throws IOException {
    channel.close();
  }
}
