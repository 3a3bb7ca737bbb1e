package io.varve.core.index;

import io.varve.core.format.CorruptStoreException;
import java.util.Locale;

/**
 * The kinds of {@link RankIndex}: which structure maps a store's key hashes to ranks. A kind is
 * recorded as its {@link #code()} (a meta file's {@code indexKind:uint8}), its knobs by {@link
 * IndexParameters#writeKnobs}. Thread-safe.
 */
public enum IndexKind {
  /**
   * The entropy-coded trie index ({@code io.varve.core.ect.EctIndex}): about 2.5 bits per key, a few
   * hundred nanoseconds per lookup on an index larger than the CPU caches; the only kind that can
   * index blocks of records (a sparse store).
   */
  ECT(0),
  /**
   * The blocked index ({@code io.varve.core.blocked.BlockedIndex}): about 3.45 bits per key, one
   * 128-byte block read per lookup, two to three times as fast as the ECT index out of cache.
   */
  BLOCKED(1);

  private final int code;

  IndexKind(int code) {
    this.code = code;
  }

  /** The kind's code in a file: 0 for ECT, 1 for blocked. */
  public int code() {
    return code;
  }

  /**
   * The kind whose {@link #code()} is {@code code}.
   *
   * @throws CorruptStoreException when no kind has that code
   */
  public static IndexKind fromCode(int code) {
    for (IndexKind kind : values()) {
      if (kind.code == code) {
        return kind;
      }
    }
    throw new CorruptStoreException("unknown index kind " + code);
  }

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
