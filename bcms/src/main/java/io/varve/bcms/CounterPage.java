package io.varve.bcms;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * One page of a buffered sketch in memory, in its on-disk layout (see {@link SketchFile}): {@code
 * columnsPerPage} columns of {@code depth} counters each, column-first, so that all counters of one
 * item are in this page. Applies updates and answers estimates; not thread-safe.
 */
final class CounterPage {
  private final ByteBuffer bytes;
  private final int depth;
  private final int columnsPerPage;
  private final int counterBytes;
  private final long counterMax;
  private final boolean conservative;

  CounterPage(SketchParameters parameters, int columnsPerPage) {
    this.bytes = ByteBuffer.allocateDirect(parameters.pageSize()).order(ByteOrder.LITTLE_ENDIAN);
    this.depth = parameters.depth();
    this.columnsPerPage = columnsPerPage;
    this.counterBytes = parameters.counterBytes();
    this.counterMax = parameters.counterMax();
    this.conservative = parameters.conservativeUpdate();
  }

  /** The page's bytes, for reading from and writing to the file (position and limit are the caller's). */
  ByteBuffer bytes() {
    return bytes;
  }

  /** Adds {@code weight} for the item with in-page hash {@code inPageHash} (conservatively if so configured). */
  void apply(int inPageHash, long weight) {
    if (conservative) {
      long target = Weights.add(estimate(inPageHash), weight, counterMax);
      for (int row = 0; row < depth; row++) {
        int at = offset(row, ItemHash.pageColumn(inPageHash, row, columnsPerPage));
        if (get(at) < target) {
          set(at, target);
        }
      }
    } else {
      for (int row = 0; row < depth; row++) {
        int at = offset(row, ItemHash.pageColumn(inPageHash, row, columnsPerPage));
        set(at, Weights.add(get(at), weight, counterMax));
      }
    }
  }

  /** The minimum of the item's counters. */
  long estimate(int inPageHash) {
    long min = Long.MAX_VALUE;
    for (int row = 0; row < depth && min > 0; row++) {
      min = Math.min(min, get(offset(row, ItemHash.pageColumn(inPageHash, row, columnsPerPage))));
    }
    return min;
  }

  /** Adds every counter of {@code other} (a page of the same layout) into this page. */
  void addAll(CounterPage other) {
    int end = columnsPerPage * depth * counterBytes;
    for (int at = 0; at < end; at += counterBytes) {
      long add = other.get(at);
      if (add != 0) {
        set(at, Weights.add(get(at), add, counterMax));
      }
    }
  }

  private int offset(int row, int column) {
    return (column * depth + row) * counterBytes;
  }

  private long get(int at) {
    return counterBytes == 4 ? Integer.toUnsignedLong(bytes.getInt(at)) : bytes.getLong(at);
  }

  private void set(int at, long value) {
    if (counterBytes == 4) {
      bytes.putInt(at, (int) value);
    } else {
      bytes.putLong(at, value);
    }
  }
}
