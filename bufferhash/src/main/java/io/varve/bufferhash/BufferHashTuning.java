package io.varve.bufferhash;

import java.util.Locale;

/**
 * Sizes a BufferHash from its budgets, by the cost analysis of BufferHash §6.4.
 *
 * <p>With {@code F} bytes of log and {@code s} bytes of RAM per buffered entry (its encoded bytes
 * and its share of the cuckoo slots), lookups waste the fewest reads when a super table keeps
 * about {@code k = 8 s (ln 2)^2} incarnations (167 for 30-byte entries, which take 43.5 bytes
 * buffered; rounded to fill whole 64-bit words of the bit-sliced filters with a few to spare:
 * 186), so that the buffers together hold {@code F / k} bytes of the log's entries, and the rest
 * of the RAM goes to the Bloom filters. A lookup of an absent key then reads about {@code k *
 * 0.6185^b} units in vain, with {@code b} filter bits per key. The number of super tables sets each buffer's size,
 * which does not change lookup cost: 128 KiB per buffer by default, as the paper found best.
 *
 * <p>Immutable and thread-safe.
 */
public final class BufferHashTuning {
  /** Bytes of a buffer by default (the paper's choice: one flash block). */
  public static final int DEFAULT_BUFFER_BYTES = 128 * 1024;

  /**
   * The largest entry, key and value with their two lengths (up to five bytes each): an
   * incarnation of it alone is read into one array, so it takes at most about 2 GiB.
   */
  public static final int MAX_ENTRY_BYTES =
      IncarnationCodec.MAX_PAGES * LogFormat.PAGE_BYTES - LogFormat.HEADER_BYTES - LogFormat.UNIT_HEADER_BYTES - LogFormat.UNIT_FOOTER_BYTES;

  /** The largest log: {@code 2^31 - 1} pages of 4 KiB (about 8 TiB), as pages are numbered by {@code int}. */
  public static final long MAX_LOG_BYTES = (long) Integer.MAX_VALUE * LogFormat.PAGE_BYTES;

  private static final double LN2_SQUARED = Math.log(2) * Math.log(2);
  /** Bytes of RAM per buffered entry beyond its encoded bytes: cuckoo slots of 6 bytes, up to twice as many as planned (powers of two). */
  private static final double SLOT_BYTES_PER_ENTRY = 6 * WriteBuffer.SLOTS_PER_ENTRY * 1.5;

  private final long logBytes;
  private final long memoryBytes;
  private final int entryBytes;
  private final int superTables;
  private final int bufferBytes;
  private final int bufferEntries;
  private final int bitsPerFilter;
  private final int hashes;
  private final int incarnationsPerTable;
  private final int filterColumns;
  private final double bloomBitsPerKey;
  private final long capacityEntries;

  private BufferHashTuning(long logBytes, long memoryBytes, int entryBytes, int superTables, int incarnationPages, double bloomBytes) {
    this.logBytes = logBytes;
    this.memoryBytes = memoryBytes;
    this.entryBytes = entryBytes;
    this.superTables = superTables;
    int encoded = encodedBytes(entryBytes);
    this.bufferEntries = entriesIn(incarnationPages, encoded);
    this.bufferBytes = bufferEntries * encoded;
    long logPages = logBytes / LogFormat.PAGE_BYTES;
    this.capacityEntries = logPages / incarnationPages * bufferEntries;
    this.incarnationsPerTable = (int) Math.max(1, Math.min(1 << 20, logPages / ((long) superTables * incarnationPages)));
    this.filterColumns = filterColumns(incarnationsPerTable);
    long bits = (long) (bloomBytes * 8 / ((double) superTables * filterColumns));
    this.bitsPerFilter = (int) Math.max(64, Math.min(1 << 28, bits));
    this.bloomBitsPerKey = bitsPerFilter / (double) bufferEntries;
    this.hashes = (int) Math.max(1, Math.min(16, Math.round(bloomBitsPerKey * Math.log(2))));
  }

