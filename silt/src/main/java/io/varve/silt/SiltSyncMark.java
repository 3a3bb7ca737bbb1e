package io.varve.silt;

import io.varve.core.files.AlternatingSlots;
import io.varve.core.files.InterruptSafeFile;
import io.varve.core.format.CorruptStoreException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * How far the newest log was synced (manifest version 3): a file of two slots ({@link
 * AlternatingSlots}), written after each log force that had news, so that opening can tell a log
 * shorter than its last sync (an older copy put back) from a tail a crash cut. The manifest,
 * rewritten only at a freeze, a conversion or a merge, cannot: it records 0 for the newest log.
 *
 * <pre>
 * SyncMark := Slot zeros Slot                   (slot s at s × 4096: one torn page spoils one slot)
 * Slot     := magic:int32 = 0x56534C53 ("VSLS") version:uint8 = 1 reserved:uint8[3]
 *             generation:int64 logNumber:int64 syncedBytes:int64
 *             crc:int32                         (Check of the 32 bytes before: salted with the store id)
 * </pre>
 *
 * (Big-endian.) The mark may lag the log (a power loss losing the scratch slot's unforced writes,
 * or tearing it), never lead it: it is written only once the log's bytes are durable, and opening
 * accepts any log at least as long as its newest valid slot says. A power loss may lose the marks
 * since the last force: up to a second of them ({@link AlternatingSlots#FORCE_INTERVAL_NANOS}),
 * or, when no sync came after the last one, that one until the kernel writes it back (seconds) or
 * the store closes.
 *
 * <p>Not thread-safe: the store writes it under its write lock.
 */
final class SiltSyncMark implements AutoCloseable {
  static final String FILE = "SYNCMARK";
  static final int MAGIC = 0x56534C53;
  static final int VERSION = 1;
  static final int SLOT_BYTES = 36;
  static final int SLOT_SPACING = AlternatingSlots.SLOT_SPACING;
  static final int FILE_BYTES = SLOT_SPACING + SLOT_BYTES;

  /** A slot's content. */
  record Mark(long generation, long logNumber, long syncedBytes) {}

  /** What a slot says besides its generation. */
  private record Synced(long logNumber, long syncedBytes) {}

  /** The slots' layout, checked with the store's {@link SiltCheck}. */
  private record Codec(SiltCheck check) implements AlternatingSlots.Codec<Synced> {
    @Override
    public int slotBytes() {
      return SLOT_BYTES;
    }

    @Override
    public void encode(long generation, Synced value, byte[] slot) {
      ByteBuffer b = ByteBuffer.wrap(slot);
      b.putInt(MAGIC).put((byte) VERSION).put(new byte[3]).putLong(generation).putLong(value.logNumber()).putLong(value.syncedBytes());
      b.putInt(check.of(slot, 0, 32));
    }

    @Override
    public AlternatingSlots.Slot<Synced> decode(byte[] slot) {
      ByteBuffer b = ByteBuffer.wrap(slot);
      if (b.getInt(0) != MAGIC || slot[4] != VERSION || check.of(slot, 0, 32) != b.getInt(32)) {
        return null;
      }
      return new AlternatingSlots.Slot<>(b.getLong(8), new Synced(b.getLong(16), b.getLong(24)));
    }
  }

  private final Path file;
  private final AlternatingSlots<Synced> slots;

  private SiltSyncMark(Path file, AlternatingSlots<Synced> slots) {
    this.file = file;
    this.slots = slots;
  }

  private static InterruptSafeFile openFile(Path file, OpenOption... openOptions) throws IOException {
    FileAccess.Opener opener = FileAccess.opener;
    return InterruptSafeFile.open(opener::open, file, openOptions, StandardOpenOption.READ, StandardOpenOption.WRITE);
  }

  /**
   * Creates the mark file in {@code directory} (which must not hold one), both slots saying that
   * log {@code logNumber} was synced to {@code bytes}, and forces it.
   */
  static SiltSyncMark create(Path directory, SiltCheck check, long logNumber, long bytes) throws IOException {
    Path file = directory.resolve(FILE);
    InterruptSafeFile channel = openFile(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ, StandardOpenOption.WRITE);
    try {
      return new SiltSyncMark(file, AlternatingSlots.create(channel, new Codec(check), new Synced(logNumber, bytes)));
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
    InterruptSafeFile channel = openFile(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
    try {
      AlternatingSlots<Synced> slots = AlternatingSlots.open(channel, new Codec(check), "sync mark", ": " + check.damaged("the sync mark"));
      long synced = slots.last().value().syncedBytes();
      CorruptStoreException.check(synced >= SiltLog.HEADER_BYTES && synced <= SiltLog.MAX_BYTES, file + ": bad synced length " + synced);
      return new SiltSyncMark(file, slots);
    } catch (IOException | RuntimeException e) {
      channel.close();
      throw e;
    }
  }

  Path file() {
    return file;
  }

  /** The newest valid mark. */
  Mark last() {
    AlternatingSlots.Slot<Synced> last = slots.last();
    return new Mark(last.generation(), last.value().logNumber(), last.value().syncedBytes());
  }

  /**
   * Records that log {@code logNumber} is durable up to {@code bytes}, which the caller has forced
   * ({@link AlternatingSlots#record}: nothing is written when the mark already says so).
   */
  void record(long logNumber, long bytes) throws IOException {
    slots.record(new Synced(logNumber, bytes));
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
