package io.varve.core.cuckoo;

/**
 * A partial-key cuckoo hash table (SILT §3.1): buckets of {@value #WAYS} slots, each slot a 16-bit
 * tag (a {@value #TAG_BITS}-bit key fragment and a valid bit) beside an {@code int} payload, such
 * as an entry's position in a log or an arena. No key is kept: a slot whose tag matches is a
 * candidate, which the caller confirms against the key its payload leads to.
 *
 * <p>A key's buckets are its first bucket and that bucket XOR a mix of its tag, so a resident
 * moves to its other bucket knowing only its tag, without its key being read. (SILT stores the
 * other bucket's index as the tag, which limits a table to 2^15 buckets; the XOR, as in Fan et
 * al.'s cuckoo filter, does not.) With 4-way buckets the table fills to about 95 % before an
 * insertion fails; a false candidate comes up for one absent key in about {@code 8 / 2^15}.
 *
 * <p>An insertion that finds both buckets full displaces residents, up to {@value #MAX_KICKS}
 * times; if it still finds no free slot, the last entry displaced waits in a one-slot stash and
 * the table is {@linkplain #isFull() full}: it refuses new entries from then on, but every entry
 * stays findable, removable and updatable.
 *
 * <p>Slots are numbered {@code 0 .. slotCount()}, the last one being the stash; lookups walk
 * their candidates allocation-free:
 *
 * <pre>{@code
 * for (int slot = table.firstCandidate(hi, lo); slot >= 0; slot = table.nextCandidate(hi, lo, slot)) {
 *   if (keyAt(table.payload(slot)).equals(key)) return slot;
 * }
 * }</pre>
 *
 * <p>Not thread-safe.
 */
public final class CuckooTagTable {
  /** Slots per bucket. */
  public static final int WAYS = TagBuckets.WAYS;
  /** Bits of key fragment per tag. */
  public static final int TAG_BITS = TagBuckets.TAG_BITS;
  /** The tag of an empty slot. */
  static final short EMPTY = 0;
  static final int MAX_KICKS = 500;

  private final short[] tags;
  private final int[] payloads;
  private final int bucketMask;
  private final int stash;
  private int size;
  private int kickCursor;

  private CuckooTagTable(int buckets) {
    this.tags = new short[buckets * WAYS + 1];
    this.payloads = new int[buckets * WAYS + 1];
    this.bucketMask = buckets - 1;
    this.stash = buckets * WAYS;
  }

  /**
   * A table of {@code buckets} buckets.
   *
   * @throws IllegalArgumentException unless {@code buckets} is a power of two up to 2^28
   */
  public static CuckooTagTable withBuckets(int buckets) {
    if (buckets <= 0 || Integer.bitCount(buckets) != 1 || buckets > 1 << 28) {
      throw new IllegalArgumentException("buckets must be a power of two up to 2^28, not " + buckets);
    }
    return new CuckooTagTable(buckets);
  }

  /**
   * A table with at least {@code slotsPerEntry × entries} slots (rounded up to a power of two
   * buckets, at least two).
   */
  public static CuckooTagTable forEntries(int entries, double slotsPerEntry) {
    return new CuckooTagTable(bucketsFor(entries, slotsPerEntry));
  }

  /**
   * The buckets {@link #forEntries} would give a table, without allocating it.
   *
   * @throws IllegalArgumentException when the table would exceed 2^28 buckets
   */
  public static int bucketsFor(int entries, double slotsPerEntry) {
    if (entries < 0 || !(slotsPerEntry >= 1)) {
      throw new IllegalArgumentException("entries " + entries + ", slots per entry " + slotsPerEntry);
    }
    long wanted = Math.max(2, (long) Math.ceil(entries * slotsPerEntry / WAYS));
    if (wanted > 1 << 28) {
      throw new IllegalArgumentException("too many entries for one table: " + entries);
    }
    return Integer.highestOneBit((int) wanted - 1) << 1;
  }

  /** The tag of a key whose 128-bit hash has low word {@code lo}: never {@link #EMPTY}. */
  public static short tagOf(long lo) {
    return TagBuckets.tagOf(lo);
  }

