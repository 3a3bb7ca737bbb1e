package io.varve.core.succinct;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class BroadwordTest {
  private static final long[] SPECIALS = {-1L, 1L, Long.MIN_VALUE, 0x8000000000000001L, 0x00FF00FF00FF00FFL};

  /** Checks select, its portable form and selectFromMsb against a bit-by-bit scan. */
  @Test
  void selectAgreesWithNaiveScan() {
    long seed = 0x5E1EC7L;
    System.out.println("BroadwordTest seed " + seed + ", select uses Long.expand: " + Broadword.selectUsesExpand());
    SplittableRandom random = new SplittableRandom(seed);
    for (int t = 0; t < 200_000; t++) {
      long word = t < SPECIALS.length ? SPECIALS[t] : random.nextLong() & random.nextLong() | (t & 1);
      int rank = 0;
      int ones = Long.bitCount(word);
      for (int bit = 0; bit < 64; bit++) {
        if ((word >>> bit & 1) != 0) {
          int r = rank;
          assertEquals(bit, Broadword.select(word, r), () -> Long.toHexString(word) + " rank " + r);
          assertEquals(bit, Broadword.selectPortable(word, r), () -> Long.toHexString(word) + " rank " + r);
          assertEquals(63 - bit, Broadword.selectFromMsb(word, ones - r), () -> Long.toHexString(word));
          rank++;
        }
      }
    }
  }
}
