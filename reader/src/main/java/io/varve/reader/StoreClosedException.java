package io.varve.reader;

/**
 * Thrown by a call on a {@link Store} (or a cursor of one) after {@link Store#close()} began. An
 * {@link IllegalStateException}, as for any use of a closed resource; its own type so that a
 * caller swapping stores (as {@link FollowingStore} does) can retry on the new one without
 * mistaking another illegal state for a swap. Immutable; thread-safe.
 */
public final class StoreClosedException extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  /** An exception for a call on the closed store {@code store} (its directory or another name). */
  public StoreClosedException(String store) {
    super("store " + store + " is closed");
  }
}
