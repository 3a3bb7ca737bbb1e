package io.varve.silt;

import io.varve.core.format.CorruptStoreException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * How far the newest log was synced (manifest version 3): a file of two slots, written in place
 * after each log force that had news, so that opening can tell a log shorter than its last sync (an
 * older copy put back) from a tail a crash cut. The manifest, rewritten only at a freeze, a
 * conversion or a merge, cannot: it records 0 for the newest log.
 *
 * <pre>
 * SyncMark := Slot zeros Slot                   (slot s at s × 4096: one torn page spoils one slot)
 * Slot     := magic:int32 = 0x56534C53 ("VSLS") version:uint8 = 1 reserved:uint8[3]
 *             generation:int64 logNumber:int64 syncedBytes:int64
 *             crc:int32                         (Check of the 32 bytes before: salted with the store id)
 * </pre>
 *
 * One slot is durable (forced, valid), the other is scratch: each mark goes to the scratch slot
 * with the next generation, unforced, and the file is forced at most every {@link
 * #FORCE_INTERVAL_NANOS} (and at close), the scratch slot then becoming the durable one. So a sync
 * costs the log's force and a 36-byte write, not a second force; a write in flight never touches
 * the durable slot, so a power loss leaves a valid mark however it tears the other; and the newest
 * valid slot answers. The mark may lag the log (a power loss losing the scratch slot's unforced
 * writes, or tearing it), never lead it: it is written only once the log's bytes are durable, and
 * opening accepts any log at least as long as its newest valid slot says. A killed process loses
 * no mark (the kernel holds the write); a power loss may lose those since the last force: up to a
 * second of them, or, when no sync came after the last one, that one until the kernel writes it
 * back (seconds) or the store closes.
 *
 * <p>Not thread-safe: the store writes it under its write lock.
 */
final class SiltSyncMark implements AutoCloseable {
  static final String FILE = "SYNCMARK";
  static final int MAGIC = 0x56534C53;
  static final int VERSION = 1;
  static final int SLOT_BYTES = 36;
  /** A page apart: a write torn within a page or a sector damages one slot only. */
  static final int SLOT_SPACING = 4096;
  static final int FILE_BYTES = SLOT_SPACING + SLOT_BYTES;
  /** The longest a mark stays unforced (unless no sync comes): what a power loss may take of it. */
  static final long FORCE_INTERVAL_NANOS = 1_000_000_000L;

  /** A slot's content. */
  record Mark(long generation, long logNumber, long syncedBytes) {}

  private final Path file;
  private final FileAccess channel;
  private final SiltCheck check;
  private final ByteBuffer slot = ByteBuffer.allocate(SLOT_BYTES);
  private Mark last;
  /** The slot the next mark goes to; the other one is forced and valid. */
  private int scratch;
  /** Whether the scratch slot was written since the last force. */
  private boolean unforced;
  private long forcedAt = System.nanoTime();

  private SiltSyncMark(Path file, FileAccess channel, SiltCheck check, Mark last, int durable) {
    this.file = file;
    this.channel = channel;
    this.check = check;
    this.last = last;
    this.scratch = 1 - durable;
  }

  /**
   * Creates the mark file in {@code directory} (which must not hold one), both slots saying that
   * log {@code logNumber} was synced to {@code bytes}, and forces it.
   */
  static SiltSyncMark create(Path directory, SiltCheck check, long logNumber, long bytes) throws IOException {
    Path file = directory.resolve(FILE);
    FileAccess channel = FileAccess.open(file,
        new OpenOption[] {StandardOpenOption.CREATE_NEW, StandardOpenOption.READ, StandardOpenOption.WRITE},
        StandardOpenOption.READ, StandardOpenOption.WRITE);
    try {
      SiltSyncMark mark = new SiltSyncMark(file, channel, check, null, 1);
      mark.put(new Mark(0, logNumber, bytes), 0);
      mark.put(new Mark(1, logNumber, bytes), 1);
      channel.force(true);
      return mark;
    } catch (IOException | RuntimeException e) {
      channel.close();
      throw e;
    }
  }

  /**
   * Opens the mark file of {@code directory}, taking the valid slot of the highest generation, and
   * forces it: the slot read may be a write a killed process left unforced, and the next mark goes
   * to the other slot.
   *
   * @throws CorruptStoreException if the file has another length, or neither slot is valid
   */
  static SiltSyncMark open(Path directory, SiltCheck check) throws IOException {
    Path file = directory.resolve(FILE);
    FileAccess channel = FileAccess.open(file, new OpenOption[] {StandardOpenOption.READ, StandardOpenOption.WRITE},
        StandardOpenOption.READ, StandardOpenOption.WRITE);
    try {
      long size = channel.size();
      CorruptStoreException.check(size == FILE_BYTES, file + ": a sync mark of " + size + " bytes, not " + FILE_BYTES);
      Mark best = null;
      int bestSlot = 0;
      for (int s = 0; s < 2; s++) {
        ByteBuffer b = ByteBuffer.allocate(SLOT_BYTES);
        channel.readFully(b, (long) s * SLOT_SPACING);
        Mark m = parse(b.array(), check);
        if (m != null && (best == null || m.generation() > best.generation())) {
          best = m;
          bestSlot = s;
        }
      }
      CorruptStoreException.check(best != null, file + ": neither slot of the sync mark is valid: " + check.damaged("the sync mark"));
      CorruptStoreException.check(best.syncedBytes() >= SiltLog.HEADER_BYTES && best.syncedBytes() <= SiltLog.MAX_BYTES,
          file + ": bad synced length " + best.syncedBytes());
      channel.force(false);
      return new SiltSyncMark(file, channel, check, best, bestSlot);
    } catch (IOException | RuntimeException e) {
      channel.close();
      throw e;
    }
  }

  /** A slot's mark, or null when it is not one (torn, never written, damaged, another store's). */
  private static Mark parse(byte[] b, SiltCheck check) {
    ByteBuffer slot = ByteBuffer.wrap(b);
    if (slot.getInt(0) != MAGIC || b[4] != VERSION || check.of(b, 0, 32) != slot.getInt(32)) {
      return null;
    }
    return new Mark(slot.getLong(8), slot.getLong(16), slot.getLong(24));
  }

  Path file() {
    return file;
  }

  /** The newest valid mark. */
  Mark last() {
    return last;
  }

  /**
   * Records that log {@code logNumber} is durable up to {@code bytes}, which the caller has forced:
   * writes the scratch slot, and forces the file if the last force is {@link #FORCE_INTERVAL_NANOS}
   * old. Nothing is written when the mark already says so.
   */
  void record(long logNumber, long bytes) throws IOException {
    if (last.logNumber() == logNumber && last.syncedBytes() == bytes) {
      return; // a sync with nothing new
    }
    put(new Mark(last.generation() + 1, logNumber, bytes), scratch);
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
    slot.clear();
    slot.putInt(MAGIC).put((byte) VERSION).put(new byte[3]).putLong(m.generation()).putLong(m.logNumber()).putLong(m.syncedBytes());
    slot.putInt(check.of(slot.array(), 0, 32));
    slot.flip();
    channel.writeFully(slot, (long) into * SLOT_SPACING);
    last = m;
  }

  @Override
  public void close() throws IOException {
    channel.close();
  }
}
