package io.varve.reader;

import io.varve.core.store.KeyMode;

/**
 * How a lookup tells whether the record its index points to is its key's, as far as the store's
 * {@link KeyMode} lets it: the full key is compared, or the signature the record keeps of the key's
 * hash, or, in a store that keeps neither, nothing (the index's answer is taken). Thread-safe
 * (immutable).
 */
abstract sealed class KeyMatch permits KeyMatch.FullKey, KeyMatch.Signature, KeyMatch.Unchecked {
  static KeyMatch of(KeyMode mode) {
    return switch (mode.kind()) {
      case FULL -> new FullKey();
      case SIGNATURE -> new Signature(mode);
      case NONE -> new Unchecked();
    };
  }

  /**
   * Whether the record at {@code position} is the one of {@code key[offset, offset + length)}, whose
   * hash's low word is {@code lo}. The record is checked against its checksum either way: a damaged
   * key must not turn a present key into an absent one.
   */
  final boolean matches(Records records, long position, byte[] key, int offset, int length, long lo) {
    long lengths = records.lengthsAt(position);
    boolean matches = compare(records, position, lengths, key, offset, length, lo);
    records.check(position, lengths);
    return matches;
  }

  abstract boolean compare(Records records, long position, long lengths, byte[] key, int offset, int length, long lo);

  static final class FullKey extends KeyMatch {
    @Override
    boolean compare(Records records, long position, long lengths, byte[] key, int offset, int length, long lo) {
      return records.keyEquals(position, lengths, key, offset, length);
    }
  }

  static final class Signature extends KeyMatch {
    private final KeyMode mode;

    private Signature(KeyMode mode) {
      this.mode = mode;
    }

    @Override
    boolean compare(Records records, long position, long lengths, byte[] key, int offset, int length, long lo) {
      return Records.keyLength(lengths) == mode.storedKeyLength() && records.storedKeyAsLong(position, lengths) == mode.signature(lo);
    }
  }

  static final class Unchecked extends KeyMatch {
    @Override
    boolean compare(Records records, long position, long lengths, byte[] key, int offset, int length, long lo) {
      return true;
    }
  }
}
