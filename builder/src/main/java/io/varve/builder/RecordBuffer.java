package io.varve.builder;

import io.varve.core.store.RecordFormat;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Records held in memory between spills: their bytes ({@link RecordFormat}'s {@code Record}) in
 * an arena of pages, and their hashes and arena positions in parallel arrays that {@link #sort()}
 * puts into hash order.
 *
 * <p>The arena is partitioned by hash prefix: each partition (a range of hash order) appends to
 * its own pages. Reading the records back in hash order then sweeps the partitions one after the
 * other, each a few hundred KiB that stay in the cache while its records are gathered, instead of
 * jumping across the whole arena with a cache miss per record.
 *
 * <p>Its footprint ({@link #memoryBytes()}) counts pages, the arrays and the sort's scratch
 * arrays, and {@link #add} refuses a record that would take it over the budget. Pages are kept
 * across {@link #clear()} for reuse. Not thread-safe.
 */
final class RecordBuffer {
  private static final int MAX_PAGE_BYTES = 1 << 20;
  private static final int MIN_PAGE_BYTES = 4 << 10;
  /** The arena bytes a partition should hold: small enough to stay in a core's cache. */
  private static final long PARTITION_TARGET_BYTES = 256 << 10;
  private static final int MAX_PARTITION_BITS = 10;
  /** Longs per record: hash, position, and their sort scratch copies. */
  private static final int LONGS_PER_RECORD = 6;

  private final long budgetBytes;
  private int sharedPrefixBits;
  private final int partitionShift;
  private final int pageSize;
  /** Every page this buffer owns; record positions are {@code pageIndex << 32 | offset}. */
  private final List<byte[]> pages = new ArrayList<>();
  /** Indexes of standard-size pages owned but not in use since the last {@link #clear()} (a stack). */
  private int[] freePages = new int[16];
  private int freePageCount;
  /** Per partition: the page it appends to (-1: none) and the next free offset in it. */
  private final int[] partitionPage;
  private final int[] partitionPosition;
  /**
   * Per partition: the bytes its current page takes in all, {@code pageSize} for a standard page
   * and 0 when it has none or an oversized one (no other record goes there): tells whether a
   * record fits without reading the page.
   */
  private final int[] partitionLimit;
  private long pageBytes;
  private long[] hi = new long[0];
  private long[] lo = new long[0];
  private long[] position = new long[0];
  private long[] hiScratch = new long[0];
  private long[] loScratch = new long[0];
  private long[] positionScratch = new long[0];
  private int count;
  /** Bytes of the records held. */
  private long recordBytes;
  private boolean sorted;

  RecordBuffer(long budgetBytes) {
    this(budgetBytes, 0);
  }

  /**
   * A buffer for records whose hashes share their top {@code sharedPrefixBits} bits (one
   * hash-prefix partition being loaded): arena partitions and the sort use the bits after them.
   */
  RecordBuffer(long budgetBytes, int sharedPrefixBits) {
    this.budgetBytes = budgetBytes;
    this.sharedPrefixBits = Math.min(sharedPrefixBits, 48);
    int partitionBits = 0;
    while (partitionBits < MAX_PARTITION_BITS && budgetBytes >> (partitionBits + 1) >= PARTITION_TARGET_BYTES) {
      partitionBits++;
    }
    this.partitionShift = 64 - partitionBits;
    int partitions = 1 << partitionBits;
    // A partially filled page per partition wastes at most an eighth of the budget.
    this.pageSize = (int) Math.max(MIN_PAGE_BYTES, Math.min(MAX_PAGE_BYTES, budgetBytes / partitions / 8));
    this.partitionPage = new int[partitions];
    this.partitionPosition = new int[partitions];
    this.partitionLimit = new int[partitions];
    Arrays.fill(partitionPage, -1);
  }

  int size() {
    return count;
  }

  /** Bytes this buffer holds on the heap, sort scratch included. */
  long memoryBytes() {
    return pageBytes + (long) LONGS_PER_RECORD * 8 * hi.length;
  }

  /** The mean length of the records held (0 when empty). */
  long averageRecordBytes() {
    return count == 0 ? 0 : recordBytes / count;
  }

  /**
   * Appends a record unless that would exceed the budget of a non-empty buffer (a first record is
   * always taken, however large).
   *
   * @return whether the record was added
   */
  boolean add(long h, long l, byte[] key, int keyOffset, int keyLength, byte[] value, int valueOffset, int valueLength) {
    int length = RecordFormat.headerLength(keyLength, valueLength) + keyLength + valueLength;
    long at = reserve(h, l, length);
    if (at < 0) {
      return false;
    }
    byte[] page = pages.get((int) (at >>> 32));
    int p = RecordFormat.writeVarint(page, (int) at, keyLength);
    p = RecordFormat.writeVarint(page, p, valueLength);
    System.arraycopy(key, keyOffset, page, p, keyLength);
    System.arraycopy(value, valueOffset, page, p + keyLength, valueLength);
    return true;
  }

  /** {@link #add} of a record already encoded ({@link RecordFormat}'s {@code Record}) as {@code record}. */
  boolean addEncoded(long h, long l, RecordSlice record) {
    int length = record.length();
    long at = reserve(h, l, length);
    if (at < 0) {
      return false;
    }
    System.arraycopy(record.bytes, record.offset, pages.get((int) (at >>> 32)), (int) at, length);
    return true;
  }

  /**
   * Takes {@code length} arena bytes and a slot for a record of hash {@code h:l}; returns where
   * its bytes go ({@code pageIndex << 32 | offset}), or -1 when the budget refuses it.
   */
  private long reserve(long h, long l, int length) {
    int partition = partitionShift == 64 ? 0 : (int) ((h << sharedPrefixBits) >>> partitionShift);
    if (count > 0 && wouldExceedBudget(partition, length)) {
      return -1;
    }
    if (count == hi.length) {
      int capacity = (int) Math.min(Integer.MAX_VALUE - 8, Math.max(1024, hi.length + (hi.length >> 1)));
      if (capacity == count) {
        return -1;
      }
      hi = Arrays.copyOf(hi, capacity);
      lo = Arrays.copyOf(lo, capacity);
      position = Arrays.copyOf(position, capacity);
    }
    int pageIndex = pageFor(partition, length);
    int start = partitionPosition[partition];
    partitionPosition[partition] = start + length;
    long at = (long) pageIndex << 32 | start;
    hi[count] = h;
    lo[count] = l;
    position[count] = at;
    count++;
    recordBytes += length;
    sorted = false;
    return at;
  }

  private boolean wouldExceedBudget(int partition, int length) {
    long arrays = (long) LONGS_PER_RECORD * 8 * (count == hi.length ? hi.length + (hi.length >> 1) : hi.length);
    long pagesNeeded = pageBytes;
    if (!fitsInCurrentPage(partition, length)) {
      if (length > pageSize) {
        pagesNeeded += length;
      } else if (freePageCount == 0) {
        pagesNeeded += pageSize;
      }
    }
    return arrays + pagesNeeded > budgetBytes;
  }

  private boolean fitsInCurrentPage(int partition, int length) {
    return (long) partitionPosition[partition] + length <= partitionLimit[partition];
  }

  /** The page that takes the next {@code length} bytes of {@code partition}, at partitionPosition. */
  private int pageFor(int partition, int length) {
    if (fitsInCurrentPage(partition, length)) {
      return partitionPage[partition];
    }
    int page;
    if (length > pageSize) {
      // A record larger than a page gets a page of its own, dropped at the next clear().
      // A later record of this partition will not fit in it (it is not a standard page) and
      // takes a fresh standard page.
      pages.add(new byte[length]);
      pageBytes += length;
      partitionPage[partition] = pages.size() - 1;
      partitionPosition[partition] = 0;
      partitionLimit[partition] = 0;
      return pages.size() - 1;
    }
    if (freePageCount == 0) {
      pages.add(new byte[pageSize]);
      pageBytes += pageSize;
      page = pages.size() - 1;
    } else {
      page = freePages[--freePageCount];
    }
    partitionPage[partition] = page;
    partitionPosition[partition] = 0;
    partitionLimit[partition] = pageSize;
    return page;
  }

  /** Puts the records into hash order; records with equal hashes keep their order of addition. */
  void sort() {
    if (hiScratch.length < count) {
      hiScratch = new long[hi.length];
      loScratch = new long[hi.length];
      positionScratch = new long[hi.length];
    }
    if (HashOrderSort.sort(hi, lo, position, hiScratch, loScratch, positionScratch, count, sharedPrefixBits)) {
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

  /** Empties the buffer for records that share {@code sharedPrefixBits} leading hash bits. */
  void clear(int sharedPrefixBits) {
    clear();
    this.sharedPrefixBits = Math.min(sharedPrefixBits, 48);
  }

  /** Empties the buffer, keeping its standard pages for reuse. */
  void clear() {
    List<byte[]> standard = new ArrayList<>();
    for (byte[] page : pages) {
      if (page.length == pageSize) {
        standard.add(page);
      }
    }
    pages.clear();
    pages.addAll(standard);
    pageBytes = (long) pages.size() * pageSize;
    if (freePages.length < pages.size()) {
      freePages = new int[pages.size()];
    }
    freePageCount = 0;
    for (int i = pages.size() - 1; i >= 0; i--) {
      freePages[freePageCount++] = i;
    }
    Arrays.fill(partitionPage, -1);
    Arrays.fill(partitionLimit, 0);
    count = 0;
    recordBytes = 0;
    sorted = false;
  }

  /** Releases all memory. */
  void release() {
    clear();
    pages.clear();
    freePageCount = 0;
    pageBytes = 0;
    hi = lo = position = hiScratch = loScratch = positionScratch = new long[0];
  }
}
