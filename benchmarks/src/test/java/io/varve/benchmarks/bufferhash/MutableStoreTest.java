package io.varve.benchmarks.bufferhash;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every adapter answers as a {@link HashMap} on a tiny data set (with replaced values, absent keys,
 * and a RAM budget small enough that the peers write to disk), so that the comparison's lookups
 * compute the right thing; and the workload's keys and lookup mix are as documented.
 */
class MutableStoreTest {
  private static final int RECORDS = 20_000;

  @ParameterizedTest
  @EnumSource(StoreKind.class)
  void answersAsAHashMap(StoreKind kind, @TempDir Path dir) throws Exception {
    Map<Key, byte[]> expected = new HashMap<>();
    SplittableRandom random = new SplittableRandom(42);
    try (MutableStore store = kind.open(2L << 20, dir, RECORDS)) {
      for (int i = 0; i < RECORDS; i++) {
        // Every tenth put replaces an earlier record's value.
        long index = i % 10 == 9 ? random.nextInt(i) : i;
        byte[] key = Fingerprints.key(index);
        byte[] value = i % 10 == 9 ? Fingerprints.value(random.nextLong()) : Fingerprints.value(index);
        store.put(key, value);
        expected.put(new Key(key), value);
        if (i % 1000 == 999) {
          // Lookups between puts: a store must see its own pending writes.
          long probe = random.nextInt(i);
          assertArrayEquals(expected.get(new Key(Fingerprints.key(probe))), store.get(Fingerprints.key(probe)));
        }
      }
      checkAll(store, expected);
      assertTrue(store.ramBytesUsed() >= -1);
    }
    try (MutableStore reopened = kind.open(2L << 20, dir, RECORDS)) {
      checkAll(reopened, expected);
    }
  }

  private static void checkAll(MutableStore store, Map<Key, byte[]> expected) throws Exception {
    for (Map.Entry<Key, byte[]> entry : expected.entrySet()) {
      assertArrayEquals(entry.getValue(), store.get(entry.getKey().bytes));
    }
    for (long i = RECORDS; i < RECORDS + 2000; i++) {
      assertNull(store.get(Fingerprints.key(i)));
    }
  }

  @Test
  void lookupsHitAtTheGivenRate() {
    Fingerprints.Lookups lookups = new Fingerprints.Lookups(1000, 0.4, 7);
    int present = 0;
    for (int i = 0; i < 100_000; i++) {
      present += lookups.next() < 1000 ? 1 : 0;
    }
    assertEquals(0.4, present / 100_000.0, 0.01);
    Fingerprints.Lookups absent = new Fingerprints.Lookups(1000, 0, 7);
    for (int i = 0; i < 1000; i++) {
      assertTrue(absent.next() >= 1000);
    }
    assertTrue(Fingerprints.isValueOf(123_456_789L, Fingerprints.value(123_456_789L)));
    assertEquals(Fingerprints.KEY_BYTES, Fingerprints.key(5).length);
  }

  /** A byte array with value equality, as a map key. */
  private record Key(byte[] bytes) {
    @Override
    public boolean equals(Object other) {
      return other instanceof Key key && Arrays.equals(bytes, key.bytes);
    }

    @Override
    public int hashCode() {
      return Arrays.hashCode(bytes);
    }
  }
}
