package io.varve.core.hash;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import io.varve.core.testing.TestRecords;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

class HashSortTest {
  @ParameterizedTest(name = "n={0}")
  @ValueSource(ints = {0, 1, 2, 3, 1000, 100_000})
  void sortsLikeAComparatorSort(int n) {
    long seed = 0x5027L + n;
    SplittableRandom random = TestRecords.seeded("HashSortTest", seed);
    long[] hi = new long[n];
    long[] lo = new long[n];
    for (int i = 0; i < n; i++) {
      // Few distinct high words in part of the input, to exercise the tie-break on lo.
      hi[i] = i % 3 == 0 ? random.nextLong(4) - 2 : random.nextLong();
      lo[i] = random.nextLong();
    }
    long[][] pairs = new long[n][];
    for (int i = 0; i < n; i++) {
      pairs[i] = new long[] {hi[i], lo[i]};
    }
    Arrays.sort(pairs, (a, b) -> KeyHasher.compare(a[0], a[1], b[0], b[1]));
    HashSort.sort(hi, lo, n);
    for (int i = 0; i < n; i++) {
      assertEquals(pairs[i][0], hi[i], "hi at " + i);
      assertEquals(pairs[i][1], lo[i], "lo at " + i);
    }
  }

  @Test
  void hasherIsSeededAndStable() {
    long[] a = new long[2];
    long[] b = new long[2];
    byte[] key = "varve".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    KeyHasher.withSeed(1).hash(key, a);
    KeyHasher.withSeed(1).hash(key, 0, key.length, b);
    assertArrayEquals(a, b);
    KeyHasher.withSeed(2).hash(key, b);
    assertNotEquals(a[0], b[0]);
    // Pinned: the hash is part of the store format (seeded XXH3-128).
    KeyHasher.withSeed(0).hash(new byte[0], a);
    assertEquals(GOLDEN_EMPTY_KEY_HI, a[0]);
    assertEquals(GOLDEN_EMPTY_KEY_LO, a[1]);
  }

  /** XXH3-128 of the empty input, seed 0, is 99aa06d3014798d8 6001c324468d497f (high, low). */
  static final long GOLDEN_EMPTY_KEY_HI = 0x6001c324468d497fL;

  static final long GOLDEN_EMPTY_KEY_LO = 0x99aa06d3014798d8L;
}
