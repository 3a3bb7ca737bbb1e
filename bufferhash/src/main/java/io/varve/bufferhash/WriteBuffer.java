package io.varve.bufferhash;

import java.util.Arrays;

/**
 * A super table's in-memory buffer: the newest entries, until it is flushed as an incarnation.
 *
 * <p>Entries are appended, encoded as on disk ({@link LogFormat}), to one byte arena; a 4-way
 * cuckoo table of partial-key tags (SILT §4: the alternate bucket is derived from the tag alone,
 * so entries move without their keys being read) points into it. An update of the same encoded
 * size is made in place; otherwise the new version is appended and the old bytes stay as waste
 * until the flush. {@link #put} refuses an entry when the arena or the table is full: the caller
 * seals this buffer (it stays readable until its incarnation is installed) and starts a new one.
 *
 * <p>Not thread-safe: its super table's lock guards it; a sealed buffer is only read.
 */
final class WriteBuffer {
  static final int WAYS = 4;
  /** Slots per planned entry: at two thirds full, insertions rarely kick (at 87 % they kick often). */
  static final double SLOTS_PER_ENTRY = 1.5;
  private static final int MAX_KICKS = 500;

  private final byte[] arena;
  private int used;
  private final short[] tags;
  private final int[] offsets;
  private final int bucketMask;
  private short stashTag;
  private int stashOffset = -1;
  private int entries;
  private int liveBytes;
  private int kickCursor;
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
    int buckets = Integer.highestOneBit(Math.max(1, (int) Math.ceil(expectedEntries * SLOTS_PER_ENTRY / WAYS)) - 1) << 1;
    buckets = Math.max(2, buckets);
    this.tags = new short[buckets * WAYS];
    this.offsets = new int[buckets * WAYS];
    this.bucketMask = buckets - 1;
  }

  int entryCount() {
    return entries;
  }

  boolean isEmpty() {
    return entries == 0;
  }

  /** Bytes of the live entries, encoded. */
  int liveBytes() {
    return liveBytes;
  }

  int arenaBytes() {
    return arena.length;
  }

  long ramBytesUsed() {
    return 64L + arena.length + tags.length * 2L + offsets.length * 4L;
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

  static short tag(long lo) {
    short tag = (short) (lo >>> 48);
    return tag == 0 ? 1 : tag;
  }

  private int firstBucket(long hi) {
    return (int) hi & bucketMask;
  }

  private int alternate(int bucket, short tag) {
    return (bucket ^ ((tag & 0xFFFF) * 0x5BD1E995 >>> 7)) & bucketMask;
  }

  /** The arena offset of {@code key}'s entry, or -1. */
  int find(byte[] key, long hi, long lo) {
    short tag = tag(lo);
    int b1 = firstBucket(hi);
    int at = findIn(b1, tag, key);
    if (at >= 0) {
      return at;
    }
    int b2 = alternate(b1, tag);
    if (b2 != b1) {
      at = findIn(b2, tag, key);
      if (at >= 0) {
        return at;
      }
    }
    return stashOffset >= 0 && stashTag == tag && keyEquals(stashOffset, key) ? stashOffset : -1;
  }

  private int findIn(int bucket, short tag, byte[] key) {
    int base = bucket * WAYS;
    for (int i = base; i < base + WAYS; i++) {
      if (tags[i] == tag && keyEquals(offsets[i], key)) {
        return offsets[i];
      }
    }
    return -1;
  }

  private int slotOf(byte[] key, long hi, long lo) {
    short tag = tag(lo);
    int b1 = firstBucket(hi);
    int slot = slotIn(b1, tag, key);
    if (slot < 0) {
      slot = slotIn(alternate(b1, tag), tag, key);
    }
    if (slot >= 0) {
      return slot;
    }
    return stashOffset >= 0 && stashTag == tag && keyEquals(stashOffset, key) ? -2 : -1;
  }

  private int slotIn(int bucket, short tag, byte[] key) {
    int base = bucket * WAYS;
    for (int i = base; i < base + WAYS; i++) {
      if (tags[i] == tag && keyEquals(offsets[i], key)) {
        return i;
      }
    }
    return -1;
  }

  /**
   * Inserts or replaces {@code key}'s entry (a value, or a tombstone when {@code tombstone}).
   *
   * @return false, changing nothing, when the buffer cannot take it
   */
  boolean put(byte[] key, byte[] value, boolean tombstone, long hi, long lo) {
    int size = LogFormat.entryBytes(key.length, tombstone ? 0 : value.length, tombstone);
    int slot = slotOf(key, hi, lo);
    if (slot != -1) {
      int old = slot == -2 ? stashOffset : offsets[slot];
      int oldSize = entrySize(arena, old);
      if (oldSize == size) {
        LogFormat.putEntry(arena, old, key, value, tombstone);
        return true;
      }
      if (used + size > arena.length) {
        return false;
      }
      int at = append(key, value, tombstone, size);
      if (slot == -2) {
        stashOffset = at;
      } else {
        offsets[slot] = at;
      }
      liveBytes += size - oldSize;
      return true;
    }
    if (stashOffset >= 0 || used + size > arena.length) {
      return false;
    }
    int at = append(key, value, tombstone, size);
    insertNew(tag(lo), firstBucket(hi), at);
    entries++;
    liveBytes += size;
    return true;
  }

  private int append(byte[] key, byte[] value, boolean tombstone, int size) {
    int at = used;
    LogFormat.putEntry(arena, at, key, value, tombstone);
    used += size;
    return at;
  }

  private void insertNew(short tag, int bucket, int offset) {
    for (int kick = 0; kick < MAX_KICKS; kick++) {
      if (placeIn(bucket, tag, offset)) {
        return;
      }
      int b2 = alternate(bucket, tag);
      if (b2 != bucket && placeIn(b2, tag, offset)) {
        return;
      }
      // Both buckets full: evict a resident of one of them to its own alternate bucket.
      int victimBucket = (kick & 1) == 0 ? bucket : b2;
      int victim = victimBucket * WAYS + (kickCursor++ & (WAYS - 1));
      short victimTag = tags[victim];
      int victimOffset = offsets[victim];
      tags[victim] = tag;
      offsets[victim] = offset;
      tag = victimTag;
      offset = victimOffset;
      bucket = alternate(victimBucket, victimTag);
    }
    // The last one displaced waits in the stash; the buffer is now full.
    stashTag = tag;
    stashOffset = offset;
  }

  private boolean placeIn(int bucket, short tag, int offset) {
    int base = bucket * WAYS;
    for (int i = base; i < base + WAYS; i++) {
      if (tags[i] == 0) {
        tags[i] = tag;
        offsets[i] = offset;
        return true;
      }
    }
    return false;
  }

  /** Removes {@code key}'s entry outright (used when no older version can exist); true if it was here. */
  boolean remove(byte[] key, long hi, long lo) {
    int slot = slotOf(key, hi, lo);
    if (slot == -1) {
      return false;
    }
    int offset = slot == -2 ? stashOffset : offsets[slot];
    liveBytes -= entrySize(arena, offset);
    entries--;
    if (slot == -2) {
      stashOffset = -1;
    } else {
      tags[slot] = 0;
    }
    return true;
  }

  /** Calls {@code visitor} with the arena offset of every live entry, in no particular order. */
  void forEachEntry(java.util.function.IntConsumer visitor) {
    for (int i = 0; i < tags.length; i++) {
      if (tags[i] != 0) {
        visitor.accept(offsets[i]);
      }
    }
    if (stashOffset >= 0) {
      visitor.accept(stashOffset);
    }
  }

  /** The arena offsets of every live entry. */
  int[] entryOffsets() {
    int[] result = new int[entries];
    int[] n = {0};
    forEachEntry(offset -> result[n[0]++] = offset);
    return n[0] == entries ? result : Arrays.copyOf(result, n[0]);
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
