package io.varve.bufferhash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayDeque;
import java.util.Random;
import org.junit.jupiter.api.Test;

class BloomSlicesTest {
  /** Ordinals come and go through a sliding window that sometimes widens: never a false negative. */
  @Test
  void neverMissesAKeyOfALiveIncarnation() {
    long seed = 0xB100;
    System.out.println("BloomSlicesTest seed " + seed);
    Random random = new Random(seed);
    int perIncarnation = 50;
    BloomSlices filters = new BloomSlices(perIncarnation * 10, 7, 64);
    ArrayDeque<long[][]> live = new ArrayDeque<>();
    long first = 0;
    long next = 0;
    long falsePositives = 0;
    long probes = 0;
    for (int round = 0; round < 2_000; round++) {
      int window = round < 700 ? 40 : round < 1400 ? 150 : 20;
      while (next - first >= window) {
        live.removeFirst();
        first++;
      }
      filters.prepare(next, first);
      long[][] keys = new long[perIncarnation][2];
      for (long[] key : keys) {
        key[0] = random.nextLong();
        key[1] = random.nextLong();
        filters.add(next, key[0], key[1]);
      }
      live.addLast(keys);
      next++;
      long[] candidates = new long[filters.columns() / 64];
      long ordinal = first;
      for (long[][] incarnation : live) {
        long[] key = incarnation[random.nextInt(perIncarnation)];
        filters.candidates(key[0], key[1], candidates);
        int column = (int) (ordinal % filters.columns());
        assertTrue((candidates[column >>> 6] & (1L << column)) != 0, "false negative for ordinal " + ordinal + " in round " + round);
        ordinal++;
      }
      filters.candidates(random.nextLong(), random.nextLong(), candidates);
      for (long o = filters.previousCandidate(candidates, next - 1, first); o >= first; o = filters.previousCandidate(candidates, o - 1, first)) {
        falsePositives++;
      }
      probes += next - first;
    }
    double rate = falsePositives / (double) probes;
    System.out.println("BloomSlicesTest false-positive rate " + rate + " over " + probes + " probes");
    assertTrue(rate < 0.03, "false-positive rate " + rate + " (10 bits per key should give about 0.008)");
    assertTrue(filters.columns() >= 150, "the ring grew to " + filters.columns());
  }

  @Test
  void previousCandidateWalksNewestFirstAcrossTheRing() {
    BloomSlices filters = new BloomSlices(64, 1, 128);
    long[] candidates = new long[2];
    candidates[0] = (1L << 3) | (1L << 63);
    candidates[1] = 1L << 1;
    // Live ordinals 100..227 map to columns 100 mod 128 ... : column 3 = ordinal 131, 63 = 191, 65 = 193.
    long first = 100;
    long next = 228;
    assertEquals(193, filters.previousCandidate(candidates, next - 1, first));
    assertEquals(191, filters.previousCandidate(candidates, 192, first));
    assertEquals(131, filters.previousCandidate(candidates, 190, first));
    assertTrue(filters.previousCandidate(candidates, 130, first) < first);
  }
}
