package io.varve.bcms;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.IntBuffer;
import java.nio.LongBuffer;

/**
 * The sums of a row-layout body's counters, read chunk by chunk as a flush checksums it, checked
 * against the sketch's total weight: a write through a memory mapping that the file system could
 * not take (a full disk under a sparse or copy-on-write file) is dropped, and its error may surface
 * far from the write, or in the caller's code. Every update adds its weight to one counter of each
 * row, so a row sums to at least the total weight (exactly, unless an open after a crash kept
 * counts beyond its last flush); a conservative update adds it to at least one counter of the
 * sketch, so all rows together sum to at least it. A row with a saturated counter proves nothing.
 * Not thread-safe.
 */
final class RowSums {
  private final long width;
  private final int counterBytes;
  private final long counterMax;
  private final boolean conservative;
  private final long[] sums;
  private final boolean[] saturated;

  RowSums(SketchParameters parameters) {
    this.width = parameters.width();
    this.counterBytes = parameters.counterBytes();
    this.counterMax = parameters.counterMax();
    this.conservative = parameters.conservativeUpdate();
    this.sums = new long[parameters.depth()];
    this.saturated = new boolean[parameters.depth()];
  }

  /** Adds the counters in {@code chunk} (position to limit), which starts at counter {@code firstCounter} of the body. */
  void add(ByteBuffer chunk, long firstCounter) {
    ByteBuffer bytes = chunk.duplicate().order(ByteOrder.LITTLE_ENDIAN);
    int count = bytes.remaining() / counterBytes;
    IntBuffer ints = counterBytes == 4 ? bytes.asIntBuffer() : null;
    LongBuffer longs = counterBytes == 8 ? bytes.asLongBuffer() : null;
    long index = firstCounter;
    // One run per row the chunk touches: no division per counter.
    for (int from = 0; from < count; ) {
      int row = (int) (index / width);
      int to = (int) Math.min(count, from + ((row + 1) * width - index));
      if (ints != null) {
        addInts(ints, from, to, row);
      } else {
        addLongs(longs, from, to, row);
      }
      index += to - from;
      from = to;
    }
  }

  private void addInts(IntBuffer counters, int from, int to, int row) {
    long sum = 0; // fewer than 2^31 counters, each below 2^32: below 2^63
    boolean full = false;
    for (int i = from; i < to; i++) {
      int value = counters.get(i);
      sum += Integer.toUnsignedLong(value);
      full |= value == -1;
    }
    sums[row] = Weights.add(sums[row], sum, Long.MAX_VALUE);
    saturated[row] |= full;
  }

  private void addLongs(LongBuffer counters, int from, int to, int row) {
    long sum = sums[row];
    boolean full = false;
    for (int i = from; i < to; i++) {
      long value = counters.get(i);
      sum = Weights.add(sum, value, Long.MAX_VALUE);
      full |= value >= counterMax;
    }
    sums[row] = sum;
    saturated[row] |= full;
  }

  /** Null if the counters hold {@code totalWeight} as they must, else which row falls short and by how much. */
  String shortfall(long totalWeight) {
    if (totalWeight == Long.MAX_VALUE) {
      return null;
    }
    if (conservative) {
      long all = 0;
      for (int row = 0; row < sums.length; row++) {
        if (saturated[row]) {
          return null;
        }
        all = Weights.add(all, sums[row], Long.MAX_VALUE);
      }
      return all >= totalWeight ? null : "its counters sum to " + all + ", below its total weight " + totalWeight;
    }
    for (int row = 0; row < sums.length; row++) {
      if (!saturated[row] && sums[row] < totalWeight) {
        return "row " + row + " sums to " + sums[row] + ", below its total weight " + totalWeight;
      }
    }
    return null;
  }
}
