package io.varve.core.index;

import java.util.Locale;

/** The kinds of {@link RankIndex}: which structure maps a store's key hashes to ranks. Thread-safe. */
public enum IndexKind {
  /**
   * The entropy-coded trie index ({@code io.varve.core.ect.EctIndex}): about 2.5 bits per key, a few
   * hundred nanoseconds per lookup on an index larger than the CPU caches; the only kind that can
   * index blocks of records (a sparse store).
   */
  ECT,
  /**
   * The blocked index ({@code io.varve.core.blocked.BlockedIndex}): about 3.45 bits per key, one
   * 128-byte block read per lookup, two to three times as fast as the ECT index out of cache.
   */
  BLOCKED;

  /** The kind's name as the command line and the stats JSON spell it: {@code ect} or {@code blocked}. */
  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * The kind named {@code label} ({@link #label()}, any case).
   *
   * @throws IllegalArgumentException naming the kinds when {@code label} names none
   */
  public static IndexKind fromLabel(String label) {
    for (IndexKind kind : values()) {
      if (kind.label().equalsIgnoreCase(label)) {
        return kind;
      }
    }
    throw new IllegalArgumentException("unknown index kind '" + label + "' (known: ect, blocked)");
  }
}