  /**
   * Entries of {@code encoded} bytes that fill an incarnation of {@code pages} pages: units do not
   * split entries, and page 0 also holds the incarnation's header, so a buffer of this many entries
   * wastes no page of the log.
   */
  private static int entriesIn(int pages, int encoded) {
    int unitBytes = LogFormat.PAGE_BYTES - LogFormat.UNIT_HEADER_BYTES - LogFormat.UNIT_FOOTER_BYTES;
    int perPage = unitBytes / encoded;
    if (perPage == 0) {
      // Each entry fills a run of pages alone.
      return Math.max(1, pages / pagesOfOneEntry(encoded));
    }
    return (unitBytes - LogFormat.HEADER_BYTES) / encoded + (pages - 1) * perPage;
  }

  /** Pages an incarnation of one entry of {@code encoded} bytes takes. */
  private static int pagesOfOneEntry(int encoded) {
    long bytes = (long) LogFormat.HEADER_BYTES + LogFormat.UNIT_HEADER_BYTES + encoded + LogFormat.UNIT_FOOTER_BYTES;
    return (int) Math.min(Integer.MAX_VALUE, (bytes + LogFormat.PAGE_BYTES - 1) / LogFormat.PAGE_BYTES);
  }

  /** Whole pages of about {@code bufferBytes}, and enough for one entry. */
  private static int incarnationPages(double bufferBytes, int encoded) {
    return (int) Math.max(pagesOfOneEntry(encoded), Math.ceil(bufferBytes / LogFormat.PAGE_BYTES - 1e-9));
  }

  /** Columns of the bit-sliced filters: the incarnations a table keeps, and a few to spare, in whole words. */
  private static int filterColumns(int incarnations) {
    return (int) Math.min(1 << 20, ((long) incarnations + spare(incarnations) + 63) / 64 * 64);
  }

  /** Incarnations a table may hold beyond the average: tables fill at nearly equal rates. */
  private static int spare(int incarnations) {
    return Math.max(2, incarnations / 32);
  }

  /**
   * Incarnations per table near {@code optimal} that fill whole 64-bit words of the filters with
   * their spare: the lookup cost is flat near the optimum, a word's unused columns are not.
   */
  private static double snapToWords(double optimal) {
    long words = Math.max(1, Math.round(optimal / 64));
    long incarnations = 64 * words;
    while (incarnations > 2 && incarnations + spare((int) incarnations) > 64 * words) {
      incarnations--;
    }
    return Math.abs(incarnations - optimal) < optimal / 2 ? incarnations : optimal;
  }

  /**
   * The tuning for a log of {@code logBytes}, {@code memoryBytes} of RAM in all, and entries of
   * about {@code entryBytes} (key plus value).
   *
   * @throws IllegalArgumentException naming the knob to change when the budgets cannot work
   */
  public static BufferHashTuning forBudgets(long logBytes, long memoryBytes, int entryBytes) {
    return forBudgets(logBytes, memoryBytes, entryBytes, 0);
  }

  /**
   * As {@link #forBudgets(long, long, int)} with buffers of {@code bufferBytes} (0: the paper's
   * optimum, at most {@link #DEFAULT_BUFFER_BYTES} each).
   */
  public static BufferHashTuning forBudgets(long logBytes, long memoryBytes, int entryBytes, int bufferBytes) {
    return forBudgets(logBytes, memoryBytes, entryBytes, bufferBytes, 0);
  }

