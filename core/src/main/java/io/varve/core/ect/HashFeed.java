package io.varve.core.ect;

import io.varve.core.hash.KeyHasher;

/**
 * The order-of-use rules of an index builder fed distinct 128-bit hashes in increasing unsigned
 * order, checked in one place for every such builder: each hash must exceed the one before ("hashes
 * do not come in order" otherwise), an equal hash raises {@link DuplicateHashException} so that the
 * caller can rebuild with another seed, no more than the declared number may come, and {@link
 * #finish()} may be called once, after exactly that number (or, when the count is an upper bound,
 * after at most that many). Not thread-safe: it belongs to one builder.
 */
public final class HashFeed {
  private final long declared;
  private final boolean exact;
  private long accepted;
  private long lastHi;
  private long lastLo;
  private boolean finished;

  /**
   * @param declared the number of hashes the builder was sized for
   * @param exact whether exactly {@code declared} must come (else at most that many)
   * @throws IllegalArgumentException if {@code declared} is negative
   */
  public HashFeed(long declared, boolean exact) {
    if (declared < 0) {
      throw new IllegalArgumentException("keyCount must be >= 0: " + declared);
    }
    this.declared = declared;
    this.exact = exact;
  }

  /**
   * Checks that {@code hi:lo} may come next and counts it.
   *
   * @throws DuplicateHashException if it equals the previous hash
   * @throws IllegalArgumentException if it is smaller than the previous hash
   * @throws IllegalStateException after {@link #finish()}, or past the declared count
   */
  public void accept(long hi, long lo) {
    if (finished) {
      throw new IllegalStateException("finish() was already called");
    }
    if (accepted == declared) {
      throw new IllegalStateException("more than the declared " + declared + " hashes added");
    }
    if (accepted > 0) {
      int order = KeyHasher.compare(lastHi, lastLo, hi, lo);
      if (order == 0) {
        throw new DuplicateHashException(hi, lo, accepted);
      }
      if (order > 0) {
        throw new IllegalArgumentException(
            String.format(
                "hashes do not come in order: %016x%016x after %016x%016x at index %d",
                hi, lo, lastHi, lastLo, accepted));
      }
    }
    lastHi = hi;
    lastLo = lo;
    accepted++;
  }

  /**
   * Checks that the builder may finish now, and marks it finished.
   *
   * @throws IllegalStateException if called twice, or if fewer hashes than declared came to an
   *     exact feed
   */
  public void finish() {
    if (finished) {
      throw new IllegalStateException("finish() was already called");
    }
    if (exact && accepted != declared) {
      throw new IllegalStateException("declared " + declared + " hashes but added " + accepted);
    }
    finished = true;
  }

  /** Hashes accepted so far. */
  public long accepted() {
    return accepted;
  }

  /** The declared number of hashes: exact, or an upper bound. */
  public long declared() {
    return declared;
  }

  /** Whether exactly {@link #declared()} hashes must come. */
  public boolean exact() {
    return exact;
  }
}
