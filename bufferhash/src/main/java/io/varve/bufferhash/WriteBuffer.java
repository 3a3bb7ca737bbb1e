package io.varve.bufferhash;

import io.varve.core.cuckoo.CuckooTagTable;
import java.util.Arrays;

/**
 * A super table's in-memory buffer: the newest entries, until it is flushed as an incarnation.
 *
 * <p>Entries are appended, encoded as on disk ({@link LogFormat}), to one byte arena; core's
 * {@link CuckooTagTable} (4-way buckets of partial-key tags, SILT §4) maps each key to its entry's
 * arena offset. An update of the same encoded size is made in place; otherwise the new version is
 * appended and the old bytes stay as waste until the flush. {@link #put} refuses an entry when the
 * arena or the table is full: the caller seals this buffer (it stays readable until its
 * incarnation is installed) and starts a new one.
 *
 * <p>Not thread-safe: its super table's lock guards it; a sealed buffer is only read.
 */
final class WriteBuffer {
  /** Slots per planned entry: at two thirds full, insertions rarely kick (at 87 % they kick often). */
  static final double SLOTS_PER_ENTRY = 1.5;

  private final byte[] arena;
  private int used;
  /** Tags and arena offsets: a key's candidates are confirmed against the key in the arena. */
  private final CuckooTagTable table;
  private int liveBytes;
  /** Write-ahead log sequences of the writes this buffer took (0: none). */
  private long firstSequence;
  private long lastSequence;

  /**
   * @param arenaBytes bytes of encoded entries it holds at most
   * @param expectedEntries entries it should hold (the table gets {@link #SLOTS_PER_ENTRY} slots per
   *     entry, rounded up to a power of two buckets)
   */
  WriteBuffer(int arenaBytes, int expectedEntries) {
    this.arena = new byte[arenaBytes];
    this.table = CuckooTagTable.forEntries(expectedEntries, SLOTS_PER_ENTRY);
  }

  int entryCount() {
    return table.size();
  }

  boolean isEmpty() {
    return table.size() == 0;
  }

  /** Bytes of the live entries, encoded. */
  int liveBytes() {
    return liveBytes;
  }

  int arenaBytes() {
    return arena.length;
  }

  long ramBytesUsed() {
    return 64L + arena.length + table.ramBytesUsed();
  }

  byte[] arena() {
    return arena;
  }

  /** Notes that this buffer took the write-ahead log record {@code sequence} (0: not logged). */
  void noteSequence(long sequence) {
    if (sequence > 0) {
      if (firstSequence == 0) {
        firstSequence = sequence;
      }
      lastSequence = sequence;
    }
  }

  /** The first write-ahead log record this buffer holds, or 0. */
  long firstSequence() {
    return firstSequence;
  }

  /** The last write-ahead log record this buffer holds, or 0. */
  long lastSequence() {
    return lastSequence;
  }

  /** The table slot of {@code key}'s entry, or -1. */
  private int slotOf(byte[] key, long hi, long lo) {
    for (int slot = table.firstCandidate(hi, lo); slot >= 0; slot = table.nextCandidate(hi, lo, slot)) {
      if (keyEquals(table.payload(slot), key)) {
        return slot;
      }
    }
    return -1;
  }

  /** The arena offset of {@code key}'s entry, or -1. */
  int find(byte[] key, long hi, long lo) {
    int slot = slotOf(key, hi, lo);
    return slot < 0 ? -1 : table.payload(slot);
  }

  /**
   * Inserts or replaces {@code key}'s entry (a value, or a tombstone when {@code tombstone}).
   *
   * @return false, changing nothing, when the buffer cannot take it
   */
  boolean put(byte[] key, byte[] value, boolean tombstone, long hi, long lo) {
    int size = LogFormat.entryBytes(key.length, tombstone ? 0 : value.length, tombstone);
    int slot = slotOf(key, hi, lo);
    if (slot >= 0) {
      int old = table.payload(slot);
      int oldSize = entrySize(arena, old);
      if (oldSize == size) {
        LogFormat.putEntry(arena, old, key, value, tombstone);
        return true;
      }
      if (used + size > arena.length) {
        return false;
      }
      table.setPayload(slot, append(key, value, tombstone, size));
      liveBytes += size - oldSize;
      return true;
    }
    // Checked before appending, so that a refusal leaves the arena as it was.
    if (table.isFull() || used + size > arena.length) {
      return false;
    }
    table.insert(hi, lo, append(key, value, tombstone, size));
    liveBytes += size;
    return true;
  }

