package io.varve.builder;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Merges sources of records in hash order into one stream in hash order, resolving records with
 * equal hashes: sources are given in input order (a record of source {@code i} was put before
 * any of source {@code i + 1}) and each source keeps input order among its equal hashes, so a
 * group of equal hashes comes out in input order. In the group, a repeated key is a duplicate
 * ({@link DuplicatePolicy}); distinct keys are a hash collision, which this stream does not
 * resolve (every key is passed on) but reports through {@link #collisionSeen()}, so that the
 * caller can rehash with another seed.
 *
 * <p>{@link StoreBuilder} no longer needs a k-way merge (its hash-prefix partitions are sorted one
 * at a time); this class is kept, tested, as the merge of several sorted sources, newest last,
 * that the merging of stores with new batches is to be built on.
 *
 * <p>Not thread-safe.
 */
final class MergedRecords extends RecordCursor {
  private final RecordCursor[] sources;
  private final DuplicatePolicy policy;
  /** A binary min-heap of source indexes ordered by (current hash, source index). */
  private final int[] heap;
  private int heapSize;
  /** Copies of the records of the current equal-hash group; [0, groupSize) are live. */
  private final List<RecordSlice> group = new ArrayList<>();
  private int groupSize;
  private int groupNext;
  private long groupHi;
  private long groupLo;
  private boolean started;
  private long duplicatesDropped;
  private boolean collisionSeen;

  MergedRecords(List<? extends RecordCursor> sources, DuplicatePolicy policy) {
    this.sources = sources.toArray(new RecordCursor[0]);
    this.policy = policy;
    this.heap = new int[this.sources.length];
  }

  long duplicatesDropped() {
    return duplicatesDropped;
  }

  boolean collisionSeen() {
    return collisionSeen;
  }

  @Override
  boolean next() throws IOException {
    if (!started) {
      started = true;
      for (int i = 0; i < sources.length; i++) {
        if (sources[i].next()) {
          push(i);
        }
      }
    }
    if (groupNext < groupSize) {
      emit(group.get(groupNext++));
      return true;
    }
    if (heapSize == 0) {
      return false;
    }
    readGroup();
    emit(group.get(groupNext++));
    return true;
  }

  private void emit(RecordSlice slice) {
    hi = groupHi;
    lo = groupLo;
    record.bytes = slice.bytes;
    record.offset = slice.offset;
    record.headerLength = slice.headerLength;
    record.keyLength = slice.keyLength;
    record.valueLength = slice.valueLength;
  }

  /** Takes every record with the smallest hash off the heap into {@link #group}, resolved. */
  private void readGroup() throws IOException {
    groupSize = 0;
    groupNext = 0;
    RecordCursor first = sources[heap[0]];
    groupHi = first.hi;
    groupLo = first.lo;
    while (heapSize > 0 && sources[heap[0]].hi == groupHi && sources[heap[0]].lo == groupLo) {
      int s = heap[0];
      addToGroup(sources[s].record);
      if (sources[s].next()) {
        siftDown(0);
      } else {
        heap[0] = heap[--heapSize];
        siftDown(0);
      }
    }
  }

  private void addToGroup(RecordSlice incoming) {
    for (int i = 0; i < groupSize; i++) {
      RecordSlice earlier = group.get(i);
      if (earlier.sameKey(incoming)) {
        if (policy == DuplicatePolicy.FAIL) {
          throw new DuplicateKeyException(incoming.key());
        }
        incoming.copyTo(earlier);
        duplicatesDropped++;
        return;
      }
    }
    if (groupSize > 0) {
      collisionSeen = true;
    }
    if (groupSize == group.size()) {
      group.add(new RecordSlice());
    }
    incoming.copyTo(group.get(groupSize++));
  }

  private void push(int source) {
    heap[heapSize] = source;
    int i = heapSize++;
    while (i > 0) {
      int parent = (i - 1) >>> 1;
      if (!before(heap[i], heap[parent])) {
        break;
      }
      swap(i, parent);
      i = parent;
    }
  }

  private void siftDown(int i) {
    while (true) {
      int left = 2 * i + 1;
      if (left >= heapSize) {
        return;
      }
      int child = left + 1 < heapSize && before(heap[left + 1], heap[left]) ? left + 1 : left;
      if (!before(heap[child], heap[i])) {
        return;
      }
      swap(i, child);
      i = child;
    }
  }

  private boolean before(int a, int b) {
    RecordCursor x = sources[a];
    RecordCursor y = sources[b];
    if (x.hi != y.hi || x.lo != y.lo) {
      return HashOrderSort.less(x.hi, x.lo, y.hi, y.lo);
    }
    return a < b;
  }

  private void swap(int i, int j) {
    int t = heap[i];
    heap[i] = heap[j];
    heap[j] = t;
  }

  @Override
  public void close() throws IOException {
    Closeables.closeAll(sources);
  }
}
