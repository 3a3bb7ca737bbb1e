package io.varve.builder;

import java.io.Closeable;
import java.io.IOException;

/**
 * A source of records in hash order for the merge: a spilled run or the records still in memory.
 * After {@link #next()} returns true, {@link #hi}, {@link #lo} and {@link #record} describe the
 * current record until the following call. Not thread-safe.
 */
abstract class RecordCursor implements Closeable {
  long hi;
  long lo;
  final RecordSlice record = new RecordSlice();

  /** Moves to the next record; false at the end. */
  abstract boolean next() throws IOException;

  @Override
  public void close() throws IOException {}

  /** The sorted records of an in-memory buffer. */
  static RecordCursor of(RecordBuffer buffer) {
    if (!buffer.isSorted()) {
      throw new IllegalStateException("buffer not sorted");
    }
    return new RecordCursor() {
      private int next;

      @Override
      boolean next() {
        if (next == buffer.size()) {
          return false;
        }
        hi = buffer.hi(next);
        lo = buffer.lo(next);
        buffer.record(next++, record);
        return true;
      }
    };
  }
}
