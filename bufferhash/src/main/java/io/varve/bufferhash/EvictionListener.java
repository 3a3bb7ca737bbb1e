package io.varve.bufferhash;

/**
 * Told of every current entry that eviction drops: after the call, {@link BufferHash#get} of that
 * key answers null. Entries already replaced by a newer version or deleted are not reported.
 *
 * <p>Called from the thread whose write made room in the log, under BufferHash's locks: an
 * implementation must be quick, thread-safe, and must not call back into the BufferHash (such a
 * call throws {@link IllegalStateException}). An exception it throws is logged (WARNING) and the
 * eviction goes on: the entry is evicted all the same, and reported once.
 */
@FunctionalInterface
public interface EvictionListener {
  /** {@code key} with its current {@code value} has been evicted. */
  void evicted(byte[] key, byte[] value);
}
