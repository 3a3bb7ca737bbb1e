package io.varve.builder;

/** What {@link StoreBuilder} does when the same key is put more than once. Immutable; thread-safe. */
public enum DuplicatePolicy {
  /** Fail the build with a {@link DuplicateKeyException} that shows the key. */
  FAIL,
  /** Keep the value put last (in the order of {@code put} calls). */
  LAST_WINS
}
