package io.varve.core.hash;

import io.varve.core.index.RankIndex;
import io.varve.core.index.RankIndexBuilder;

/**
 * The range {@code [min, max]} (unsigned, in hash order) that a store's key hashes lie in, and the
 * map that spreads it over the whole hash space before the index sees a hash.
 *
 * <p>Why: both indexes place a hash by its leading bits, assuming hashes spread over all of
 * {@code [0, 2^128)}. The keys of one shard of a job that routes by the same hash share a prefix
 * (or lie in one narrow range), so they would crowd a few blocks or buckets: the blocked index
 * cannot be built, the ECT index's tries grow huge. Mapped, the shard's hashes spread again:
 *
 * <pre>
 * map(H) = (H - min) &lt;&lt; s      s = leading zero bits of (max - min), 128-bit arithmetic
 * </pre>
 *
 * which keeps hash order, keeps distinct hashes distinct (no bit of {@code H - min} is lost), and
 * puts {@code max} in the upper half of the space. A hash outside the range belongs to no key of
 * the store: {@link #contains} is false and a lookup is answered without the index. {@link #FULL}
 * maps every hash to itself. Immutable and thread-safe.
 */
public final class HashRange {
  /** Every hash: the identity map (stores written before ranges were recorded). */
  public static final HashRange FULL = new HashRange(0, 0, -1, -1);

  private final long minHi;
  private final long minLo;
  private final long maxHi;
  private final long maxLo;
  private final long spanHi;
  private final long spanLo;
  private final int shift;

  private HashRange(long minHi, long minLo, long maxHi, long maxLo) {
    if (KeyHasher.compare(minHi, minLo, maxHi, maxLo) > 0) {
      throw new IllegalArgumentException("an empty hash range: min above max");
    }
    this.minHi = minHi;
    this.minLo = minLo;
    this.maxHi = maxHi;
    this.maxLo = maxLo;
    this.spanLo = maxLo - minLo;
    this.spanHi = maxHi - minHi - (Long.compareUnsigned(maxLo, minLo) < 0 ? 1 : 0);
    int leadingZeros = spanHi != 0 ? Long.numberOfLeadingZeros(spanHi) : 64 + Long.numberOfLeadingZeros(spanLo);
    this.shift = Math.min(127, leadingZeros);
  }

  /**
   * The range from {@code minHi:minLo} to {@code maxHi:maxLo}, both included.
   *
   * @throws IllegalArgumentException if min is above max
   */
  public static HashRange of(long minHi, long minLo, long maxHi, long maxLo) {
    return minHi == 0 && minLo == 0 && maxHi == -1 && maxLo == -1 ? FULL : new HashRange(minHi, minLo, maxHi, maxLo);
  }

  public long minHi() {
    return minHi;
  }

  public long minLo() {
    return minLo;
  }

  public long maxHi() {
    return maxHi;
  }

  public long maxLo() {
    return maxLo;
  }

  /** Whether this is {@link #FULL}, whose map is the identity. */
  public boolean isFull() {
    return this == FULL;
  }

  /** The bits the map shifts by: 0 for a range of half the space or more, up to 127. */
  public int shift() {
    return shift;
  }

  /** Whether hash {@code hi:lo} lies in the range. */
  public boolean contains(long hi, long lo) {
    long dLo = lo - minLo;
    long dHi = hi - minHi - (Long.compareUnsigned(lo, minLo) < 0 ? 1 : 0);
    // Below min, H - min wraps to more than the span.
    return Long.compareUnsigned(dHi, spanHi) < 0 || (dHi == spanHi && Long.compareUnsigned(dLo, spanLo) <= 0);
  }

  /** The high word of {@code map(hi:lo)}; for a hash in the range. */
  public long mapHi(long hi, long lo) {
    long dLo = lo - minLo;
    long dHi = hi - minHi - (Long.compareUnsigned(lo, minLo) < 0 ? 1 : 0);
    if (shift == 0) {
      return dHi;
    }
    return shift < 64 ? dHi << shift | dLo >>> (64 - shift) : dLo << (shift - 64);
  }

