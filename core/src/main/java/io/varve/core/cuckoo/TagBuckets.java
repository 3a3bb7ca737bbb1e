package io.varve.core.cuckoo;

/**
 * The bucket arithmetic that a {@link CuckooTagTable} and the {@link CuckooTagFilter} it leaves
 * share: a key's tag, its two buckets, and the walk over its candidate slots. Stateless.
 */
final class TagBuckets {
  static final int WAYS = 4;
  static final int TAG_BITS = 15;
  private static final int VALID = 1 << TAG_BITS;

  private TagBuckets() {}

  static short tagOf(long lo) {
    return (short) (VALID | (int) (lo >>> (64 - TAG_BITS)));
  }

  static int firstBucket(long hi, int bucketMask) {
    return (int) hi & bucketMask;
  }

  static int alternateBucket(int bucket, short tag, int bucketMask) {
    return (bucket ^ ((tag & 0xFFFF) * 0x5BD1E995 >>> 7)) & bucketMask;
  }

  static int firstCandidate(short[] tags, int bucketMask, long hi, long lo) {
    return scan(tags, bucketMask, tagOf(lo), firstBucket(hi, bucketMask), 0);
  }

  static int nextCandidate(short[] tags, int bucketMask, long hi, long lo, int slot) {
    int stash = tags.length - 1;
    if (slot == stash) {
      return -1;
    }
    short tag = tagOf(lo);
    int b1 = firstBucket(hi, bucketMask);
    int position = slot / WAYS == b1
        ? slot - b1 * WAYS + 1
        : WAYS + slot - alternateBucket(b1, tag, bucketMask) * WAYS + 1;
    return scan(tags, bucketMask, tag, b1, position);
  }

  /** Positions 0..3 are the first bucket's slots, 4..7 the other's, 8 the stash. */
  private static int scan(short[] tags, int bucketMask, short tag, int b1, int position) {
    if (position < WAYS) {
      int base = b1 * WAYS;
      for (int i = base + position; i < base + WAYS; i++) {
        if (tags[i] == tag) {
          return i;
        }
      }
      position = WAYS;
    }
    if (position < 2 * WAYS) {
      int b2 = alternateBucket(b1, tag, bucketMask);
      if (b2 != b1) {
        int base = b2 * WAYS;
        for (int i = base + position - WAYS; i < base + WAYS; i++) {
          if (tags[i] == tag) {
            return i;
          }
        }
      }
    }
    int stash = tags.length - 1;
    return tags[stash] == tag ? stash : -1;
  }
}
