package io.varve.core.succinct;

/** Bit tricks on single 64-bit words. Stateless and thread-safe. */
public final class Broadword {
  private static final long ONES_STEP_8 = 0x0101010101010101L;
  private static final long MSBS_STEP_8 = 0x8080808080808080L;

  /** SELECT_IN_BYTE[rank << 8 | byte]: the position of the rank-th set bit of byte, rank 0..7. */
  private static final byte[] SELECT_IN_BYTE = new byte[8 * 256];

  static {
    for (int b = 0; b < 256; b++) {
      int rank = 0;
      for (int bit = 0; bit < 8; bit++) {
        if ((b & (1 << bit)) != 0) {
          SELECT_IN_BYTE[rank++ << 8 | b] = (byte) bit;
        }
      }
    }
  }

  private Broadword() {}

  /**
   * Returns the position (0 = least significant) of the set bit of rank {@code rank} (0-based) in
   * {@code word}. The result is undefined unless {@code rank < Long.bitCount(word)}.
   */
  public static int select(long word, int rank) {
    long byteCounts = word - ((word >>> 1) & 0x5555555555555555L);
    byteCounts = (byteCounts & 0x3333333333333333L) + ((byteCounts >>> 2) & 0x3333333333333333L);
    byteCounts = (byteCounts + (byteCounts >>> 4)) & 0x0F0F0F0F0F0F0F0FL;
    // Byte i of prefixCounts holds the number of set bits in bytes 0..i.
    long prefixCounts = byteCounts * ONES_STEP_8;
    // High bit of byte i is set iff prefixCounts[i] <= rank; prefix counts never decrease,
    // so the count of such bytes is the index of the byte holding the wanted bit.
    long atMostRank = ((rank * ONES_STEP_8 | MSBS_STEP_8) - prefixCounts) & MSBS_STEP_8;
    int byteIndex = Long.bitCount(atMostRank);
    int shift = byteIndex << 3;
    int before = (int) ((prefixCounts << 8) >>> shift) & 0xFF;
    int b = (int) (word >>> shift) & 0xFF;
    return shift + SELECT_IN_BYTE[(rank - before) << 8 | b];
  }
}