  /** The first slot whose tag matches the key of hash {@code (hi, lo)}, or -1. */
  public int firstCandidate(long hi, long lo) {
    return TagBuckets.firstCandidate(tags, bucketMask, hi, lo);
  }

  /** The next slot after {@code slot} (a candidate of the same hash) whose tag matches, or -1. */
  public int nextCandidate(long hi, long lo, int slot) {
    return TagBuckets.nextCandidate(tags, bucketMask, hi, lo, slot);
  }

  /** The payload of {@code slot}. */
  public int payload(int slot) {
    return payloads[slot];
  }

  /** Replaces the payload of the occupied {@code slot} (an entry rewritten elsewhere). */
  public void setPayload(int slot, int payload) {
    if (tags[slot] == EMPTY) {
      throw new IllegalStateException("slot " + slot + " is empty");
    }
    payloads[slot] = payload;
  }

  /** The tag in {@code slot} ({@code 0} when it is empty). */
  public short tagAt(int slot) {
    return tags[slot];
  }

  /**
   * Adds an entry for a key of hash {@code (hi, lo)} that the table does not hold (the caller
   * checks with the candidates first).
   *
   * @return false, changing nothing, when the table is {@linkplain #isFull() full}
   */
  public boolean insert(long hi, long lo, int payload) {
    if (isFull()) {
      return false;
    }
    short tag = tagOf(lo);
    int bucket = TagBuckets.firstBucket(hi, bucketMask);
    size++;
    for (int kick = 0; kick < MAX_KICKS; kick++) {
      if (placeIn(bucket, tag, payload)) {
        return true;
      }
      int other = TagBuckets.alternateBucket(bucket, tag, bucketMask);
      if (other != bucket && placeIn(other, tag, payload)) {
        return true;
      }
      // Both buckets full: displace a resident of one of them towards its own other bucket.
      int victimBucket = (kick & 1) == 0 ? bucket : other;
      int victim = victimBucket * WAYS + (kickCursor++ & (WAYS - 1));
      short victimTag = tags[victim];
      int victimPayload = payloads[victim];
      tags[victim] = tag;
      payloads[victim] = payload;
      tag = victimTag;
      payload = victimPayload;
      bucket = TagBuckets.alternateBucket(victimBucket, victimTag, bucketMask);
    }
    tags[stash] = tag;
    payloads[stash] = payload;
    return true;
  }

  private boolean placeIn(int bucket, short tag, int payload) {
    int base = bucket * WAYS;
    for (int i = base; i < base + WAYS; i++) {
      if (tags[i] == EMPTY) {
        tags[i] = tag;
        payloads[i] = payload;
        return true;
      }
    }
    return false;
  }

  /** Empties the occupied {@code slot}. */
  public void remove(int slot) {
    if (tags[slot] == EMPTY) {
      throw new IllegalStateException("slot " + slot + " is empty");
    }
    tags[slot] = EMPTY;
    size--;
  }

  /** Whether an insertion failed to find a slot: the table takes no new entry. */
  public boolean isFull() {
    return tags[stash] != EMPTY;
  }

  /** Entries held. */
  public int size() {
    return size;
  }

  /** Slots in buckets (the stash, slot {@code slotCount()}, comes on top). */
  public int slotCount() {
    return stash;
  }

  /** Entries held per slot in buckets. */
  public double occupancy() {
    return (double) size / stash;
  }

  /** Calls {@code visitor} with every occupied slot, in slot order (the stash last). */
  public void forEachEntry(java.util.function.IntConsumer visitor) {
    for (int i = 0; i <= stash; i++) {
      if (tags[i] != EMPTY) {
        visitor.accept(i);
      }
    }
  }

  /** A copy of the tags, slot by slot (the stash last): the filter a frozen table leaves. */
  public CuckooTagFilter filter() {
    return CuckooTagFilter.wrap(tags.clone());
  }

  /** Heap bytes held: six per slot. */
  public long ramBytesUsed() {
    return 48L + 2L * tags.length + 4L * payloads.length;
  }
}