  /** The low word of {@code map(hi:lo)}; for a hash in the range. */
  public long mapLo(long hi, long lo) {
    long dLo = lo - minLo;
    return shift < 64 ? dLo << shift : 0;
  }

  /** The smallest range holding both this one and {@code other}. */
  public HashRange union(HashRange other) {
    boolean lowerMin = KeyHasher.compare(other.minHi, other.minLo, minHi, minLo) < 0;
    boolean higherMax = KeyHasher.compare(other.maxHi, other.maxLo, maxHi, maxLo) > 0;
    return of(
        lowerMin ? other.minHi : minHi, lowerMin ? other.minLo : minLo, higherMax ? other.maxHi : maxHi, higherMax ? other.maxLo : maxLo);
  }

  /**
   * The rank of hash {@code hi:lo} by {@code index}, an index built through {@link #adapt}: -1 for
   * a hash outside the range, which no key of the index has.
   */
  public long rank(RankIndex index, long hi, long lo) {
    return contains(hi, lo) ? index.rank(mapHi(hi, lo), mapLo(hi, lo)) : -1;
  }

  /**
   * A builder that gives {@code index} the mapped hashes: feed it the store's hashes as they are
   * (each must lie in the range).
   */
  public RankIndexBuilder adapt(RankIndexBuilder index) {
    if (isFull()) {
      return index;
    }
    return new RankIndexBuilder() {
      @Override
      public void add(long hi, long lo) {
        if (!contains(hi, lo)) {
          throw new IllegalArgumentException(
              "hash " + Long.toHexString(hi) + ":" + Long.toHexString(lo) + " lies outside the store's hash range " + HashRange.this);
        }
        index.add(mapHi(hi, lo), mapLo(hi, lo));
      }

      @Override
      public RankIndex finish() {
        return index.finish();
      }

      @Override
      public long added() {
        return index.added();
      }

      @Override
      public long declared() {
        return index.declared();
      }

      @Override
      public boolean exactCount() {
        return index.exactCount();
      }
    };
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof HashRange r && r.minHi == minHi && r.minLo == minLo && r.maxHi == maxHi && r.maxLo == maxLo;
  }

  @Override
  public int hashCode() {
    return Long.hashCode(minHi) * 31 + Long.hashCode(maxHi);
  }

  @Override
  public String toString() {
    return isFull()
        ? "HashRange[full]"
        : String.format("HashRange[%016x%016x..%016x%016x, shift %d]", minHi, minLo, maxHi, maxLo, shift);
  }

  /** Accumulates the range of hashes seen, for a builder that learns them one by one. Not thread-safe. */
  public static final class Tracker {
    private boolean any;
    private long minHi;
    private long minLo;
    private long maxHi;
    private long maxLo;

    /** Takes hash {@code hi:lo} into the range. */
    public void add(long hi, long lo) {
      if (!any) {
        any = true;
        minHi = maxHi = hi;
        minLo = maxLo = lo;
        return;
      }
      if (KeyHasher.compare(hi, lo, minHi, minLo) < 0) {
        minHi = hi;
        minLo = lo;
      }
      if (KeyHasher.compare(hi, lo, maxHi, maxLo) > 0) {
        maxHi = hi;
        maxLo = lo;
      }
    }

    /** Takes every hash of {@code range} into the range. */
    public void add(HashRange range) {
      add(range.minHi, range.minLo);
      add(range.maxHi, range.maxLo);
    }

    /** The range of the hashes seen, or {@link #FULL} when none was. */
    public HashRange range() {
      return any ? of(minHi, minLo, maxHi, maxLo) : FULL;
    }

    /**
     * The range to map the hashes seen by: theirs when it covers at most half the hash space
     * ({@link #shift()} of 1 or more), else {@link #FULL}. Hashes of a key set that is not a shard
     * spread over nearly all the space, where a map would change nothing that matters: such a
     * store keeps the full range and the format of stores written before ranges existed.
     */
    public HashRange mapping() {
      HashRange range = range();
      return range.shift() == 0 ? FULL : range;
    }
  }
}
