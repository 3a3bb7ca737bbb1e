package io.varve.core.store;

import io.varve.core.format.CorruptStoreException;
import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.Locale;
import java.util.Objects;

/**
 * How keys are kept in the store ("throw away the keys", Indeed MPH). The record's key bytes
 * hold the full key, a k-bit signature of it, or nothing; the last two keep each key's 128-bit
 * hash in a {@code hashes} file, never read by lookups, so that the store can be merged and
 * re-indexed. An immutable value; thread-safe.
 *
 * @param kind full, signature or none
 * @param signatureBits the signature's bits, 1 to 64 ({@link Kind#SIGNATURE}; else 0)
 */
public record KeyMode(Kind kind, int signatureBits) {
  /** Every record holds its full key; lookups compare it. Absent keys are reported absent. */
  public static final KeyMode FULL = new KeyMode(Kind.FULL, 0);

  /**
   * Records hold no key: a lookup returns the record the index gives. Only for keys known to be
   * members: for an absent key the answer is undefined (some other key's value, or none).
   */
  public static final KeyMode NONE = new KeyMode(Kind.NONE, 0);

  /** The kinds, with their codes in the meta file. */
  public enum Kind {
    FULL(0),
    SIGNATURE(1),
    NONE(2);

    final int code;

    Kind(int code) {
      this.code = code;
    }
  }

  public KeyMode {
    Objects.requireNonNull(kind, "kind");
    if (kind == Kind.SIGNATURE ? signatureBits < 1 || signatureBits > 64 : signatureBits != 0) {
      throw new IllegalArgumentException("a signature has 1 to 64 bits; other modes none: " + kind + " " + signatureBits);
    }
  }

  /**
   * Records hold a {@code bits}-bit signature of the key (the low bits of its hash's {@code lo}
   * word, independent of the bits the index routes by): an absent key is reported present, with
   * some other key's value, with probability {@code 2^-bits}.
   */
  public static KeyMode signature(int bits) {
    return new KeyMode(Kind.SIGNATURE, bits);
  }

  /** Whether records hold full keys. */
  public boolean keepsKeys() {
    return kind == Kind.FULL;
  }

  /** The bytes a record holds in place of its key: the signature's, or 0; -1 for full keys. */
  public int storedKeyLength() {
    return switch (kind) {
      case FULL -> -1;
      case SIGNATURE -> (signatureBits + 7) / 8;
      case NONE -> 0;
    };
  }

  /** The signature of a key whose hash has low word {@code lo}. */
  public long signature(long lo) {
    return signatureBits == 64 ? lo : lo & ((1L << signatureBits) - 1);
  }

  /** Writes the stored key of a key whose hash has low word {@code lo} (little-endian signature). */
  public void writeStoredKey(long lo, byte[] target, int offset) {
    long signature = signature(lo);
    for (int i = 0; i < storedKeyLength(); i++) {
      target[offset + i] = (byte) (signature >>> (8 * i));
    }
  }

  /**
   * Writes this mode as the meta file lays it out, {@code keyMode:uint8} then {@code
   * signatureBits:uint8} after a signature: the one encoding of the meta file and of the files
   * that repeat a store's key mode (a sharded store's manifest).
   */
  public void writeTo(DataOutput out) throws IOException {
    out.writeByte(kind.code);
    if (kind == Kind.SIGNATURE) {
      out.writeByte(signatureBits);
    }
  }

  /**
   * Reads a mode written by {@link #writeTo}.
   *
   * @throws CorruptStoreException for an unknown mode or a signature of other than 1 to 64 bits
   */
  public static KeyMode readFrom(DataInput in) throws IOException {
    int code = in.readUnsignedByte();
    if (code == Kind.FULL.code) {
      return FULL;
    }
    if (code == Kind.NONE.code) {
      return NONE;
    }
    CorruptStoreException.check(code == Kind.SIGNATURE.code, "unknown key mode " + code);
    int bits = in.readUnsignedByte();
    CorruptStoreException.check(bits >= 1 && bits <= 64, "signature of " + bits + " bits");
    return signature(bits);
  }

  @Override
  public String toString() {
    return kind == Kind.SIGNATURE ? "signature:" + signatureBits : kind.name().toLowerCase(Locale.ROOT);
  }
}
