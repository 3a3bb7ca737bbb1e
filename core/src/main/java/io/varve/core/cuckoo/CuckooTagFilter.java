package io.varve.core.cuckoo;

/**
 * The tags of a frozen {@link CuckooTagTable}, without payloads: SILT's hash filter (§3.2), two
 * bytes per slot. An immutable store laid out in the table's slot order keeps only this in
 * memory: a key's candidate slots say where on disk its entry may be, and an absent key meets a
 * candidate about once in {@code 8 / 2^15} lookups.
 *
 * <p>Immutable once made; thread-safe.
 */
public final class CuckooTagFilter {
  private final short[] tags;
  private final int bucketMask;

  private CuckooTagFilter(short[] tags) {
    this.tags = tags;
    this.bucketMask = (tags.length - 1) / TagBuckets.WAYS - 1;
  }

  /**
   * A filter over {@code tags} (not copied: the caller gives them up), slot by slot with the
   * stash last, as {@link CuckooTagTable#tagAt} numbers them.
   *
   * @throws IllegalArgumentException unless there are {@code 4 × 2^k + 1} tags, {@code k ≤ 28}
   */
  public static CuckooTagFilter wrap(short[] tags) {
    int buckets = (tags.length - 1) / TagBuckets.WAYS;
    if (tags.length < TagBuckets.WAYS + 1 || (tags.length - 1) % TagBuckets.WAYS != 0 || Integer.bitCount(buckets) != 1
        || buckets > 1 << 28) {
      throw new IllegalArgumentException("a cuckoo tag filter has 4 × 2^k + 1 tags, not " + tags.length);
    }
    return new CuckooTagFilter(tags);
  }

  /** The first slot whose tag matches the key of hash {@code (hi, lo)}, or -1. */
  public int firstCandidate(long hi, long lo) {
    return TagBuckets.firstCandidate(tags, bucketMask, hi, lo);
  }

  /** The next slot after {@code slot} whose tag matches, or -1. */
  public int nextCandidate(long hi, long lo, int slot) {
    return TagBuckets.nextCandidate(tags, bucketMask, hi, lo, slot);
  }

  /** The tag in {@code slot} ({@code 0} when it is empty). */
  public short tagAt(int slot) {
    return tags[slot];
  }

  /** Slots in buckets; the stash is slot {@code slotCount()}. */
  public int slotCount() {
    return tags.length - 1;
  }

  /** Buckets of {@value CuckooTagTable#WAYS} slots. */
  public int bucketCount() {
    return bucketMask + 1;
  }

  /** Heap bytes held: two per slot. */
  public long ramBytesUsed() {
    return 32L + 2L * tags.length;
  }
}