  private int append(byte[] key, byte[] value, boolean tombstone, int size) {
    int at = used;
    LogFormat.putEntry(arena, at, key, value, tombstone);
    used += size;
    return at;
  }

  /** Removes {@code key}'s entry outright (used when no older version can exist); true if it was here. */
  boolean remove(byte[] key, long hi, long lo) {
    int slot = slotOf(key, hi, lo);
    if (slot < 0) {
      return false;
    }
    liveBytes -= entrySize(arena, table.payload(slot));
    table.remove(slot);
    return true;
  }

  /** Calls {@code visitor} with the arena offset of every live entry, in no particular order. */
  void forEachEntry(java.util.function.IntConsumer visitor) {
    table.forEachEntry(slot -> visitor.accept(table.payload(slot)));
  }

  /** The arena offsets of every live entry. */
  int[] entryOffsets() {
    int[] result = new int[table.size()];
    int[] n = {0};
    forEachEntry(offset -> result[n[0]++] = offset);
    return n[0] == result.length ? result : Arrays.copyOf(result, n[0]);
  }

  private boolean keyEquals(int offset, byte[] key) {
    return keyEquals(arena, offset, arena.length, key);
  }

  // --- reading encoded entries (in the arena or in a unit read from the log) ---

  /** Whether the entry at {@code offset} has key {@code key}; false for malformed bytes. */
  static boolean keyEquals(byte[] bytes, int offset, int end, byte[] key) {
    long keyLength = LogFormat.getVarint(bytes, offset, end);
    if (keyLength < 0 || (int) keyLength != key.length) {
      return false;
    }
    long valueCode = LogFormat.getVarint(bytes, (int) (keyLength >>> 32), end);
    if (valueCode < 0) {
      return false;
    }
    int keyStart = (int) (valueCode >>> 32);
    return keyStart + key.length <= end && Arrays.equals(bytes, keyStart, keyStart + key.length, key, 0, key.length);
  }

  /** The encoded size of the well-formed entry at {@code offset}. */
  static int entrySize(byte[] bytes, int offset) {
    long keyLength = LogFormat.getVarint(bytes, offset, bytes.length);
    long valueCode = LogFormat.getVarint(bytes, (int) (keyLength >>> 32), bytes.length);
    int code = (int) valueCode;
    return (int) (valueCode >>> 32) - offset + (int) keyLength + (code == 0 ? 0 : code - 1);
  }

  static boolean isTombstone(byte[] bytes, int offset) {
    long keyLength = LogFormat.getVarint(bytes, offset, bytes.length);
    return (int) LogFormat.getVarint(bytes, (int) (keyLength >>> 32), bytes.length) == 0;
  }

  static byte[] key(byte[] bytes, int offset) {
    long keyLength = LogFormat.getVarint(bytes, offset, bytes.length);
    long valueCode = LogFormat.getVarint(bytes, (int) (keyLength >>> 32), bytes.length);
    int keyStart = (int) (valueCode >>> 32);
    return Arrays.copyOfRange(bytes, keyStart, keyStart + (int) keyLength);
  }

  /** The value of the entry at {@code offset}, or null for a tombstone. */
  static byte[] value(byte[] bytes, int offset) {
    long keyLength = LogFormat.getVarint(bytes, offset, bytes.length);
    long valueCode = LogFormat.getVarint(bytes, (int) (keyLength >>> 32), bytes.length);
    int code = (int) valueCode;
    if (code == 0) {
      return null;
    }
    int valueStart = (int) (valueCode >>> 32) + (int) keyLength;
    return Arrays.copyOfRange(bytes, valueStart, valueStart + code - 1);
  }
}
