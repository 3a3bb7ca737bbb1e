package io.varve.core.succinct;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * Bit tricks on single 64-bit words. Stateless and thread-safe.
 *
 * <p>{@link #select} is the hot step of every Elias-Fano and blocked-index lookup. On JDK 19 and
 * later it uses {@code Long.expand}, which HotSpot compiles to one {@code PDEP} instruction on x86
 * with BMI2 (and to a short sequence elsewhere); Varve's bytecode targets Java 17, so the method is
 * found by reflection once and called through a constant method handle, which the JIT inlines. On
 * Java 17 and 18 a broadword select with a 2 KiB table is used. Both give the same results. CPUs
 * whose {@code PDEP} is microcoded (AMD before Zen 3) are faster with the broadword select: set the
 * system property {@value #PORTABLE_SELECT_PROPERTY} to {@code true} there.
 */
public final class Broadword {
  /** System property that forces the broadword select even where {@code Long.expand} exists. */
  public static final String PORTABLE_SELECT_PROPERTY = "io.varve.portableSelect";

  private static final long ONES_STEP_8 = 0x0101010101010101L;
  private static final long MSBS_STEP_8 = 0x8080808080808080L;

  /** SELECT_IN_BYTE[rank << 8 | byte]: the position of the rank-th set bit of byte, rank 0..7. */
  private static final byte[] SELECT_IN_BYTE = new byte[8 * 256];

  /** {@code Long.expand(long, long)} where the runtime has it and it is wanted; else null. */
  private static final MethodHandle EXPAND = findExpand();

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

  private static MethodHandle findExpand() {
    if (Boolean.getBoolean(PORTABLE_SELECT_PROPERTY)) {
      return null;
    }
    try {
      return MethodHandles.publicLookup()
          .findStatic(Long.class, "expand", MethodType.methodType(long.class, long.class, long.class));
    } catch (NoSuchMethodException | IllegalAccessException e) {
      return null; // Java 17 or 18
    }
  }

  /** Whether {@link #select} uses {@code Long.expand} in this JVM. */
  public static boolean selectUsesExpand() {
    return EXPAND != null;
  }

  /**
   * Returns the position (0 = least significant) of the set bit of rank {@code rank} (0-based) in
   * {@code word}. The result is undefined unless {@code rank < Long.bitCount(word)}.
   */
  public static int select(long word, int rank) {
    if (EXPAND != null) {
      return Long.numberOfTrailingZeros(expand(1L << rank, word));
    }
    return selectPortable(word, rank);
  }

  /**
   * Returns the position (0 = most significant) of the {@code rank}-th (1-based) set bit of {@code
   * word} counted from the most significant end. The result is undefined unless {@code 1 <= rank <=
   * Long.bitCount(word)}.
   */
  public static int selectFromMsb(long word, int rank) {
    return 63 - select(word, Long.bitCount(word) - rank);
  }

  private static long expand(long bits, long mask) {
    try {
      return (long) EXPAND.invokeExact(bits, mask);
    } catch (Throwable e) {
      throw new AssertionError("Long.expand failed", e); // it throws nothing
    }
  }

  /** {@link #select} without {@code Long.expand}: the broadword method, for any Java version. */
  static int selectPortable(long word, int rank) {
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
