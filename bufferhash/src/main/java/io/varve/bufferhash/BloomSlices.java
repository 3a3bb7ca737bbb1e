package io.varve.bufferhash;

/**
 * The Bloom filters of one super table's incarnations, bit-sliced (BufferHash §5.1.3): bit
 * {@code i} of every filter sits in slice {@code i}, one bit per incarnation, so a lookup ANDs
 * {@code hashes} slices and learns at once which incarnations may hold the key.
 *
 * <p>Incarnations are numbered by ordinal (0, 1, 2, ... in flush order); ordinal {@code o} owns
 * column {@code o mod columns} of every slice, a ring. Columns of evicted incarnations are not
 * cleared at eviction but when reused; with at least 64 spare columns a whole 64-bit word of every
 * slice is cleared at once, every 64 flushes (the paper's sliding window), otherwise one column
 * (one bit of every slice). When the live incarnations would fill the ring, it grows by a word.
 *
 * <p>Not thread-safe: its super table's lock guards it.
 */
final class BloomSlices {
  private final int bitsPerFilter;
  private final int hashes;
  private int words;
  private long[] slices;
  /** Ordinals up to this one have clean columns. */
  private long cleanThrough = -1;

  BloomSlices(int bitsPerFilter, int hashes, int initialColumns) {
    if (bitsPerFilter < 64 || hashes < 1 || hashes > 32) {
      throw new IllegalArgumentException("a Bloom filter needs at least 64 bits and 1 to 32 hash functions");
    }
    this.bitsPerFilter = bitsPerFilter;
    this.hashes = hashes;
    this.words = Math.max(1, (initialColumns + 63) / 64);
    this.slices = new long[Math.multiplyExact(bitsPerFilter, words)];
  }

  int columns() {
    return words * 64;
  }

  int bitsPerFilter() {
    return bitsPerFilter;
  }

  int hashes() {
    return hashes;
  }

  long ramBytesUsed() {
    return 32L + slices.length * 8L;
  }

  private int position(long hi, long lo, int i) {
    // Double hashing plus a quadratic term of a fixed odd constant: with plain double hashing, the
    // keys (about one in m / probes) whose step is near a multiple of 2^64 / m put every probe in
    // a few bits, and pass nearly every filter. Mapped by x * m / 2^64 (unsigned).
    long x = lo + i * Long.rotateLeft(hi, 32) + (long) i * i * 0x9E3779B97F4A7C15L;
    return (int) (Math.multiplyHigh(x, bitsPerFilter) + ((x >> 63) & bitsPerFilter));
  }

  /**
   * Makes the column of {@code ordinal} clean and its own, given that ordinals {@code [firstLive,
   * ordinal)} are live. Returns true if the ring grew (the caller re-places its incarnations).
   */
  boolean prepare(long ordinal, long firstLive) {
    boolean grew = false;
    while (ordinal - firstLive >= columns()) {
      grow(firstLive, ordinal);
      grew = true;
    }
    if (ordinal <= cleanThrough) {
      return grew;
    }
    int column = (int) (ordinal % columns());
    if ((column & 63) == 0 && ordinal - firstLive <= columns() - 64) {
      // Every column of this word belongs to an evicted ordinal: clear the word in every slice.
      int word = column >>> 6;
      for (int i = word; i < slices.length; i += words) {
        slices[i] = 0;
      }
      cleanThrough = ordinal + 63;
    } else {
      long keep = ~(1L << column);
      for (int i = column >>> 6; i < slices.length; i += words) {
        slices[i] &= keep;
      }
      cleanThrough = ordinal;
    }
    return grew;
  }

  private void grow(long firstLive, long nextOrdinal) {
    int oldColumns = columns();
    int newWords = words + 1;
    long[] grown = new long[Math.multiplyExact(bitsPerFilter, newWords)];
    int newColumns = newWords * 64;
    for (long o = firstLive; o < nextOrdinal; o++) {
      int from = (int) (o % oldColumns);
      int to = (int) (o % newColumns);
      for (int s = 0; s < bitsPerFilter; s++) {
        if ((slices[s * words + (from >>> 6)] & (1L << from)) != 0) {
          grown[s * newWords + (to >>> 6)] |= 1L << to;
        }
      }
    }
    words = newWords;
    slices = grown;
    cleanThrough = firstLive + newColumns - 1;
  }

  /** Adds a key's hash to the filter of {@code ordinal} (after {@link #prepare}). */
  void add(long ordinal, long hi, long lo) {
    int column = (int) (ordinal % columns());
    int word = column >>> 6;
    long bit = 1L << column;
    for (int i = 0; i < hashes; i++) {
      slices[position(hi, lo, i) * words + word] |= bit;
    }
  }

  /**
   * Writes to {@code into} (length at least {@link #columns()} / 64) the AND of the key's slices:
   * bit {@code o mod columns} is set when incarnation {@code o} may hold the key.
   */
  void candidates(long hi, long lo, long[] into) {
    int base = position(hi, lo, 0) * words;
    for (int w = 0; w < words; w++) {
      into[w] = slices[base + w];
    }
    for (int i = 1; i < hashes; i++) {
      base = position(hi, lo, i) * words;
      for (int w = 0; w < words; w++) {
        into[w] &= slices[base + w];
      }
    }
  }

  /**
   * The newest live ordinal at or below {@code ordinal} whose bit is set in {@code candidates}, or
   * a value below {@code firstLive} when there is none.
   */
  long previousCandidate(long[] candidates, long ordinal, long firstLive) {
    int columns = columns();
    while (ordinal >= firstLive) {
      int column = (int) (ordinal % columns);
      int bit = column & 63;
      long upTo = candidates[column >>> 6] & (-1L >>> (63 - bit));
      if (upTo == 0) {
        ordinal -= bit + 1;
        continue;
      }
      return ordinal - (bit - (63 - Long.numberOfLeadingZeros(upTo)));
    }
    return ordinal;
  }
}
