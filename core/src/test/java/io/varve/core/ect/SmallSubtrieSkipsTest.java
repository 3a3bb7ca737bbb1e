package io.varve.core.ect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The skip table must give the length of real small tries whenever it gives any. */
class SmallSubtrieSkipsTest {
  @ParameterizedTest(name = "hmax = {0}")
  @ValueSource(ints = {1, 2, 4, 64})
  void tableLengthsMatchBuiltTries(int hmax) {
    SmallSubtrieSkips skips = SmallSubtrieSkips.forHuffmanMax(hmax);
    int hits = 0;
    int trials = 0;
    for (int c = 2; c <= SmallSubtrieSkips.MAX_KEYS; c++) {
      for (int t = 0; t < 2000; t++) {
        SortedHashes hashes = SortedHashes.random(c, c * 100_003L + t);
        if (hashes.size() != c) {
          continue;
        }
        EctIndex index = hashes.buildDense(new EctParameters(c, hmax));
        long bits = index.trieBits();
        long peek = index.trieWords().peekMsbFirst(0);
        int length = skips.length(c, peek);
        trials++;
        if (length >= 0) {
          hits++;
          assertEquals(bits, length, "c=" + c + " trial " + t);
        } else {
          assertTrue(bits > SmallSubtrieSkips.WINDOW_BITS, "a " + bits + "-bit trie missing from the table");
        }
      }
    }
    System.out.printf("hmax=%d: %d of %d small tries resolved by the table%n", hmax, hits, trials);
  }
}
