package io.varve.builder;

import io.varve.core.store.RecordFormat;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Records held in memory between spills: their bytes ({@link RecordFormat}'s {@code Record}) in
 * an arena of pages (up to 1 MiB each), and their hashes and arena positions in parallel arrays that {@link
 * #sort()} puts into hash order. Its footprint ({@link #memoryBytes()}) counts pages, the arrays and
 * the sort's scratch arrays, and {@link #add} refuses a record that would take it over the budget.
 * Pages are kept across {@link #clear()} for reuse. Not thread-safe.
 */
final class RecordBuffer {
  private static final int MAX_PAGE_BYTES = 1 << 20;
  /** Longs per record: hash, position, and their sort scratch copies. */
  private static final int LONGS_PER_RECORD = 6;

  private final long budgetBytes;
  private final List<byte[]> pages = new ArrayList<>();
  private int pageIndex = -1;
  private int pagePosition = Integer.MAX_VALUE / 2;
  private long pageBytes;
  private long[] hi = new long[0];
  private long[] lo = new long[0];
  private long[] position = new long[0];
  private long[] hiScratch = new long[0];
  private long[] loScratch = new long[0];
  private long[] positionScratch = new long[0];
  private int count;
  private boolean sorted;

  private final int pageSize;

  RecordBuffer(long budgetBytes) {
    this.budgetBytes = budgetBytes;
    // Small budgets get small pages, so that a page is never a large part of the budget.
    this.pageSize = (int) Math.max(4096, Math.min(MAX_PAGE_BYTES, budgetBytes / 16));
  }

  int size() {
    return count;
  }

  /** Bytes this buffer holds on the heap, sort scratch included. */
  long memoryBytes() {
    return pageBytes + (long) LONGS_PER_RECORD * 8 * hi.length;
  }

  /**
   * Appends a record unless that would exceed the budget of a non-empty buffer (a first record is
   * always taken, however large).
   *
   * @return whether the record was added
   */
  boolean add(long h, long l, byte[] key, int keyOffset, int keyLength, byte[] value, int valueOffset, int valueLength) {
    int length = RecordFormat.headerLength(keyLength, valueLength) + keyLength + valueLength;
    if (count > 0 && wouldExceedBudget(length)) {
      return false;
    }
    if (count == hi.length) {
      int capacity = (int) Math.min(Integer.MAX_VALUE - 8, Math.max(1024, hi.length + (hi.length >> 1)));
      if (capacity == count) {
        return false;
      }
      hi = Arrays.copyOf(hi, capacity);
      lo = Arrays.copyOf(lo, capacity);
      position = Arrays.copyOf(position, capacity);
    }
    byte[] page = pageFor(length);
    int start = pagePosition;
    int p = RecordFormat.writeVarint(page, start, keyLength);
    p = RecordFormat.writeVarint(page, p, valueLength);
    System.arraycopy(key, keyOffset, page, p, keyLength);
    System.arraycopy(value, valueOffset, page, p + keyLength, valueLength);
    pagePosition = p + keyLength + valueLength;
    hi[count] = h;
    lo[count] = l;
    position[count] = (long) pageIndex << 32 | start;
    count++;
    sorted = false;
    return true;
  }

  private boolean wouldExceedBudget(int length) {
    long arrays = (long) LONGS_PER_RECORD * 8 * (count == hi.length ? hi.length + (hi.length >> 1) : hi.length);
    long pagesNeeded = pageBytes;
    if (!fitsInCurrentPage(length)) {
      if (length > pageSize) {
        pagesNeeded += length;
      } else if (pageIndex + 1 == pages.size()) {
        pagesNeeded += pageSize;
      }
    }
    return arrays + pagesNeeded > budgetBytes;
  }

  private byte[] pageFor(int length) {
    if (fitsInCurrentPage(length)) {
      return pages.get(pageIndex);
    }
    pageIndex++;
    if (length > pageSize) {
      // A record larger than a page gets a page of its own, dropped at the next clear().
      pages.add(pageIndex, new byte[length]);
      pageBytes += length;
    } else if (pageIndex == pages.size()) {
      pages.add(new byte[pageSize]);
      pageBytes += pageSize;
    }
    pagePosition = 0;
    return pages.get(pageIndex);
  }

  private boolean fitsInCurrentPage(int length) {
    return pageIndex >= 0 && (long) pagePosition + length <= pageSize && pages.get(pageIndex).length == pageSize;
  }

  /** Puts the records into hash order; records with equal hashes keep their order of addition. */
  void sort() {
    if (hiScratch.length < count) {
      hiScratch = new long[hi.length];
      loScratch = new long[hi.length];
      positionScratch = new long[hi.length];
    }
    if (HashOrderSort.sort(hi, lo, position, hiScratch, loScratch, positionScratch, count)) {
      System.arraycopy(hiScratch, 0, hi, 0, count);
      System.arraycopy(loScratch, 0, lo, 0, count);
      System.arraycopy(positionScratch, 0, position, 0, count);
    }
    sorted = true;
  }

  boolean isSorted() {
    return sorted || count < 2;
  }

  long hi(int i) {
    return hi[i];
  }

  long lo(int i) {
    return lo[i];
  }

  /** Points {@code slice} at record {@code i}. */
  RecordSlice record(int i, RecordSlice slice) {
    long p = position[i];
    return slice.decode(pages.get((int) (p >>> 32)), (int) p);
  }

  /** Empties the buffer, keeping its standard pages for reuse. */
  void clear() {
    pages.removeIf(page -> page.length != pageSize);
    pageBytes = (long) pages.size() * pageSize;
    pageIndex = -1;
    pagePosition = Integer.MAX_VALUE / 2;
    count = 0;
    sorted = false;
  }

  /** Releases all memory. */
  void release() {
    clear();
    pages.clear();
    pageBytes = 0;
    hi = lo = position = hiScratch = loScratch = positionScratch = new long[0];
  }
}
