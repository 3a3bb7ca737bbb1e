package io.varve.core.ect;

import io.varve.core.index.RankIndexBuilder;

/**
 * The part of an index builder that its {@link HashFeed} answers: the counts of {@link
 * RankIndexBuilder}, written once for the ECT and the blocked builders. A subclass passes each
 * hash to {@link HashFeed#accept} in {@code add} and calls {@link HashFeed#finish} in {@code
 * finish}. Not thread-safe, like the feed.
 */
public abstract class HashFedIndexBuilder implements RankIndexBuilder {
  /** The order-of-use rules and the counts. */
  protected final HashFeed feed;

  /**
   * @param keyCount the number of hashes the builder is sized for
   * @param exactCount whether exactly {@code keyCount} must come (else at most that many)
   * @throws IllegalArgumentException if {@code keyCount} is negative
   */
  protected HashFedIndexBuilder(long keyCount, boolean exactCount) {
    this.feed = new HashFeed(keyCount, exactCount);
  }

  /** The number of hashes added so far. */
  @Override
  public final long added() {
    return feed.accepted();
  }

  /** The number of hashes declared when the builder was created (exact, or an upper bound). */
  @Override
  public final long declared() {
    return feed.declared();
  }

  /** Whether {@link #finish()} needs exactly {@link #declared()} hashes (or accepts fewer). */
  @Override
  public final boolean exactCount() {
    return feed.exact();
  }
}
