package io.varve.bufferhash;

import io.varve.core.format.CorruptStoreException;
import java.nio.ByteBuffer;

/**
 * One slot of a BufferHash {@code state} file, and the one place that writes and reads its bytes
 * (docs/FORMAT.md, "BufferHash directory"):
 *
 * <pre>
 * StateSlot := magic:int32 = "VBHS" version:uint8 reserved:uint8[3]
 *              generation:int64 logPages:int64 tailPage:int64 headPage:int64
 *              tailSequence:int64 nextSequence:int64 buffersCheck:int64
 *              superTables:int32 seed:int64
 *              tableId:int64                                (version 3 only, never 0; before, the id is 0)
 *              crc:int32                                    (then zeros to 512 bytes)
 * </pre>
 *
 * Immutable; thread-safe.
 */
record StateSlot(
    int version, long generation, long logPages, long tailPage, long headPage, long tailSequence, long nextSequence, long buffersCheck,
    int superTables, long seed, long tableId) {
  static final int BYTES = LogFormat.STATE_SLOT_BYTES;
  /** Where the int64 fields end: after the envelope's 8 bytes and seven fields. */
  private static final int LONGS_END = 8 + 7 * Long.BYTES;

  /** The slot's {@value #BYTES} bytes. */
  byte[] encode() {
    byte[] slot = new byte[BYTES];
    LogFormat.STATE.putHeader(slot, 0, version);
    int at = 8;
    for (long field : new long[] {generation, logPages, tailPage, headPage, tailSequence, nextSequence, buffersCheck}) {
      LogFormat.putLong(slot, at, field);
      at += Long.BYTES;
    }
    LogFormat.putInt(slot, LONGS_END, superTables);
    LogFormat.putLong(slot, LONGS_END + 4, seed);
    if (version >= 3) {
      LogFormat.putLong(slot, LONGS_END + 12, tableId);
    } else if (tableId != 0) {
      throw new IllegalArgumentException("a state of version " + version + " has no table id, given " + tableId);
    }
    LogFormat.STATE.putFooter(slot, 0, crcAt(version));
    return slot;
  }

  /** Where the crc of a slot of {@code version} is: after the table id from version 3 on. */
  private static int crcAt(int version) {
    return LONGS_END + (version >= 3 ? 20 : 12);
  }

  /**
   * The slot at {@code at} in {@code bytes}, or null when it holds none this code reads (damaged,
   * torn, never written, or of an unknown version): the other slot may.
   */
  static StateSlot decodeOrNull(byte[] bytes, int at) {
    int version;
    try {
      version = LogFormat.STATE.checkHeader(ByteBuffer.wrap(bytes, at, BYTES), null);
    } catch (CorruptStoreException e) {
      return null;
    }
    if (!LogFormat.STATE.isFooterOf(bytes, at, at + crcAt(version))) {
      return null;
    }
    long tableId = version >= 3 ? LogFormat.getLong(bytes, at + LONGS_END + 12) : 0;
    if (version >= 3 && tableId == 0) {
      return null; // id 0 is an unsalted table's, which writes version 2
    }
    long[] longs = new long[7];
    for (int i = 0; i < longs.length; i++) {
      longs[i] = LogFormat.getLong(bytes, at + 8 + Long.BYTES * i);
    }
    return new StateSlot(
        version, longs[0], longs[1], longs[2], longs[3], longs[4], longs[5], longs[6], LogFormat.getInt(bytes, at + LONGS_END),
        LogFormat.getLong(bytes, at + LONGS_END + 4), tableId);
  }
}