  /**
   * As {@link #forBudgets(long, long, int, int)} with {@code superTables} partitions (0: as many
   * as the buffers' optimal total RAM divided by a buffer's size).
   */
  public static BufferHashTuning forBudgets(long logBytes, long memoryBytes, int entryBytes, int bufferBytes, int superTables) {
    check(superTables >= 0, "superTables must not be negative");
    checkLogBytes(logBytes);
    check(entryBytes >= 1, "entryBytes must be positive, was " + entryBytes);
    check(entryBytes <= MAX_ENTRY_BYTES - 2, "entryBytes must be at most " + (MAX_ENTRY_BYTES - 2) + ", was " + entryBytes);
    check(bufferBytes >= 0, "bufferBytes must not be negative");
    int encoded = encodedBytes(entryBytes);
    long logPages = logBytes / LogFormat.PAGE_BYTES;
    int incarnations = (int) Math.round(snapToWords(8.0 * (encoded + SLOT_BYTES_PER_ENTRY) * LN2_SQUARED));
    double optimalBufferTotal = logBytes / (double) incarnations;
    int tables;
    int pages;
    if (bufferBytes > 0) {
      tables = superTables > 0 ? superTables : (int) Math.max(1, Math.min(1 << 24, Math.round(optimalBufferTotal / bufferBytes)));
      pages = incarnationPages(bufferBytes, encoded);
    } else {
      double planned = Math.max(LogFormat.PAGE_BYTES, Math.min(DEFAULT_BUFFER_BYTES, optimalBufferTotal));
      // Rounded up, so that buffers sized to keep the planned incarnations per table stay within
      // the default size.
      tables = superTables > 0 ? superTables : (int) Math.max(1, Math.min(1 << 24, Math.ceil(optimalBufferTotal / planned - 1e-9)));
      // Each table then keeps at most the planned incarnations (pages rounded up: one incarnation
      // more than planned could take a filter word more), which fill whole words of its filters.
      pages = incarnationPages(Math.min(DEFAULT_BUFFER_BYTES, logBytes / ((double) tables * incarnations)), encoded);
    }
    check(
        (long) tables * pages * 2 <= logPages,
        "a log of " + logBytes + " bytes cannot hold two incarnations of " + pages * LogFormat.PAGE_BYTES + " bytes for each of " + tables
            + " super tables: raise logBytes or lower bufferBytes or superTables");
    int entriesPerBuffer = entriesIn(pages, encoded);
    long entries = logPages / pages * entriesPerBuffer;
    double bufferRam = (double) tables * entriesPerBuffer * (encoded + SLOT_BYTES_PER_ENTRY);
    double fenceRam = 4.0 * logPages + 96.0 * logPages / pages;
    double fixedRam = 4096 + 256.0 * tables;
    double bloomBytes = memoryBytes - bufferRam - fenceRam - fixedRam;
    long columns = (long) tables * filterColumns((int) Math.max(1, Math.min(1 << 20, logPages / ((long) tables * pages))));
    // Bits per key as a filter holds them: a table's filters have more columns than it keeps incarnations.
    double bitsPerKey = bloomBytes * 8 / columns / entriesPerBuffer;
    if (bitsPerKey < 2) {
      double needed = bufferRam + fenceRam + fixedRam + 10.0 * columns * entriesPerBuffer / 8;
      throw new IllegalArgumentException(
          String.format(
              Locale.ROOT,
              "memoryBytes %,d is too little for a log of %,d bytes of %d-byte entries (%,d entries): buffers take %,.0f bytes, "
                  + "leaving %.1f Bloom filter bits per key; raise memoryBytes to at least %,.0f (10 bits per key) or lower logBytes",
              memoryBytes, logBytes, entryBytes, entries, bufferRam, Math.max(0, bitsPerKey), needed));
    }
    double cappedBloomBytes = Math.min(bloomBytes, 40.0 / bitsPerKey * bloomBytes);
    return new BufferHashTuning(logBytes, memoryBytes, entryBytes, tables, pages, cappedBloomBytes);
  }

  /**
   * The RAM a log of {@code logBytes} of {@code entryBytes}-byte entries needs so that a lookup of
   * an absent key reads at most {@code wastedReads} units on average (BufferHash §6.4, "total
   * memory size").
   */
  public static long memoryFor(long logBytes, int entryBytes, double wastedReads) {
    check(wastedReads > 0, "wastedReads must be positive");
    checkLogBytes(logBytes);
    long low = 1 << 16;
    long high = Math.max(low, logBytes);
    BufferHashTuning most = forBudgetsOrNull(logBytes, high, entryBytes);
    if (most == null || most.expectedWastedReads() > wastedReads) {
      throw new IllegalArgumentException("no RAM budget up to the log's size reaches " + wastedReads + " wasted reads: raise logBytes or the target");
    }
    while (high - low > 4096) {
      long mid = (low + high) >>> 1;
      BufferHashTuning tuning = forBudgetsOrNull(logBytes, mid, entryBytes);
      if (tuning != null && tuning.expectedWastedReads() <= wastedReads) {
        high = mid;
      } else {
        low = mid;
      }
    }
    return high;
  }

