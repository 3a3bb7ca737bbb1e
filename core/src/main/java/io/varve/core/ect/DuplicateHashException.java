package io.varve.core.ect;

/**
 * Two keys with equal 128-bit hashes were added to an index: either the same key twice, or (with
 * probability about {@code n^2 / 2^129}) two distinct keys that collide, in which case the caller
 * rebuilds with another seed.
 *
 * <p>Immutable; safe to share between threads.
 */
public final class DuplicateHashException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;
  private final long hi;
  private final long lo;
  private final long index;

  /** Creates the exception for hash {@code hi:lo} arriving again at input position {@code index}. */
  public DuplicateHashException(long hi, long lo, long index) {
    super(String.format("duplicate hash %016x%016x at index %d", hi, lo, index));
    this.hi = hi;
    this.lo = lo;
    this.index = index;
  }

  /** High word of the repeated hash. */
  public long hi() {
    return hi;
  }

  /** Low word of the repeated hash. */
  public long lo() {
    return lo;
  }

  /** The position in the input at which the hash came the second time. */
  public long index() {
    return index;
  }
}
