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
   * hash's low word is {@code lo}. The record is checked against its checksum either way (a damaged
   * key must not turn a present key into an absent one), and compared in the copy it was checked
   * in ({@link RecordCopy}), which then holds it for the value's read.
   */
  final boolean matches(Records records, long position, byte[] key, int offset, int length, long lo) {
    return matches(records, position, key, offset, length, lo, RecordCopy.ofThisThread());
  }

  /** {@link #matches(Records, long, byte[], int, int, long)} with this thread's {@code scratch}. */
  final boolean matches(Records records, long position, byte[] key, int offset, int length, long lo, RecordCopy scratch) {
    long lengths = records.lengthsAt(position);
    RecordCopy copy = records.copyChecked(position, lengths, scratch);
    if (copy != null) {
      return compare(copy, key, offset, length, lo);
    }
    boolean matches = compare(records, position, lengths, key, offset, length, lo);
    records.check(position, lengths);
    return matches;
  }

  /** The comparison in the mapping, for a record not copied. */
  abstract boolean compare(Records records, long position, long lengths, byte[] key, int offset, int length, long lo);

  /** The comparison in the thread's checked copy of the record. */
  abstract boolean compare(RecordCopy copy, byte[] key, int offset, int length, long lo);

  static final class FullKey extends KeyMatch {
    @Override
    boolean compare(Records records, long position, long lengths, byte[] key, int offset, int length, long lo) {
      return records.keyEquals(position, lengths, key, offset, length);
    }

    @Override
    boolean compare(RecordCopy copy, byte[] key, int offset, int length, long lo) {
      if (Records.keyLength(copy.lengths) != length) {
        return false;
      }
      byte[] stored = copy.bytes;
      int from = copy.keyStart();
      int i = 0;
      for (; i + Long.BYTES <= length; i += Long.BYTES) {
        if ((long) Records.LITTLE_ENDIAN_LONG.get(stored, from + i) != (long) Records.LITTLE_ENDIAN_LONG.get(key, offset + i)) {
          return false;
        }
      }
      for (; i < length; i++) {
        if (stored[from + i] != key[offset + i]) {
          return false;
        }
      }
      return true;
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

    @Override
    boolean compare(RecordCopy copy, byte[] key, int offset, int length, long lo) {
      int keyLength = Records.keyLength(copy.lengths);
      if (keyLength != mode.storedKeyLength()) {
        return false;
      }
      long signature = 0;
      for (int i = 0; i < keyLength; i++) {
        signature |= (copy.bytes[copy.keyStart() + i] & 0xFFL) << (8 * i);
      }
      return signature == mode.signature(lo);
    }
  }

  static final class Unchecked extends KeyMatch {
    @Override
    boolean compare(Records records, long position, long lengths, byte[] key, int offset, int length, long lo) {
      return true;
    }

    @Override
    boolean compare(RecordCopy copy, byte[] key, int offset, int length, long lo) {
      return true;
    }
  }
}
