package io.varve.core.ect;

import java.util.Arrays;

/**
 * The block boundaries inside one bucket's rank range, fetched once per sparse lookup: the trie
 * descent then asks "do these ranks lie in one block?" at every node it visits, and answering from
 * a handful of cached cuts instead of the {@link BlockBoundaries} (an Elias-Fano search each time)
 * makes sparse lookups several times faster. One instance per thread, reused; not thread-safe.
 */
final class BlockCuts {
  private static final ThreadLocal<BlockCuts> PER_THREAD = ThreadLocal.withInitial(BlockCuts::new);

  /** First ranks of blocks, in {@code (first, end)}, increasing. */
  private long[] cuts = new long[16];
  private int count;

  private BlockCuts() {}

  /** This thread's instance, holding the cuts of {@code blocks} strictly inside {@code (first, end)}. */
  static BlockCuts within(BlockBoundaries blocks, long first, long end) {
    BlockCuts result = PER_THREAD.get();
    result.count = 0;
    for (long b = blocks.blockOf(first) + 1; ; b++) {
      long cut = blocks.firstRank(b);
      if (cut >= end) {
        break;
      }
      if (cut > first && (result.count == 0 || cut > result.cuts[result.count - 1])) {
        if (result.count == result.cuts.length) {
          result.cuts = Arrays.copyOf(result.cuts, 2 * result.count);
        }
        result.cuts[result.count++] = cut;
      }
    }
    return result;
  }

  /** Whether ranks {@code first..last} (inclusive, inside the range) lie in one block. */
  boolean sameBlock(long first, long last) {
    // The first cut above `first`: the ranks share a block iff it lies beyond `last`.
    int low = 0;
    int high = count;
    while (low < high) {
      int middle = (low + high) >>> 1;
      if (cuts[middle] <= first) {
        low = middle + 1;
      } else {
        high = middle;
      }
    }
    return low == count || cuts[low] > last;
  }
}
