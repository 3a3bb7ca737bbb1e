package io.varve.bcms;

import io.varve.core.format.CorruptStoreException;
import io.varve.core.format.Envelope;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * What a sketch file says about its counts, as opposed to its shape: whether it was closed cleanly,
 * its total weight and its body's checksum. In a file of format version 1 these fields are part of
 * the one header; from version 2 on they are a commit record of their own, and the file has two
 * (see {@link SketchFile}), each alone in a 4 KiB page:
 *
 * <pre>
 * CommitRecord := magic:int32 = "VCMR" (0x524D4356 read little-endian)  version:int32 = 1   (the {@link #ENVELOPE}'s header)
 *                 generation:int64      (1 at creation, one more with each record written; never 0 or negative)
 *                 totalWeight:int64     (saturating; never negative)
 *                 state:int32           (0 = closed cleanly, 1 = open for writing)
 *                 bodyChecksum:int32    (meaningful in state 0)
 *                 crc:int32             CRC32C of the 32 bytes before it (the envelope's footer)
 * Slot         := CommitRecord zero^(4096 - 36)
 * </pre>
 *
 * A slot is valid when its envelope and checksum hold and the rest of its page is zero; a torn,
 * never written or damaged slot is not, and the other slot answers. The generation of a version-1
 * file's fields is 0.
 *
 * <p>Immutable; thread-safe.
 */
record SketchCommit(long generation, int state, long totalWeight, int bodyCrc) {
  static final int MAGIC = 0x524D_4356; // "VCMR" read little-endian
  static final int RECORD_VERSION = 1;
  /** Magic and record version open a commit record, its checksum closes it. */
  static final Envelope ENVELOPE = Envelope.builder("count-min sketch commit record")
      .magic(MAGIC).littleEndian().versions(RECORD_VERSION, RECORD_VERSION).build();
  static final int BYTES = 36;
  private static final int CRC_OFFSET = BYTES - Integer.BYTES;

  /** The record of a new file: open for writing, nothing counted yet. */
  static final SketchCommit NEW_FILE = new SketchCommit(1, SketchFile.STATE_OPEN, 0, 0);

  /** The record after this one, of the next generation. */
  SketchCommit next(int newState, long newTotalWeight, int newBodyCrc) {
    return new SketchCommit(generation + 1, newState, newTotalWeight, newBodyCrc);
  }

  /** The record's {@value #BYTES} bytes. */
  ByteBuffer encode() {
    ByteBuffer b = ByteBuffer.allocate(BYTES).order(ByteOrder.LITTLE_ENDIAN);
    b.put(ENVELOPE.header(RECORD_VERSION)).putLong(generation).putLong(totalWeight).putInt(state).putInt(bodyCrc);
    ENVELOPE.putFooter(b.array(), 0, CRC_OFFSET);
    return b.clear();
  }

  /**
   * The record of the slot in {@code page} (its {@link SketchFile#SLOT_SPACING} bytes, from its
   * position), or null when the slot holds none: torn, never written, damaged, or of a record
   * version this code does not read.
   */
  static SketchCommit decodeOrNull(ByteBuffer page) {
    ByteBuffer b = page.duplicate().order(ByteOrder.LITTLE_ENDIAN);
    if (b.remaining() < BYTES || !ENVELOPE.isHeader(b)) {
      return null;
    }
    byte[] record = new byte[BYTES];
    b.get(record);
    if (!ENVELOPE.isFooterOf(record, 0, CRC_OFFSET)) {
      return null;
    }
    while (b.hasRemaining()) {
      if (b.get() != 0) {
        return null; // not what this code writes after a record: something else wrote the page
      }
    }
    ByteBuffer fields = ByteBuffer.wrap(record).order(ByteOrder.LITTLE_ENDIAN);
    return new SketchCommit(fields.getLong(8), fields.getInt(24), fields.getLong(16), fields.getInt(28));
  }

  /**
   * Checks the fields of the record a file is read with: a record with a valid checksum that lies
   * is not a torn write, and the file is refused.
   */
  void check(String where, boolean slotted) {
    CorruptStoreException.check(!slotted || generation > 0, where + "commit record of generation " + generation);
    CorruptStoreException.check(state == SketchFile.STATE_CLOSED || state == SketchFile.STATE_OPEN,
        where + "unknown state " + state);
    CorruptStoreException.check(totalWeight >= 0, where + "negative total weight " + totalWeight);
  }
}
