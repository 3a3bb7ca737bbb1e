package io.varve.reader;

import java.util.NoSuchElementException;

/**
 * Iterates over a {@link Store}'s records in hash order: {@code while (cursor.next())
 * use(cursor.key(), cursor.value())}. Each record is checked against its checksum when first read.
 * Not thread-safe (one cursor per thread; a store hands out any number); each call to {@code key()}
 * or {@code value()} returns a new array. Once the store is closed every call throws {@link
 * StoreClosedException}.
 */
public final class StoreCursor {
  private final Store store;
  private final Records records;
  private final LookupGuard guard;
  private final DataFaults faults;
  private long next;
  private long current = -1;
  /** The rank whose file position is in {@code position} (-1: none), and where it ends. */
  private long positionRank = -1;
  private long position;
  private long positionEnd;

  StoreCursor(Store store, Records records, LookupGuard guard, DataFaults faults) {
    this.store = store;
    this.records = records;
    this.guard = guard;
    this.faults = faults;
  }

  /**
   * Moves to the next record; false after the last.
   *
   * @throws StoreClosedException once the store is closed, as every call of the cursor
   */
  public boolean next() {
    guard.checkOpen();
    if (next == store.size()) {
      current = -1;
      return false;
    }
    current = next++;
    return true;
  }

  /** The current record's position in hash order. */
  public long index() {
    guard.checkOpen();
    checkCurrent();
    return current;
  }

  /**
   * The current record's key.
   *
   * @throws UnsupportedOperationException in a store that keeps no full keys
   */
  public byte[] key() {
    checkCurrent();
    store.checkKeysKept();
    int slot = guard.slot();
    try {
      guard.enter(slot);
      return records.keyBytes(locate());
    } catch (InternalError fault) {
      throw faults.fault(fault);
    } finally {
      guard.exit(slot);
    }
  }

  /** The current record's value. */
  public byte[] value() {
    checkCurrent();
    int slot = guard.slot();
    try {
      guard.enter(slot);
      return records.valueBytes(locate());
    } catch (InternalError fault) {
      throw faults.fault(fault);
    } finally {
      guard.exit(slot);
    }
  }

  /** The current record's file position: from the previous record's end when walking in order. */
  private long locate() {
    if (positionRank != current) {
      long start = positionRank >= 0 && positionRank == current - 1 ? records.nextStart(current, positionEnd) : records.start(current);
      long lengths = records.lengthsAt(start);
      records.check(start, lengths);
      positionEnd = records.end(start, lengths);
      position = start;
      positionRank = current;
    }
    return position;
  }

  private void checkCurrent() {
    if (current < 0) {
      throw new NoSuchElementException("no current record: call next() first and check that it returned true");
    }
  }
}
