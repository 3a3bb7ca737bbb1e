package io.varve.core.ect;

import io.varve.core.succinct.EliasFano;

/**
 * How records (by rank in hash order) are grouped into the blocks of a sparse index: the index
 * stops at any subtrie whose records all lie in one block and returns that block (ECT paper,
 * section 2.6). The builder and every reader of a sparse index must use equal boundaries.
 *
 * <p>Implementations must be immutable and thread-safe.
 */
public interface BlockBoundaries {

  /** The block holding the record of rank {@code rank}. */
  long blockOf(long rank);

  /** The rank of block {@code block}'s first record; {@link Long#MAX_VALUE} past the last block. */
  long firstRank(long block);

  /** Whether the records of ranks {@code first..last} (inclusive) all lie in one block. */
  default boolean sameBlock(long first, long last) {
    return blockOf(first) == blockOf(last);
  }

  /** Blocks of exactly {@code recordsPerBlock} records (the last may hold fewer). */
  static BlockBoundaries fixedSize(long recordsPerBlock) {
    if (recordsPerBlock < 1) {
      throw new IllegalArgumentException("recordsPerBlock must be >= 1: " + recordsPerBlock);
    }
    return new BlockBoundaries() {
      @Override
      public long blockOf(long rank) {
        return rank / recordsPerBlock;
      }

      @Override
      public long firstRank(long block) {
        return block > Long.MAX_VALUE / recordsPerBlock ? Long.MAX_VALUE : block * recordsPerBlock;
      }

      @Override
      public String toString() {
        return "fixedSize(" + recordsPerBlock + ")";
      }
    };
  }

  /**
   * Blocks given by the rank of their first record: {@code firstRanks.get(b)} is the first rank of
   * block {@code b}; the sequence starts with 0 and does not decrease. An empty block repeats the
   * next block's first rank (records are then found in the last of equal entries), and a last
   * entry may hold the record count.
   */
  static BlockBoundaries firstRanks(EliasFano firstRanks) {
    if (firstRanks.size() == 0 || firstRanks.get(0) != 0) {
      throw new IllegalArgumentException("block first ranks must start with 0");
    }
    return new BlockBoundaries() {
      @Override
      public long blockOf(long rank) {
        return firstRanks.predecessorIndex(rank);
      }

      @Override
      public long firstRank(long block) {
        return block < firstRanks.size() ? firstRanks.get(block) : Long.MAX_VALUE;
      }

      @Override
      public String toString() {
        return "firstRanks(" + firstRanks.size() + " blocks)";
      }
    };
  }
}
