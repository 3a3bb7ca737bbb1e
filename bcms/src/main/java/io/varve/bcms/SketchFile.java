package io.varve.bcms;

import io.varve.core.format.CorruptStoreException;
import io.varve.core.format.Envelope;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.zip.CRC32C;

/**
 * The one class that knows the byte layout of a sketch file; {@link CountMinSketch} and {@link
 * BufferedCountMinSketch} write and read it only through here.
 *
 * <pre>
 * SketchFile := Header Padding Body                 (all integers little-endian)
 * Header     :=  off  bytes  field
 *                  0      8  magic = "VARVECMS" (ASCII)      (magic and version: the {@link #ENVELOPE}'s header)
 *                  8      4  format version = 1
 *                 12      4  layout: 1 = ROWS (CountMinSketch), 2 = PAGES (BufferedCountMinSketch)
 *                 16      4  counter bytes: 4 or 8
 *                 20      4  depth (rows)
 *                 24      8  width (counters per row, as configured)
 *                 32      4  page size in bytes (PAGES; 0 for ROWS)
 *                 36      4  columns per page = floor(pageSize / (depth * counterBytes)) (PAGES; 0)
 *                 40      8  page count = ceil(width / columnsPerPage) (PAGES; 0)
 *                 48      8  hash seed
 *                 56      4  flags: bit 0 = conservative update; other bits zero
 *                 60      4  state: 0 = closed cleanly, 1 = open for writing (counts not final)
 *                 64      8  total weight of all updates (saturating)
 *                 72      8  body length in bytes
 *                 80      4  body checksum (meaningful in state 0): ROWS: CRC32C of the body;
 *                            PAGES: XOR over pages i of low32(mix64(i << 32 | CRC32C(page i)))
 *                 84      4  CRC32C of header bytes [0, 84)      (the envelope's footer, closing the header)
 * Padding    := zero bytes up to the header length: max(4096, page size), so that pages of the
 *               body start on page boundaries of the file
 * Body (ROWS)  := row[depth], row := counter[width]             counter i of row r at (r*width+i)*cb
 * Body (PAGES) := page[pageCount], page := column[columnsPerPage] zero-fill to the page size,
 *                 column := counter[depth]                      (column-first: one item's counters
 *                 of all rows lie in one page)
 * counter    := unsigned 32-bit or signed non-negative 64-bit integer, saturating at its maximum
 * </pre>
 *
 * Where a buffered sketch puts an item: page {@code h0 = floor(h * pageCount / 2^64)} for the
 * item's 64-bit XXH3 hash {@code h}; in that page, row {@code r}'s column is derived from a 32-bit
 * remix of {@code h} (see {@link ItemHash}). The state word makes a sketch that was not closed
 * (a crash with updates only partly on disk, which could make estimates fall below the truth) fail
 * to open instead of answering wrongly. The page layout's checksum is a combination of per-page
 * checksums so that a buffered sketch keeps it current as it rewrites pages: finishing the file
 * never needs a pass over all pages (mix64 is the SplitMix64 finalizer; see {@link #pageChecksum}).
 *
 * <p>Stateless; thread-safe.
 */
final class SketchFile {
  static final long MAGIC = 0x534D_4345_5652_4156L; // "VARVECMS" read little-endian
  static final int VERSION = 1;
  /**
   * Magic and version open the header, the header checksum closes its fields: the envelope every
   * Varve file has, here little-endian with an 8-byte magic, and around the header only (the body
   * has its own checksum, kept current page by page).
   */
  static final Envelope ENVELOPE =
      Envelope.builder("Varve count-min sketch").longMagic(MAGIC).littleEndian().versions(VERSION, VERSION).build();
  static final int MIN_HEADER_LENGTH = 4096;
  static final int HEADER_CRC_OFFSET = 84;
  static final int HEADER_FIELDS_LENGTH = 88;
  static final int STATE_CLOSED = 0;
  static final int STATE_OPEN = 1;
  /** The most pages a buffered sketch may have: page numbers are {@code int}s in its buffers. */
  static final long MAX_PAGE_COUNT = Integer.MAX_VALUE;
  private static final int FLAG_CONSERVATIVE = 1;

