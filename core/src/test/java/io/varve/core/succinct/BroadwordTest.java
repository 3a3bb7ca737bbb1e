package io.varve.core.succinct;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class BroadwordTest {
  @Test
  void selectAgreesWithNaiveScan() {
    long seed = 0x5E1EC7L;
    System.out.println("BroadwordTest seed " + seed);
    SplittableRandom random = new SplittableRandom(seed);
    long[] specials = {-1L, 1L, Long.MIN_VALUE, 0x8000000000000001L, 0x00FF00FF00FF00FFL};
    for (int t = 0; t < 200_000; t++) {
      long word = t < specials.length ? specials[t] : random.nextLong() & random.nextLong() | (t & 1);
      int rank = 0;
      for (int bit = 0; bit < 64; bit++) {
        if ((word >>> bit & 1) != 0) {
          assertEquals(bit, Broadword.select(word, rank), () -> Long.toHexString(word));
          rank++;
        }
      }
    }
  }
}