  private static BufferHashTuning forBudgetsOrNull(long logBytes, long memoryBytes, int entryBytes) {
    try {
      return forBudgets(logBytes, memoryBytes, entryBytes);
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  /**
   * Refuses an entry that an incarnation cannot hold, or that takes more than a quarter of a log
   * of {@code logPages}: each incarnation must leave room for others.
   */
  static void checkEntryFits(int keyLength, int valueLength, boolean tombstone, long logPages) {
    long entryBytes = (long) keyLength + (tombstone ? 0 : valueLength) + 10;
    if (entryBytes > MAX_ENTRY_BYTES) {
      throw new IllegalArgumentException(
          "an entry of " + entryBytes + " bytes (key, value and lengths) is more than an incarnation holds (" + MAX_ENTRY_BYTES + " bytes)");
    }
    long pages = (LogFormat.HEADER_BYTES + LogFormat.UNIT_HEADER_BYTES + entryBytes + LogFormat.UNIT_FOOTER_BYTES + LogFormat.PAGE_BYTES - 1)
        / LogFormat.PAGE_BYTES;
    if (pages > logPages / 4) {
      throw new IllegalArgumentException(
          "an entry of " + entryBytes + " bytes is more than a quarter of the log (" + logPages * LogFormat.PAGE_BYTES + " bytes): raise logBytes");
    }
  }

  private static int encodedBytes(int entryBytes) {
    return entryBytes + 2;
  }

  /**
   * Refuses a log the table cannot have. A larger one was cut to the largest without a word, after
   * the tuning had sized super tables and buffers for the size asked for.
   */
  private static void checkLogBytes(long logBytes) {
    check(logBytes >= 16 * LogFormat.PAGE_BYTES, "logBytes must be at least 64 KiB, was " + logBytes);
    check(logBytes <= MAX_LOG_BYTES, "logBytes must be at most " + MAX_LOG_BYTES + " (2^31 - 1 pages of 4 KiB), was " + logBytes);
  }

  private static void check(boolean condition, String message) {
    if (!condition) {
      throw new IllegalArgumentException(message);
    }
  }

  public long logBytes() {
    return logBytes;
  }

  public long memoryBytes() {
    return memoryBytes;
  }

  public int entryBytes() {
    return entryBytes;
  }

  /** Partitions of the key space, each with its own buffer. */
  public int superTables() {
    return superTables;
  }

  /** Bytes of one buffer's entries: as an incarnation they fill whole pages of the log. */
  public int bufferBytes() {
    return bufferBytes;
  }

  /** Entries a buffer is sized for. */
  public int bufferEntries() {
    return bufferEntries;
  }

  /** Entries of {@link #entryBytes} the log holds when full. */
  public long capacityEntries() {
    return capacityEntries;
  }

  /** Incarnations each super table keeps, on average, once the log is full. */
  public int incarnationsPerTable() {
    return incarnationsPerTable;
  }

  public double bloomBitsPerKey() {
    return bloomBitsPerKey;
  }

  /** Bits of one incarnation's Bloom filter. */
  public int bitsPerFilter() {
    return bitsPerFilter;
  }

  /**
   * Columns of each table's bit-sliced filters (one per incarnation, and some to spare): the most
   * incarnations a table keeps, its oldest evicted first when small ones would exceed them.
   */
  public int filterColumns() {
    return filterColumns;
  }

  /** Hash functions of the Bloom filters. */
  public int hashes() {
    return hashes;
  }

  /** Units a lookup of an absent key reads in vain, on average, once the log is full. */
  public double expectedWastedReads() {
    double falsePositive = Math.pow(1 - Math.exp(-hashes * (double) bufferEntries / bitsPerFilter), hashes);
    return incarnationsPerTable * falsePositive;
  }

  @Override
  public String toString() {
    return String.format(
        Locale.ROOT,
        "%d super tables of %d-byte buffers (%d entries), %d incarnations each, %.1f Bloom bits per key with %d hashes, "
            + "%.4f wasted reads per absent key, %,d entries of %d bytes",
        superTables, bufferBytes, bufferEntries, incarnationsPerTable, bloomBitsPerKey, hashes, expectedWastedReads(), capacityEntries,
        entryBytes);
  }
}