  /** How counters are arranged in the body. */
  enum Layout {
    ROWS(1),
    PAGES(2);

    final int code;

    Layout(int code) {
      this.code = code;
    }
  }

  /** Everything the header says. */
  record Header(
      Layout layout,
      SketchParameters parameters,
      int columnsPerPage,
      long pageCount,
      int state,
      long totalWeight,
      int bodyCrc) {

    long bodyLength() {
      return SketchFile.bodyLength(layout, parameters, columnsPerPage, pageCount);
    }

    int headerLength() {
      return SketchFile.headerLength(layout, parameters);
    }

    Header withState(int newState, long newTotalWeight, int newBodyCrc) {
      return new Header(layout, parameters, columnsPerPage, pageCount, newState, newTotalWeight, newBodyCrc);
    }

    /** A header for a new, empty file of {@code layout} (state open: it is about to be written). */
    static Header forNewSketch(Layout layout, SketchParameters parameters) {
      if (layout == Layout.ROWS) {
        return new Header(layout, parameters, 0, 0, STATE_OPEN, 0, 0);
      }
      int columnsPerPage = SketchFile.columnsPerPage(parameters);
      long pageCount = (parameters.width() + columnsPerPage - 1) / columnsPerPage;
      if (pageCount > MAX_PAGE_COUNT) {
        throw new IllegalArgumentException(parameters + " needs " + pageCount + " pages; a buffered sketch has at most "
            + MAX_PAGE_COUNT + " (use larger pages)");
      }
      return new Header(layout, parameters, columnsPerPage, pageCount, STATE_OPEN, 0, 0);
    }
  }

  private SketchFile() {}

  /** Columns of {@code depth} counters that fit in one page. */
  static int columnsPerPage(SketchParameters parameters) {
    int columnBytes = parameters.depth() * parameters.counterBytes();
    if (columnBytes > parameters.pageSize()) {
      throw new IllegalArgumentException("a page of " + parameters.pageSize()
          + " bytes cannot hold one column of " + parameters.depth() + " counters of "
          + parameters.counterBytes() + " bytes; use a larger page or fewer rows");
    }
    return parameters.pageSize() / columnBytes;
  }

  static int headerLength(Layout layout, SketchParameters parameters) {
    return layout == Layout.PAGES ? Math.max(MIN_HEADER_LENGTH, parameters.pageSize()) : MIN_HEADER_LENGTH;
  }

  static long bodyLength(Layout layout, SketchParameters parameters, int columnsPerPage, long pageCount) {
    return layout == Layout.ROWS
        ? parameters.width() * parameters.depth() * parameters.counterBytes()
        : pageCount * parameters.pageSize();
  }

