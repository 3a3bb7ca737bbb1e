package io.varve.bcms;

/**
 * The part both sketches share: items are hashed once, by {@link ItemHash}, and the sketch works on
 * that hash. Package-private; each subclass states its thread-safety.
 */
abstract class HashedSketch implements FrequencySketch {
  private final ItemHash hash;

  HashedSketch(SketchParameters parameters) {
    this.hash = new ItemHash(parameters.seed());
  }

  /** Adds {@code weight} to the count of the item whose hash is {@code itemHash}. */
  abstract void updateHash(long itemHash, long weight);

  /** The estimate of the item whose hash is {@code itemHash}. */
  abstract long estimateHash(long itemHash);

  /**
   * The body of {@link #close}: flushes, then runs {@code release} (which marks the sketch closed
   * and frees its file and memory) even if the flush failed, so that a failed close leaves nothing
   * open; the file, its counts incomplete, then refuses to open.
   */
  final void flushThenRelease(Runnable release) {
    try {
      flush();
    } finally {
      release.run();
    }
  }

  /** The hash the sketch works on of the 64-bit item {@code item}. */
  final long hashOf(long item) {
    return hash.ofLong(item);
  }

  @Override
  public final void update(byte[] item, long weight) {
    updateHash(hash.ofBytes(item), weight);
  }

  @Override
  public final void update(long item, long weight) {
    updateHash(hash.ofLong(item), weight);
  }

  @Override
  public final long estimate(byte[] item) {
    return estimateHash(hash.ofBytes(item));
  }

  @Override
  public final long estimate(long item) {
    return estimateHash(hash.ofLong(item));
  }
}
