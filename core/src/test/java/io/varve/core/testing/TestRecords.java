package io.varve.core.testing;

import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Random records for tests, one place for every module's tests (shipped as {@code varve-core}'s
 * test-jar): maps from key (wrapped, so that equal bytes are equal keys) to value, in insertion
 * order, the same for the same seed. Tests print their seed. Stateless; thread-safe.
 */
public final class TestRecords {
  private TestRecords() {}

  /**
   * The random source of a test, from {@code seed}, which is printed after {@code test} (the test's
   * name and cases) so that a failure can be replayed.
   */
  public static SplittableRandom seeded(String test, long seed) {
    System.out.println(test + " seed=" + seed);
    return new SplittableRandom(seed);
  }

  /** {@code bytes} as a map key: equal contents are equal keys. */
  public static ByteBuffer key(byte[] bytes) {
    return ByteBuffer.wrap(bytes);
  }

  /** {@code length} random bytes. */
  public static byte[] bytes(SplittableRandom random, int length) {
    byte[] bytes = new byte[length];
    random.nextBytes(bytes);
    return bytes;
  }

  /** Random bytes of a random length in {@code [0, maxLength]}. */
  public static byte[] upTo(SplittableRandom random, int maxLength) {
    return bytes(random, random.nextInt(maxLength + 1));
  }

  /** {@code n} distinct keys of {@code keyLength} bytes, with values of {@code valueLength} bytes. */
  public static Map<ByteBuffer, byte[]> fixed(int n, long seed, int keyLength, int valueLength) {
    SplittableRandom random = new SplittableRandom(seed);
    Map<ByteBuffer, byte[]> records = new LinkedHashMap<>();
    while (records.size() < n) {
      records.put(key(bytes(random, keyLength)), bytes(random, valueLength));
    }
    return records;
  }

  /** {@code n} distinct keys of up to {@code maxKey} bytes (the empty key among them, likely), with values of up to {@code maxValue}. */
  public static Map<ByteBuffer, byte[]> variable(int n, long seed, int maxKey, int maxValue) {
    SplittableRandom random = new SplittableRandom(seed);
    Map<ByteBuffer, byte[]> records = new LinkedHashMap<>();
    while (records.size() < n) {
      records.put(key(upTo(random, maxKey)), upTo(random, maxValue));
    }
    return records;
  }
}