  /** The header's fields, checksummed, in a buffer of {@link #HEADER_FIELDS_LENGTH} bytes. */
  static ByteBuffer encode(Header header) {
    SketchParameters p = header.parameters();
    ByteBuffer b = ByteBuffer.allocate(HEADER_FIELDS_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
    b.put(ENVELOPE.header(VERSION))
        .putInt(header.layout().code)
        .putInt(p.counterBytes())
        .putInt(p.depth())
        .putLong(p.width())
        .putInt(header.layout() == Layout.PAGES ? p.pageSize() : 0)
        .putInt(header.columnsPerPage())
        .putLong(header.pageCount())
        .putLong(p.seed())
        .putInt(p.conservativeUpdate() ? FLAG_CONSERVATIVE : 0)
        .putInt(header.state())
        .putLong(header.totalWeight())
        .putLong(header.bodyLength())
        .putInt(header.bodyCrc());
    b.put(ENVELOPE.footer(Envelope.crc32c(b.array(), 0, HEADER_CRC_OFFSET)));
    return b.flip();
  }

  /**
   * Decodes and validates a header against the file's size: every field in range, consistent with
   * the others, and the file exactly as long as header and body.
   *
   * @throws CorruptStoreException naming the file and what is wrong
   */
  static Header decode(ByteBuffer bytes, long fileSize, Path file) {
    String where = "sketch file " + file + ": ";
    check(fileSize >= HEADER_FIELDS_LENGTH && bytes.remaining() >= HEADER_FIELDS_LENGTH,
        where + "only " + fileSize + " bytes, shorter than a sketch header");
    ByteBuffer b = bytes.duplicate().order(ByteOrder.LITTLE_ENDIAN);
    int start = b.position();
    ENVELOPE.checkHeader(b, "sketch file " + file);
    b.position(start + ENVELOPE.headerLength());
    byte[] fields = new byte[HEADER_CRC_OFFSET];
    bytes.duplicate().position(start).get(fields);
    int layoutCode = b.getInt();
    int counterBytes = b.getInt();
    int depth = b.getInt();
    long width = b.getLong();
    int pageSize = b.getInt();
    int columnsPerPage = b.getInt();
    long pageCount = b.getLong();
    long seed = b.getLong();
    int flags = b.getInt();
    int state = b.getInt();
    long totalWeight = b.getLong();
    long bodyLength = b.getLong();
    int bodyCrc = b.getInt();
    ENVELOPE.checkFooter(b, Envelope.crc32c(fields, 0, fields.length), "sketch file " + file + " (header)");
    check(layoutCode == Layout.ROWS.code || layoutCode == Layout.PAGES.code, where + "unknown layout " + layoutCode);
    Layout layout = layoutCode == Layout.ROWS.code ? Layout.ROWS : Layout.PAGES;
    check((flags & ~FLAG_CONSERVATIVE) == 0, where + "unknown flags 0x" + Integer.toHexString(flags));
    check(state == STATE_CLOSED || state == STATE_OPEN, where + "unknown state " + state);
    check(totalWeight >= 0, where + "negative total weight " + totalWeight);
    SketchParameters parameters;
    try {
      parameters = SketchParameters.ofDimensions(width, depth)
          .withCounterBits(counterBytes * 8)
          .withSeed(seed)
          .withConservativeUpdate((flags & FLAG_CONSERVATIVE) != 0);
      if (layout == Layout.PAGES) {
        parameters = parameters.withPageSize(pageSize);
      }
    } catch (IllegalArgumentException e) {
      throw new CorruptStoreException(where + "invalid parameters: " + e.getMessage(), e);
    }
    Header expected;
    try {
      expected = Header.forNewSketch(layout, parameters);
    } catch (IllegalArgumentException e) {
      throw new CorruptStoreException(where + "invalid page layout: " + e.getMessage(), e);
    }
    check(layout == Layout.PAGES || pageSize == 0, where + "page size " + pageSize + " in a row-layout sketch");
    check(columnsPerPage == expected.columnsPerPage() && pageCount == expected.pageCount(),
        where + "page layout " + columnsPerPage + " columns x " + pageCount + " pages does not follow from "
            + parameters);
    Header header = new Header(layout, parameters, columnsPerPage, pageCount, state, totalWeight, bodyCrc);
    check(bodyLength == header.bodyLength(), where + "body length " + bodyLength + " does not follow from "
        + parameters + " (expected " + header.bodyLength() + ")");
    long expectedSize = header.headerLength() + bodyLength;
    check(fileSize == expectedSize, where + (fileSize < expectedSize ? "truncated: " : "too long: ") + fileSize
        + " bytes, expected " + expectedSize);
    return header;
  }

  /** Page {@code pageIndex}'s share of the page layout's body checksum, given the page's CRC32C. */
  static int pageChecksum(long pageIndex, int pageCrc) {
    long z = (pageIndex << 32) | (pageCrc & 0xFFFF_FFFFL);
    z = (z ^ (z >>> 30)) * 0xBF58_476D_1CE4_E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D0_49BB_1331_11EBL;
    return (int) (z ^ (z >>> 31));
  }

  /** The page layout's body checksum of {@code pageCount} pages of zeros (a new file). */
  static int zeroPagesChecksum(long pageCount, int pageSize) {
    CRC32C crc = new CRC32C();
    crc.update(new byte[pageSize]);
    int zeroCrc = (int) crc.getValue();
    int checksum = 0;
    for (long page = 0; page < pageCount; page++) {
      checksum ^= pageChecksum(page, zeroCrc);
    }
    return checksum;
  }

  private static void check(boolean condition, String message) {
    CorruptStoreException.check(condition, message);
  }
}
