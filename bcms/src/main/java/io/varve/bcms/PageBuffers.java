package io.varve.bcms;

import io.varve.core.format.HeapLimit;

/**
 * The per-page update buffers of a buffered sketch (the paper's sub-buffers): for each page, room
 * for {@code capacity} pending updates, each one {@code long} holding the item's in-page hash (low
 * 32 bits) and its weight (high 32 bits, unsigned). Eight bytes per pending update, whatever the
 * depth: the paper's buffers keep {@code depth} hashes per update. Not thread-safe.
 */
final class PageBuffers {
  /** The largest weight one entry can carry; heavier updates go to their page at once. */
  static final long MAX_ENTRY_WEIGHT = 0xFFFF_FFFFL;

  /** RAM per page beside its entries: its fill count. */
  static final int BYTES_PER_PAGE = Integer.BYTES;

  static final int BYTES_PER_ENTRY = Long.BYTES;

  private final long[] entries;
  private final int[] fill;
  private final int capacity;
  private long pending;

  private PageBuffers(int pageCount, int capacity) {
    this.capacity = capacity;
    this.entries = new long[Math.multiplyExact(pageCount, capacity)];
    this.fill = new int[capacity == 0 ? 0 : pageCount];
  }

  /**
   * Buffers for {@code pageCount} pages within {@code ramBudgetBytes}: the largest equal capacity per
   * page that fits, or none (capacity 0: every update goes to its page at once) if not even one entry
   * per page fits.
   *
   * @throws IllegalArgumentException if those buffers are larger than the heap's maximum
   */
  static PageBuffers withinBudget(long pageCount, long ramBudgetBytes) {
    if (pageCount > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(pageCount + " pages are more than a buffered sketch can index");
    }
    long perPage = ramBudgetBytes / pageCount - BYTES_PER_PAGE;
    long capacity = Math.max(0, Math.min(perPage / BYTES_PER_ENTRY, (Integer.MAX_VALUE - 8) / pageCount));
    long bytes = pageCount * capacity * BYTES_PER_ENTRY;
    HeapLimit.check(bytes, "a RAM budget of " + ramBudgetBytes + " bytes gives " + bytes + " bytes of update buffers,", "");
    return new PageBuffers((int) pageCount, (int) capacity);
  }

  int capacity() {
    return capacity;
  }

  /** Appends an update to its page's buffer; true if the buffer is now full. */
  boolean add(int page, int inPageHash, long weight) {
    int filled = fill[page];
    entries[page * capacity + filled] = (weight << 32) | (inPageHash & 0xFFFF_FFFFL);
    fill[page] = filled + 1;
    pending++;
    return filled + 1 == capacity;
  }

  int fill(int page) {
    return capacity == 0 ? 0 : fill[page];
  }

  int inPageHash(int page, int i) {
    return (int) entries[page * capacity + i];
  }

  long weight(int page, int i) {
    return entries[page * capacity + i] >>> 32;
  }

  void clear(int page) {
    pending -= fill[page];
    fill[page] = 0;
  }

  /** Updates waiting in all buffers. */
  long pending() {
    return pending;
  }

  long ramBytesUsed() {
    return (long) entries.length * BYTES_PER_ENTRY + (long) fill.length * BYTES_PER_PAGE;
  }
}
