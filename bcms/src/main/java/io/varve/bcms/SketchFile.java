package io.varve.bcms;

import io.varve.core.format.CorruptStoreException;
import io.varve.core.format.Envelope;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.zip.CRC32C;

/**
 * The one class that knows the byte layout of a sketch file; {@link CountMinSketch} and {@link
 * BufferedCountMinSketch} write and read it only through here.
 *
 * <pre>
 * SketchFile  := Fixed Padding Slot Slot Padding Body   (version 2; all integers little-endian)
 * Fixed       :=  off  bytes  field                     (written once, when the file is created)
 *                   0      8  magic = "VARVECMS" (ASCII)      (magic and version: the {@link #ENVELOPE}'s header)
 *                   8      4  format version = 2
 *                  12      4  layout: 1 = ROWS (CountMinSketch), 2 = PAGES (BufferedCountMinSketch)
 *                  16      4  counter bytes: 4 or 8
 *                  20      4  depth (rows)
 *                  24      8  width (counters per row, as configured)
 *                  32      4  page size in bytes (PAGES; 0 for ROWS)
 *                  36      4  columns per page = floor(pageSize / (depth * counterBytes)) (PAGES; 0)
 *                  40      8  page count = ceil(width / columnsPerPage) (PAGES; 0)
 *                  48      8  hash seed
 *                  56      4  flags: bit 0 = conservative update; other bits zero
 *                  60      8  body length in bytes
 *                  68      4  CRC32C of bytes [0, 68)        (the envelope's footer, closing the fixed fields)
 * Padding     := zero bytes: up to 4096 after Fixed; after slot 1, up to the header length,
 *                roundUp(12288, pageSize) (PAGES) or 12288 (ROWS), so that pages of the body start
 *                on page boundaries of the file
 * Slot        := a {@link SketchCommit} record and zeros to 4096 bytes: slot s at 4096 * (1 + s)
 * Body (ROWS)  := row[depth], row := counter[width]             counter i of row r at (r*width+i)*cb
 * Body (PAGES) := page[pageCount], page := column[columnsPerPage] zero-fill to the page size,
 *                 column := counter[depth]                      (column-first: one item's counters
 *                 of all rows lie in one page)
 * counter    := unsigned 32-bit or signed non-negative 64-bit integer, saturating at its maximum
 *
 * SketchFile  := Header Padding Body                    (version 1, read and kept as it is)
 * Header      := the fields of Fixed up to the flags (version = 1), then
 *                  60  4  state   64  8  total weight   72  8  body length   80  4  body checksum
 *                  84  4  CRC32C of bytes [0, 84)
 * Padding     := zero bytes up to max(4096, page size) (PAGES) or 4096 (ROWS)
 * </pre>
 *
 * <b>Commits.</b> What changes as a sketch is written (the state, the total weight, the body
 * checksum) is rewritten in place when a sketch opens for writing and when it flushes. In version 1
 * that rewrote the one header, and a power loss during the write could tear it (part old bytes,
 * part new): its checksum failed and the whole sketch, its body intact, no longer opened. Version 2
 * writes those fields as a record with a generation number into the slot that does not hold the
 * newest valid record, so the write never touches the record it replaces nor the fixed fields; on
 * open the valid record of the highest generation answers. The slots are a 4 KiB page apart (as
 * SILT's sync mark): a page is what the kernel writes back and what 4Kn disks and most SSDs write
 * at once, so a write that fails or is torn as a whole unit still damages one slot only; it costs 8
 * KiB per file. A version-1 file is never converted (the body would have to move): it keeps its
 * one header, rewritten in place as before, and stays readable by the builds that wrote it.
 *
 * <p>Where a buffered sketch puts an item: page {@code h0 = floor(h * pageCount / 2^64)} for the
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
  /** The version new files get. */
  static final int VERSION = 2;
  /** One header rewritten in place: read, and written to files of this version, never created. */
  static final int VERSION_1 = 1;
  /**
   * Magic and version open the file, a checksum closes its fields: the envelope every Varve file
   * has, here little-endian with an 8-byte magic, and around the fields only (the body has its own
   * checksum, kept current page by page; each commit record its own envelope).
   */
  static final Envelope ENVELOPE =
      Envelope.builder("Varve count-min sketch").longMagic(MAGIC).littleEndian().versions(VERSION_1, VERSION).build();
  /** The bytes read first: version 1's header, longer than version 2's fixed fields. */
  static final int HEADER_FIELDS_LENGTH = 88;
  static final int HEADER_CRC_OFFSET = 84;
  static final int MIN_HEADER_LENGTH = 4096;
  static final int FIXED_CRC_OFFSET = 68;
  static final int FIXED_FIELDS_LENGTH = 72;
  /** A commit slot's page: slot s at {@code SLOT_SPACING * (1 + s)}. */
  static final int SLOT_SPACING = 4096;
  /** The fixed fields' page and two slots: the least header of version 2. */
  static final int SLOTS_END = 3 * SLOT_SPACING;
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

  /**
   * Everything the header says: the fixed fields, the commit the file is read with, and in which slot
   * that lies (version 2; -1 in version 1, which has none).
   */
  record Header(int version, Layout layout, SketchParameters parameters, int columnsPerPage, long pageCount,
      SketchCommit commit, int slot) {

    int state() {
      return commit.state();
    }

    long totalWeight() {
      return commit.totalWeight();
    }

    int bodyCrc() {
      return commit.bodyCrc();
    }

    long bodyLength() {
      return SketchFile.bodyLength(layout, parameters, columnsPerPage, pageCount);
    }

    int headerLength() {
      return SketchFile.headerLength(version, layout, parameters);
    }

    /**
     * The header after the next commit: version 2 writes it into the other slot, one generation on;
     * version 1 over the old one.
     */
    Header withState(int newState, long newTotalWeight, int newBodyCrc) {
      return version == VERSION_1
          ? withCommit(new SketchCommit(0, newState, newTotalWeight, newBodyCrc), -1)
          : withCommit(commit.next(newState, newTotalWeight, newBodyCrc), 1 - slot);
    }

    Header withCommit(SketchCommit newCommit, int newSlot) {
      return new Header(version, layout, parameters, columnsPerPage, pageCount, newCommit, newSlot);
    }

    /** A header for a new, empty file of {@code layout} (state open: it is about to be written). */
    static Header forNewSketch(Layout layout, SketchParameters parameters) {
      if (layout == Layout.ROWS) {
        return new Header(VERSION, layout, parameters, 0, 0, SketchCommit.NEW_FILE, 0);
      }
      int columnsPerPage = SketchFile.columnsPerPage(parameters);
      long pageCount = (parameters.width() + columnsPerPage - 1) / columnsPerPage;
      if (pageCount > MAX_PAGE_COUNT) {
        throw new IllegalArgumentException(parameters + " needs " + pageCount + " pages; a buffered sketch has at most "
            + MAX_PAGE_COUNT + " (use larger pages)");
      }
      return new Header(VERSION, layout, parameters, columnsPerPage, pageCount, SketchCommit.NEW_FILE, 0);
    }
  }

  /**
   * A header as read, and whether the slot it was not read from holds a valid record too (always
   * true in version 1): when it does not, a closed record may be older than the file's body. {@code
   * otherSlotUnreadable} is the read error of that slot's page, or null: the slot may then hold a
   * newer record than the one read (see {@link SketchFileHandle#open}).
   */
  record Read(Header header, boolean otherSlotValid, IOException otherSlotUnreadable) {}

  /** Where the file's bytes are read from: {@link io.varve.core.files.InterruptSafeFile#read}. */
  interface Source {
    int read(ByteBuffer into, long position) throws IOException;
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

  /** Where the body starts in a file of {@code version}. */
  static int headerLength(int version, Layout layout, SketchParameters parameters) {
    if (version == VERSION_1) {
      return layout == Layout.PAGES ? Math.max(MIN_HEADER_LENGTH, parameters.pageSize()) : MIN_HEADER_LENGTH;
    }
    int pageSize = parameters.pageSize(); // a power of two
    return layout == Layout.PAGES ? (SLOTS_END + pageSize - 1) & -pageSize : SLOTS_END;
  }

  static long bodyLength(Layout layout, SketchParameters parameters, int columnsPerPage, long pageCount) {
    return layout == Layout.ROWS
        ? parameters.width() * parameters.depth() * parameters.counterBytes()
        : pageCount * parameters.pageSize();
  }

  /** Offset of commit slot {@code slot} (0 or 1) in a file of version 2. */
  static long slotOffset(int slot) {
    return SLOT_SPACING * (1L + slot);
  }

  /**
   * The header's fields, checksummed: version 1's {@link #HEADER_FIELDS_LENGTH} bytes with the
   * commit, or version 2's {@link #FIXED_FIELDS_LENGTH} without.
   */
  static ByteBuffer encode(Header header) {
    SketchParameters p = header.parameters();
    boolean v1 = header.version() == VERSION_1;
    ByteBuffer b = ByteBuffer.allocate(v1 ? HEADER_FIELDS_LENGTH : FIXED_FIELDS_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
    b.put(ENVELOPE.header(header.version()))
        .putInt(header.layout().code)
        .putInt(p.counterBytes())
        .putInt(p.depth())
        .putLong(p.width())
        .putInt(header.layout() == Layout.PAGES ? p.pageSize() : 0)
        .putInt(header.columnsPerPage())
        .putLong(header.pageCount())
        .putLong(p.seed())
        .putInt(p.conservativeUpdate() ? FLAG_CONSERVATIVE : 0);
    if (v1) {
      b.putInt(header.state()).putLong(header.totalWeight()).putLong(header.bodyLength()).putInt(header.bodyCrc());
    } else {
      b.putLong(header.bodyLength());
    }
    b.put(ENVELOPE.footer(Envelope.crc32c(b.array(), 0, b.position())));
    return b.flip();
  }

  /** The whole header of a new file: fields, padding and, in version 2, the first commit in slot 0. */
  static ByteBuffer encodeNew(Header header) {
    ByteBuffer b = ByteBuffer.allocate(header.headerLength());
    b.put(encode(header));
    if (header.version() != VERSION_1) {
      b.put((int) slotOffset(header.slot()), header.commit().encode(), 0, SketchCommit.BYTES);
    }
    return b.clear();
  }

  /** What a commit writes: version 1's whole header, or version 2's record for its slot. */
  static ByteBuffer encodeCommit(Header header) {
    return header.version() == VERSION_1 ? encode(header) : header.commit().encode();
  }

  /** Where {@link #encodeCommit} goes in the file. */
  static long commitOffset(Header header) {
    return header.version() == VERSION_1 ? 0 : slotOffset(header.slot());
  }

  /**
   * Reads and validates a file's header: the fields, checked against the file's size; the padding;
   * and in version 2 both commit slots, of which the valid record of the highest generation answers.
   *
   * @throws CorruptStoreException naming the file and what is wrong, also when neither slot holds a
   *     valid record
   * @throws SketchCommitUnreadableException when neither slot can be read, or one cannot and the
   *     other holds no valid record (one slot unreadable beside a valid record is {@link
   *     Read#otherSlotUnreadable}, for the open to judge)
   */
  static Read read(Source in, long fileSize, Path file) throws IOException {
    ByteBuffer first = ByteBuffer.allocate(HEADER_FIELDS_LENGTH);
    while (first.hasRemaining() && in.read(first, first.position()) > 0) {
      // read until full or end of file
    }
    Header header = decode(first.flip(), fileSize, file);
    ByteBuffer region = ByteBuffer.allocate(header.headerLength());
    if (header.version() == VERSION_1) {
      readRange(in, region, 0, region.capacity(), file);
      checkZero(region, HEADER_FIELDS_LENGTH, region.capacity(), file);
      return new Read(header, true, null);
    }
    readRange(in, region, 0, SLOT_SPACING, file);
    checkZero(region, FIXED_FIELDS_LENGTH, SLOT_SPACING, file);
    readRange(in, region, SLOTS_END, region.capacity(), file);
    checkZero(region, SLOTS_END, region.capacity(), file);
    String where = "sketch file " + file + ": ";
    SketchCommit[] slots = new SketchCommit[2];
    IOException[] unreadable = new IOException[2];
    for (int s = 0; s < 2; s++) {
      // Each slot's page read alone: a sector that cannot be read fails one slot, not the open.
      try {
        readRange(in, region, (int) slotOffset(s), (int) slotOffset(s) + SLOT_SPACING, file);
      } catch (IOException e) {
        unreadable[s] = e;
        continue;
      }
      slots[s] = SketchCommit.decodeOrNull(region.slice((int) slotOffset(s), SLOT_SPACING));
      if (slots[s] != null) {
        slots[s].check(where, true); // a torn or damaged record fails its checksum; this one lies
      }
    }
    if (unreadable[0] != null && unreadable[1] != null) {
      SketchCommitUnreadableException e = new SketchCommitUnreadableException(where + "neither commit slot could be read ("
          + unreadable[0].getMessage() + "; " + unreadable[1].getMessage() + "); retry once the file reads", null);
      e.addSuppressed(unreadable[0]);
      e.addSuppressed(unreadable[1]);
      throw e;
    }
    for (int s = 0; s < 2; s++) {
      if (unreadable[s] != null && slots[1 - s] == null) {
        throw new SketchCommitUnreadableException(where + "commit slot " + s + " could not be read (" + unreadable[s].getMessage()
            + ") and slot " + (1 - s) + " holds no valid record; retry once the file reads", unreadable[s]);
      }
    }
    check(slots[0] != null || slots[1] != null, where + "neither commit record is valid (both slots torn or damaged)");
    int newest = slots[1] == null || (slots[0] != null && slots[0].generation() > slots[1].generation()) ? 0 : 1;
    SketchCommit commit = slots[newest];
    check(slots[1 - newest] == null || slots[1 - newest].generation() != commit.generation(),
        where + "both commit records have generation " + commit.generation());
    return new Read(header.withCommit(commit, newest), slots[1 - newest] != null, unreadable[1 - newest]);
  }

  /** Reads bytes {@code [from, to)} of the file into the same positions of {@code region}. */
  private static void readRange(Source in, ByteBuffer region, int from, int to, Path file) throws IOException {
    ByteBuffer range = region.duplicate().limit(to).position(from);
    while (range.hasRemaining()) {
      check(in.read(range, range.position()) >= 0, "sketch file " + file + " ended inside its header");
    }
  }

  private static void checkZero(ByteBuffer region, int from, int to, Path file) {
    for (int i = from; i < to; i++) {
      check(region.get(i) == 0, "sketch file " + file + ": non-zero byte in the header padding at offset " + i);
    }
  }

  /**
   * Decodes and validates the header fields at {@code bytes}' position against the file's size:
   * every field in range, consistent with the others, and the file exactly as long as header and
   * body. A version-2 header comes back with the new file's commit: its own are in the slots.
   *
   * @throws CorruptStoreException naming the file and what is wrong
   */
  static Header decode(ByteBuffer bytes, long fileSize, Path file) {
    String where = "sketch file " + file + ": ";
    check(fileSize >= HEADER_FIELDS_LENGTH && bytes.remaining() >= HEADER_FIELDS_LENGTH,
        where + "only " + fileSize + " bytes, shorter than a sketch header");
    ByteBuffer b = bytes.duplicate().order(ByteOrder.LITTLE_ENDIAN);
    int start = b.position();
    int version = ENVELOPE.checkHeader(b, "sketch file " + file);
    b.position(start + ENVELOPE.headerLength());
    int layoutCode = b.getInt();
    int counterBytes = b.getInt();
    int depth = b.getInt();
    long width = b.getLong();
    int pageSize = b.getInt();
    int columnsPerPage = b.getInt();
    long pageCount = b.getLong();
    long seed = b.getLong();
    int flags = b.getInt();
    SketchCommit commit = SketchCommit.NEW_FILE;
    long bodyLength;
    if (version == VERSION_1) {
      int state = b.getInt();
      long totalWeight = b.getLong();
      bodyLength = b.getLong();
      commit = new SketchCommit(0, state, totalWeight, b.getInt());
    } else {
      bodyLength = b.getLong();
    }
    byte[] fields = new byte[b.position() - start];
    bytes.duplicate().position(start).get(fields);
    ENVELOPE.checkFooter(b, Envelope.crc32c(fields, 0, fields.length), "sketch file " + file + " (header)");
    check(layoutCode == Layout.ROWS.code || layoutCode == Layout.PAGES.code, where + "unknown layout " + layoutCode);
    Layout layout = layoutCode == Layout.ROWS.code ? Layout.ROWS : Layout.PAGES;
    check((flags & ~FLAG_CONSERVATIVE) == 0, where + "unknown flags 0x" + Integer.toHexString(flags));
    if (version == VERSION_1) {
      commit.check(where, false);
    }
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
    Header header = new Header(version, layout, parameters, columnsPerPage, pageCount, commit, version == VERSION_1 ? -1 : 0);
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
