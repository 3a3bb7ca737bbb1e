package io.varve.bcms;

import io.varve.core.files.InterruptSafeFile;
import io.varve.core.format.CorruptStoreException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * The Buffered Count-Min Sketch (Eydi et al., ESA 2018): a count-min sketch on a file larger than
 * RAM that reads one page per estimate and, per update, a small fraction of a page.
 *
 * <ul>
 *   <li><b>Pages, column-first.</b> The counters are cut into pages of {@code pageSize} bytes
 *       (default 4 KiB); a page holds {@code columnsPerPage} columns of {@code depth} counters.
 *   <li><b>Hash localization.</b> One hash picks an item's page, the row hashes pick columns inside
 *       it, so all of an item's counters are in one page.
 *   <li><b>Buffering.</b> An update waits in its page's buffer in RAM (8 bytes); when that buffer is
 *       full, the page is read once, all its pending updates applied, and written once. The buffers
 *       share {@code ramBudgetBytes} equally: with {@code k} pages, a page buffers about
 *       {@code ramBudget / (8 k)} updates, so an update costs about {@code 8 k / ramBudget} page
 *       reads and writes.
 *   <li><b>Estimates</b> read the item's page; if updates for that page are pending they are applied
 *       first and the page written back, so an estimate always counts every update before it.
 *   <li><b>Flush and close</b> apply the pending updates page by page in file order and record
 *       the file's checksum, kept current page by page: no pass over the whole file.
 * </ul>
 *
 * <pre>{@code
 * SketchParameters parameters = SketchParameters.forError(1e-9, 0.01);  // 2.7e9 columns, 5 rows: 109 GB
 * try (BufferedCountMinSketch sketch =
 *     BufferedCountMinSketch.create(Path.of("/ssd/pairs.cms"), parameters, 1L << 30)) {  // 1 GiB of RAM
 *   for (long pair : stream) {
 *     sketch.update(pair);
 *   }
 *   long count = sketch.estimate(somePair);
 * }   // close: applies all buffers, records the checksum; BufferedCountMinSketch.open reads it again
 * }</pre>
 *
 * The estimate keeps the count-min guarantee up to lower-order terms: with {@code n} updates it
 * exceeds the truth by more than {@code epsilon n (1 + o(1))} with probability at most {@code delta
 * + o(1)} (the paper's Theorem 1). Conservative update ({@link SketchParameters#withConservativeUpdate})
 * is applied when a buffer is flushed, in update order, at no extra I/O. Sketches may pass 2 GiB.
 *
 * <p>Thread-safe. Estimates of pages without pending updates run concurrently (each thread reads into
 * a page image of its own), so several threads keep several page reads in flight; updates, flushes,
 * merges, estimates of pages with pending updates, and close run one at a time. After {@link #close}
 * every call throws {@link IllegalStateException}, but those that describe the sketch: {@code
 * parameters}, {@code pageCount}, {@code sizeBytes} and {@code path}.
 */
public final class BufferedCountMinSketch extends HashedSketch {
  private static final Object MERGE_LOCK = new Object();

  private final SketchParameters parameters;
  private final SketchFileHandle file;
  private final InterruptSafeFile channel;
  private final long bodyOffset;
  private final int pageSize;
  private final long pageCount;
  private final int columnsPerPage;
  private final PageBuffers buffers;
  private final CounterPage page;
  private final CounterPage otherPage;
  private final PagesChecksum bodyChecksum;
  private long totalWeight;
  /** Estimates of pages without pending updates share the read lock; everything else takes the write lock. */
  private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
  private final ThreadLocal<CounterPage> readerPages;
  private final LongAdder pageReads = new LongAdder();
  private long pageWrites;
  private volatile boolean closed;

  private BufferedCountMinSketch(SketchFileHandle file, long ramBudgetBytes) {
    super(file.header().parameters());
    SketchFile.Header header = file.header();
    this.parameters = header.parameters();
    this.file = file;
    this.channel = file.channel();
    this.bodyOffset = file.bodyOffset();
    this.pageSize = parameters.pageSize();
    this.pageCount = header.pageCount();
    this.columnsPerPage = header.columnsPerPage();
    this.buffers = PageBuffers.withinBudget(pageCount, Math.max(0, ramBudgetBytes - 2L * pageSize));
    this.page = new CounterPage(parameters, columnsPerPage);
    this.otherPage = new CounterPage(parameters, columnsPerPage);
    this.readerPages = ThreadLocal.withInitial(() -> new CounterPage(parameters, columnsPerPage));
    this.totalWeight = header.totalWeight();
    this.bodyChecksum = new PagesChecksum(header);
  }

  /**
   * Creates a sketch of zero counters in the new file {@code path}. The file holds
   * {@code ceil(width / columnsPerPage)} pages: the width is rounded up to whole pages.
   *
   * @param ramBudgetBytes RAM for the update buffers and two page images; below about 12 bytes per
   *     page nothing is buffered and every update reads and writes its page
   * @throws IllegalStateException if {@code path} exists
   * @throws IllegalArgumentException if a page cannot hold one column of {@code depth} counters, or
   *     the update buffers the budget gives are larger than the heap's maximum ({@link
   *     Runtime#maxMemory}); nothing is created
   */
  public static BufferedCountMinSketch create(Path path, SketchParameters parameters, long ramBudgetBytes) {
    checkBudget(ramBudgetBytes);
    SketchFile.Header.forNewSketch(SketchFile.Layout.PAGES, parameters); // rejects bad page layouts before any file exists
    SketchFileHandle file = SketchFileHandle.create(path, SketchFile.Layout.PAGES, parameters);
    try {
      return new BufferedCountMinSketch(file, ramBudgetBytes);
    } catch (RuntimeException | OutOfMemoryError e) {
      file.discardNewFile(e);
      throw e;
    }
  }

  /**
   * Opens the sketch in {@code path}, written by {@link #create} and closed, after checking its
   * header and the checksum of all its pages (one sequential read of the file).
   *
   * @throws CorruptStoreException if the file is damaged, truncated, foreign, a plain sketch, of an
   *     unsupported version, or was not closed cleanly
   * @throws IllegalStateException if a sketch in this process or another has the file open
   * @throws java.io.UncheckedIOException if the file cannot be read; its cause is a {@link
   *     SketchCommitUnreadableException} when a commit slot could not be read (retry the open)
   */
  public static BufferedCountMinSketch open(Path path, long ramBudgetBytes) {
    checkBudget(ramBudgetBytes);
    return withFile(SketchFileHandle.open(path, SketchFile.Layout.PAGES, true), ramBudgetBytes);
  }

  /** Opens like {@link #open} but checks only the header and the file's length, not the pages' checksum. */
  public static BufferedCountMinSketch openUnverified(Path path, long ramBudgetBytes) {
    checkBudget(ramBudgetBytes);
    return withFile(SketchFileHandle.open(path, SketchFile.Layout.PAGES, false), ramBudgetBytes);
  }

  /**
   * Opens the sketch in {@code path} like {@link #open}, and also when its writer stopped before
   * {@code close()} or {@code flush()} (a kill, a crash, a power loss), which {@link #open} refuses.
   * Counters only grow (a page is written whole from an image read from the file), so each is at
   * least its value at the file's last flush: estimates are at least the counts of the updates
   * before that flush, and updates after it may be counted in part. {@link #totalWeight()} is that
   * flush's. Such a file has no checksum to check its pages against: its checksum is computed anew
   * and the file marked closed (logged, WARNING).
   *
   * @throws CorruptStoreException if the file is damaged (as far as its header and, for a cleanly
   *     closed file, its checksum tell), truncated, foreign or a plain sketch
   * @throws IllegalStateException if a sketch in this process or another has the file open
   * @throws java.io.UncheckedIOException if the file cannot be read; its cause is a {@link
   *     SketchCommitUnreadableException} when a commit slot could not be read (retry the open)
   */
  public static BufferedCountMinSketch openAfterCrash(Path path, long ramBudgetBytes) {
    checkBudget(ramBudgetBytes);
    return withFile(SketchFileHandle.open(path, SketchFile.Layout.PAGES, true, SketchFileHandle.Unclean.RECOVER), ramBudgetBytes);
  }

  private static void checkBudget(long ramBudgetBytes) {
    if (ramBudgetBytes < 0) {
      throw new IllegalArgumentException("RAM budget must not be negative: " + ramBudgetBytes);
    }
  }

  private static BufferedCountMinSketch withFile(SketchFileHandle file, long ramBudgetBytes) {
    try {
      return new BufferedCountMinSketch(file, ramBudgetBytes);
    } catch (RuntimeException | OutOfMemoryError e) {
      file.closeQuietly();
      throw e;
    }
  }

  @Override
  void updateHash(long itemHash, long weight) {
    lock.writeLock().lock();
    try {
      updateLocked(itemHash, weight);
    } finally {
      lock.writeLock().unlock();
    }
  }

  private void updateLocked(long itemHash, long weight) {
    ensureOpen();
    Weights.check(weight);
    if (weight == 0) {
      return;
    }
    file.beforeFirstChange();
    int pageIndex = (int) ItemHash.page(itemHash, pageCount);
    int inPageHash = ItemHash.inPageHash(itemHash);
    boolean direct = buffers.capacity() == 0 || weight > PageBuffers.MAX_ENTRY_WEIGHT;
    if (!direct && buffers.fill(pageIndex) == buffers.capacity()) {
      // A flush of this page failed (its read or write threw) and left its buffer full: an add
      // would write past it, over the next page's pending updates. Flush again first; if that
      // fails too, this update is refused with its error, before it is counted.
      flushPage(pageIndex);
    }
    totalWeight = Weights.add(totalWeight, weight, Long.MAX_VALUE);
    if (direct) {
      readPageForChange(pageIndex);
      applyPending(pageIndex);
      page.apply(inPageHash, weight);
      writePage(pageIndex);
      clearPending(pageIndex);
    } else if (buffers.add(pageIndex, inPageHash, weight)) {
      flushPage(pageIndex);
    }
  }

  @Override
  long estimateHash(long itemHash) {
    int pageIndex = (int) ItemHash.page(itemHash, pageCount);
    int inPageHash = ItemHash.inPageHash(itemHash);
    lock.readLock().lock();
    try {
      ensureOpen();
      if (buffers.fill(pageIndex) == 0) {
        CounterPage readerPage = readerPages.get();
        readPage(pageIndex, readerPage);
        return readerPage.estimate(inPageHash);
      }
    } finally {
      lock.readLock().unlock();
    }
    lock.writeLock().lock();
    try {
      ensureOpen();
      if (buffers.fill(pageIndex) == 0) {
        readPage(pageIndex);
      } else if (file.writeFailed()) {
        readPage(pageIndex); // counts the page's pending updates in memory: nothing more is written
        applyPending(pageIndex);
      } else {
        flushPage(pageIndex);
      }
      return page.estimate(inPageHash);
    } finally {
      lock.writeLock().unlock();
    }
  }

  /**
   * Reads the page, applies its buffered updates, writes it back; the buffer is emptied only once
   * the page is written, so that a failed write leaves its updates counted by estimates.
   */
  private void flushPage(int pageIndex) {
    readPageForChange(pageIndex);
    applyPending(pageIndex);
    writePage(pageIndex);
    clearPending(pageIndex);
  }

  private void applyPending(int pageIndex) {
    int fill = buffers.fill(pageIndex);
    for (int i = 0; i < fill; i++) {
      page.apply(buffers.inPageHash(pageIndex, i), buffers.weight(pageIndex, i));
    }
  }

  private void clearPending(int pageIndex) {
    if (buffers.fill(pageIndex) > 0) {
      buffers.clear(pageIndex);
    }
  }

  /**
   * Adds every counter of {@code other} into this sketch, page by page in file order (one
   * sequential pass over both files): afterwards this sketch estimates the union of both streams.
   * Both sketches' pending updates are applied first. Both must have equal parameters, seed included.
   *
   * @throws IllegalArgumentException if the parameters differ
   */
  public void merge(BufferedCountMinSketch other) {
    if (other == this) {
      throw new IllegalArgumentException("cannot merge a sketch into itself");
    }
    // Merges take the global merge lock first, so two threads merging a into b and b into a cannot
    // each hold one sketch and wait for the other; no other method ever waits holding a lock.
    synchronized (MERGE_LOCK) {
      mergeLocked(other);
    }
  }

  private void mergeLocked(BufferedCountMinSketch other) {
    lock.writeLock().lock();
    try {
      ensureOpen();
      if (!parameters.equals(other.parameters)) {
        throw new IllegalArgumentException("cannot merge sketches with different parameters: " + parameters
            + " and " + other.parameters);
      }
      file.beforeFirstChange();
      applyAllPendingLocked();
      other.lock.writeLock().lock();
      try {
        other.ensureOpen();
        other.file.checkWritable();
        other.applyAllPendingLocked();
        for (int p = 0; p < pageCount; p++) {
          other.readPage(p, other.otherPage);
          readPageForChange(p);
          page.addAll(other.otherPage);
          writePage(p);
        }
        totalWeight = Weights.add(totalWeight, other.totalWeight, Long.MAX_VALUE);
      } finally {
        other.lock.writeLock().unlock();
      }
    } finally {
      lock.writeLock().unlock();
    }
  }

  /**
   * Applies every buffered update to its page, then makes the file complete and durable: forces the
   * pages to disk and writes the header with the total weight and the pages' checksum (kept current
   * as pages are written, so this reads only pages with pending updates).
   */
  @Override
  public void flush() {
    lock.writeLock().lock();
    try {
      ensureOpen();
      file.checkWritable();
      applyAllPendingLocked();
      file.finish(totalWeight, bodyChecksum.value());
    } finally {
      lock.writeLock().unlock();
    }
  }

  private void applyAllPendingLocked() {
    if (buffers.pending() == 0) {
      return;
    }
    for (int p = 0; p < pageCount; p++) {
      if (buffers.fill(p) > 0) {
        flushPage(p);
      }
    }
  }

  /** The sum of all update weights (saturating at {@code Long.MAX_VALUE}). */
  @Override
  public long totalWeight() {
    lock.readLock().lock();
    try {
      ensureOpen();
      return totalWeight;
    } finally {
      lock.readLock().unlock();
    }
  }

  /** Updates buffered in RAM, not yet in their pages. */
  public long pendingUpdates() {
    lock.readLock().lock();
    try {
      ensureOpen();
      return buffers.pending();
    } finally {
      lock.readLock().unlock();
    }
  }

  /** Updates each page's buffer holds before the page is read and written (0: no buffering). */
  public int bufferCapacityPerPage() {
    return buffers.capacity();
  }

  /** Page reads since this sketch was created or opened. */
  public long pageReads() {
    ensureOpen();
    return pageReads.sum();
  }

  /** Page writes since this sketch was created or opened. */
  public long pageWrites() {
    lock.readLock().lock();
    try {
      ensureOpen();
      return pageWrites;
    } finally {
      lock.readLock().unlock();
    }
  }

  /** The parameters this sketch was created with. */
  @Override
  public SketchParameters parameters() {
    return parameters;
  }

  /** Pages in the file. */
  public long pageCount() {
    return pageCount;
  }

  /** Columns per page: the width is {@code pageCount() * columnsPerPage()}. */
  public int columnsPerPage() {
    return columnsPerPage;
  }

  /** Bytes of all pages (the file is this plus its header). */
  @Override
  public long sizeBytes() {
    return pageCount * pageSize;
  }

  /** RAM this sketch holds: the update buffers and two page images (plus one page per thread that has estimated). */
  @Override
  public long ramBytesUsed() {
    ensureOpen();
    return buffers.ramBytesUsed() + 2L * pageSize;
  }

  /** The sketch's file. */
  public Path path() {
    return file.path();
  }

  /**
   * Applies all buffered updates and finishes the file (see {@link #flush}), then closes it.
   * Idempotent.
   *
   * @throws UncheckedIOException if the file cannot be written; the file is closed regardless and
   *     will refuse to open, as its counts are incomplete
   */
  @Override
  public void close() {
    lock.writeLock().lock();
    try {
      if (closed) {
        return;
      }
      flushThenRelease(() -> {
        closed = true;
        file.close();
      });
    } finally {
      lock.writeLock().unlock();
    }
  }

  private void readPage(int pageIndex) {
    readPage(pageIndex, page);
  }

  private void readPage(int pageIndex, CounterPage into) {
    ByteBuffer bytes = into.bytes().clear();
    long position = bodyOffset + (long) pageIndex * pageSize;
    try {
      while (bytes.hasRemaining()) {
        if (channel.read(bytes, position + bytes.position()) < 0) {
          throw new CorruptStoreException("sketch file " + file.path() + " ended inside page " + pageIndex);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read page " + pageIndex + " of sketch file " + file.path(), e);
    }
    pageReads.increment();
  }

  /** Reads the page about to be changed and remembers its share of the body checksum. */
  private void readPageForChange(int pageIndex) {
    readPage(pageIndex, page);
    bodyChecksum.loaded(pageIndex, page.bytes());
  }

  /**
   * Writes the page loaded by {@link #readPageForChange} back, replacing its share of the body
   * checksum by the new one's once written. A failed write makes the sketch take no more changes
   * (see {@link SketchFileHandle#checkWritable}): what the page holds on the device is unknown.
   */
  private void writePage(int pageIndex) {
    ByteBuffer bytes = page.bytes();
    int written = bodyChecksum.share(pageIndex, bytes);
    long position = bodyOffset + (long) pageIndex * pageSize;
    try {
      while (bytes.hasRemaining()) {
        channel.write(bytes, position + bytes.position());
      }
    } catch (IOException e) {
      throw file.writeFailed("cannot write page " + pageIndex + " of sketch file " + file.path(), e);
    }
    bodyChecksum.written(written);
    pageWrites++;
  }

  private void ensureOpen() {
    if (closed) {
      throw new IllegalStateException("buffered count-min sketch " + file.path() + " is closed");
    }
  }
}
