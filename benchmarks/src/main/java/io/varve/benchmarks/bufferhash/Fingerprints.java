package io.varve.benchmarks.bufferhash;

import java.util.SplittableRandom;

/**
 * The workload of the paper's section 7 and of issue 20: record {@code i} maps a 20-byte key that
 * looks like a SHA-1 fingerprint (160 pseudo-random bits drawn from {@code i}) to an 8-byte value,
 * {@code i} itself, so that every lookup's answer can be checked. Records {@code 0..n-1} are the
 * data set; keys of indexes from {@code n} on are never inserted and serve as absent keys (two
 * distinct 160-bit keys colliding is not a concern). Stateless; thread-safe.
 */
public final class Fingerprints {
  public static final int KEY_BYTES = 20;
  public static final int VALUE_BYTES = 8;
  /** Raw bytes of one record, the unit in which the data set's size is given. */
  public static final int RECORD_BYTES = KEY_BYTES + VALUE_BYTES;

  private Fingerprints() {}

  /** The key of record {@code index}, written into {@code key} (20 bytes). */
  public static void key(long index, byte[] key) {
    long a = mix(index * 0x9E3779B97F4A7C15L + 0x5DEECE66DL);
    long b = mix(a ^ 0xD1B54A32D192ED03L);
    long c = mix(b ^ 0xA0761D6478BD642FL);
    putLong(key, 0, a);
    putLong(key, 8, b);
    key[16] = (byte) (c >>> 56);
    key[17] = (byte) (c >>> 48);
    key[18] = (byte) (c >>> 40);
    key[19] = (byte) (c >>> 32);
  }

  /** A new array holding the key of record {@code index}. */
  public static byte[] key(long index) {
    byte[] key = new byte[KEY_BYTES];
    key(index, key);
    return key;
  }

  /** The value of record {@code index}: the index, big-endian, in a new array. */
  public static byte[] value(long index) {
    byte[] value = new byte[VALUE_BYTES];
    putLong(value, 0, index);
    return value;
  }

  /** True when {@code value} is the value of record {@code index}. */
  public static boolean isValueOf(long index, byte[] value) {
    if (value == null || value.length != VALUE_BYTES) {
      return false;
    }
    long read = 0;
    for (int i = 0; i < VALUE_BYTES; i++) {
      read = read << 8 | (value[i] & 0xFF);
    }
    return read == index;
  }

  /**
   * The record index of each lookup: with probability {@code successRate} a record of the data set
   * (uniformly), otherwise an absent key (an index from {@code records} on, never repeated in
   * practice). Not thread-safe.
   */
  public static final class Lookups {
    private final long records;
    private final double successRate;
    private final SplittableRandom random;

    public Lookups(long records, double successRate, long seed) {
      this.records = records;
      this.successRate = successRate;
      this.random = new SplittableRandom(seed);
    }

    public long next() {
      return random.nextDouble() < successRate ? random.nextLong(records)
          : records + random.nextLong(Long.MAX_VALUE - records);
    }
  }

  private static void putLong(byte[] bytes, int offset, long value) {
    for (int i = 0; i < 8; i++) {
      bytes[offset + i] = (byte) (value >>> (56 - 8 * i));
    }
  }

  /** Stafford's variant 13 of the SplitMix64 finalizer: every input bit moves every output bit. */
  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }
}
