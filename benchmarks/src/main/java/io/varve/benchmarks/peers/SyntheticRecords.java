package io.varve.benchmarks.peers;

import java.util.Arrays;

/**
 * Generated records: member {@code j} is record number {@code first + j}. Its key starts with the
 * 8 big-endian bytes of {@code p = mix(first + j)}, a bijection, so keys are distinct and their
 * order is the unsigned order of {@code p}; longer keys continue with bytes derived from {@code p}.
 * The value is derived from {@code p} and a version: records numbered {@code updatedFrom} or
 * higher carry version 1 (the batch's new values), others version 0. Immutable; thread-safe.
 */
public final class SyntheticRecords implements RecordSet {
  private final int keyBytes;
  private final int valueBytes;
  private final long first;
  private final long end;
  private final long updatedFrom;

  /**
   * Records numbered {@code first} (inclusive) to {@code end} (exclusive).
   *
   * @param keyBytes key length, at least 8
   * @param updatedFrom the first record number whose value is the updated one
   */
  public SyntheticRecords(int keyBytes, int valueBytes, long first, long end, long updatedFrom) {
    if (keyBytes < 8 || valueBytes < 0 || first < 0 || end < first) {
      throw new IllegalArgumentException(
          "keyBytes " + keyBytes + " (min 8), valueBytes " + valueBytes + ", records [" + first + ", " + end + ")");
    }
    this.keyBytes = keyBytes;
    this.valueBytes = valueBytes;
    this.first = first;
    this.end = end;
    this.updatedFrom = updatedFrom;
  }

  @Override
  public long size() {
    return end - first;
  }

  @Override
  public int fixedKeyBytes() {
    return keyBytes;
  }

  @Override
  public int fixedValueBytes() {
    return valueBytes;
  }

  @Override
  public byte[] key(long j) {
    return keyOf(mix(first + j));
  }

  @Override
  public byte[] value(long j) {
    long number = first + j;
    return valueOf(mix(number), number >= updatedFrom ? 1 : 0);
  }

  @Override
  public void forEach(RecordVisitor visitor) throws Exception {
    for (long j = 0; j < size(); j++) {
      visitor.accept(key(j), value(j));
    }
  }

  @Override
  public void forEachSorted(RecordVisitor visitor) throws Exception {
    if (size() > Integer.MAX_VALUE - 8) {
      throw new IllegalStateException("cannot sort " + size() + " records in one array");
    }
    long[] prefixes = new long[(int) size()];
    Arrays.parallelSetAll(prefixes, j -> mix(first + j) ^ Long.MIN_VALUE);
    Arrays.parallelSort(prefixes);
    for (long flipped : prefixes) {
      long p = flipped ^ Long.MIN_VALUE;
      long number = unmix(p);
      visitor.accept(keyOf(p), valueOf(p, number >= updatedFrom ? 1 : 0));
    }
  }

  private byte[] keyOf(long p) {
    byte[] key = new byte[keyBytes];
    fill(key, 0, 8, p);
    long tail = p;
    for (int i = 8; i < keyBytes; i += 8) {
      tail = mix(tail ^ 0x5DEECE66DL);
      fill(key, i, Math.min(8, keyBytes - i), tail);
    }
    return key;
  }

  private byte[] valueOf(long p, int version) {
    byte[] value = new byte[valueBytes];
    long word = p ^ (version == 0 ? 0x9E3779B97F4A7C15L : 0xC2B2AE3D27D4EB4FL);
    for (int i = 0; i < valueBytes; i += 8) {
      word = mix(word);
      fill(value, i, Math.min(8, valueBytes - i), word);
    }
    return value;
  }

  private static void fill(byte[] target, int offset, int length, long word) {
    for (int i = 0; i < length; i++) {
      target[offset + i] = (byte) (word >>> (56 - 8 * i));
    }
  }

  /** MurmurHash3's 64-bit finalizer: a bijection of {@code long}. */
  public static long mix(long x) {
    x ^= x >>> 33;
    x *= 0xFF51AFD7ED558CCDL;
    x ^= x >>> 33;
    x *= 0xC4CEB9FE1A85EC53L;
    x ^= x >>> 33;
    return x;
  }

  /** The inverse of {@link #mix}. */
  static long unmix(long x) {
    x ^= x >>> 33;
    x *= 0x9CB4B2F8129337DBL; // inverse of 0xC4CEB9FE1A85EC53 mod 2^64
    x ^= x >>> 33;
    x *= 0x4F74430C22A54005L; // inverse of 0xFF51AFD7ED558CCD mod 2^64
    x ^= x >>> 33;
    return x;
  }
}
