package io.varve.core.blocked;

/**
 * Thrown by {@link BlockedIndexBuilder} when the hashes crowd one part of their range so much that
 * a blocked index cannot hold them: more keys in one group of blocks than a block's base can count.
 * Hashes of distinct keys spread evenly (and a store maps a narrow range of them over the whole
 * space, see {@code HashRange}), so this takes keys chosen for their hashes. Another hash seed
 * spreads them again; an ECT index holds any key set. Immutable; safe to share between threads.
 */
public final class CrowdedHashesException extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  CrowdedHashesException(String message) {
    super(message);
  }
}
