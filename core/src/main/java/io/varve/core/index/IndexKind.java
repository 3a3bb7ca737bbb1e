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
   * The entropy-coded trie index ({@code io.varve.core.ect.EctIndex}): the smaller index at large
   * bucket sizes, a trie walk per lookup (slower than {@link #BLOCKED} once the index is larger
   * than the CPU caches; the README's index results give both as measured); the only kind that can
   * index blocks of records (a sparse store).
   */
  ECT(0),
  /**
   * The blocked index ({@code io.varve.core.blocked.BlockedIndex}): {@code 1024 / keysPerBlock}
   * bits per key plus a small spill stream, one 128-byte block read per lookup.
   */
  BLOCKED(1),
  /**
   * No rank index: the records are packed into pages in hash order, and an in-memory table of each
   * page's first hash ({@code io.varve.core.store.PageTable}, about one bit per key) leads a lookup
   * to its page, whose head finds the record ({@code io.varve.core.store.PagedLayout}). For
   * variable-size records with full keys.
   */
  PAGED(2);

  private final int code;

  IndexKind(int code) {
    this.code = code;
  }

  /** The kind's code in a file: 0 for ECT, 1 for blocked, 2 for paged. */
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

  /**
   * The kind's name as the command line and the stats JSON spell it: {@code ect}, {@code blocked}
   * or {@code paged}.
   */
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
    throw new IllegalArgumentException("unknown index kind '" + label + "' (known: ect, blocked, paged)");
  }
}
