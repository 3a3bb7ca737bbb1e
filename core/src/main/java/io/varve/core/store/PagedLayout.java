package io.varve.core.store;

/**
 * The data payload of a paged store (data format version 3, meta index kind {@code paged}):
 * records in hash order packed into frames of one page each, every frame opening with a head that
 * lists the records starting in it. A key's frame follows from its hash through the in-memory
 * {@link PageTable}; the head finds its record inside the frame. Records are laid out as {@link
 * RecordFormat} lays them out (header, key, value, {@link RecordChecksum} where the store has
 * them), and a record may run past its frame's end: frames hold records, not records frames.
 *
 * <pre>
 * Payload   := Frame^frameCount                      frameCount = ceil(dataBytes / P), P = meta pageBytes
 * Frame     := Tail Head? Record^count Padding?      frame f is payload bytes [f * P, (f + 1) * P)
 * Tail      := the last bytes of a record that starts in an earlier frame (headerStart bytes)
 * Head      := headCheck:uint32le Entry^count         (when count > 0)
 * Entry     := fragment:uint16le offset:uint16le      fragment = low 16 bits of the key hash's lo
 *                                                    offset = where the record starts, from the frame's start
 * Record    := RecordFormat's variable-size Record   back to back from the head's end; the last one
 *                                                    may run into later frames (which are then its Tail)
 * Padding   := zero bytes to the frame's end         (none after the payload's last record)
 * headCheck := RecordChecksum of the Entry bytes, with the payload offset of the Head as start:
 *              the records' function (meta recordCheck), XXH3 in a store whose records have none
 * </pre>
 *
 * {@code count}, {@code headerStart} and the frame's first hash are in the {@link PageTable}, not in
 * the frame. The writer starts a record in a frame only while the frame's head, the record's entry
 * and the record's first byte fit in it ({@link #takesRecords}), and lets a record run past the
 * frame's end only when the room it would leave as padding is at least an eighth of a page (or the
 * frame holds no record yet): records of up to an eighth of a page never cross a frame, so a lookup
 * of one reads one page. Stateless; thread-safe.
 */
public final class PagedLayout {
  /** Bytes of a head's check. */
  public static final int HEAD_CHECK_BYTES = 4;

  /** Bytes of each entry of a head. */
  public static final int ENTRY_BYTES = 4;

  /** The padding a record crossing into the next frame must save at least: this part of a page. */
  public static final int CROSSING_ROOM_DIVISOR = 8;

  private PagedLayout() {}

  /**
   * Whether records of this shape can be paged: variable sizes ({@code fixedSize} false), full keys
   * (the head's search compares them) and alignment to pages ({@code pageBytes > 0}).
   */
  public static boolean holds(boolean fixedSize, KeyMode keyMode, int pageBytes) {
    return !fixedSize && keyMode.keepsKeys() && pageBytes > 0;
  }

  /** Bytes of the head of a frame of {@code count} records. */
  public static int headBytes(int count) {
    return HEAD_CHECK_BYTES + ENTRY_BYTES * count;
  }

  /**
   * Whether a frame whose tail takes {@code headerStart} bytes can take a record: its head with one
   * entry and the record's first byte fit in the page.
   */
  public static boolean takesRecords(int headerStart, int pageBytes) {
    return headerStart + headBytes(1) < pageBytes;
  }

  /**
   * The most records a frame holds: each takes an entry and at least a two-byte header and its
   * check, except the last, which may run past the frame after its first byte.
   */
  public static int maxRecordsPerFrame(int pageBytes, int checkBytes) {
    return (pageBytes - HEAD_CHECK_BYTES) / (ENTRY_BYTES + 2 + checkBytes) + 1;
  }

  /** The fragment of a key whose hash's low word is {@code lo}. */
  public static int fragment(long lo) {
    return (int) lo & 0xFFFF;
  }

  /**
   * The top 32 bits of the hash a frame's table entry keeps, from the hash's high word as the
   * store's {@link io.varve.core.hash.HashRange} maps it.
   */
  public static int first(long mappedHi) {
    return (int) (mappedHi >>> 32);
  }

  /** The entry of a record, as the little-endian int its four bytes read as. */
  public static int entry(int fragment, int offset) {
    return fragment & 0xFFFF | offset << 16;
  }

  /** The fragment of an entry read as a little-endian int. */
  public static int entryFragment(int entry) {
    return entry & 0xFFFF;
  }

  /** The offset of an entry read as a little-endian int. */
  public static int entryOffset(int entry) {
    return entry >>> 16;
  }

  /** Writes {@code entry} little-endian at {@code bytes[at]}. */
  public static void writeEntry(int entry, byte[] bytes, int at) {
    RecordChecksum.write(entry, bytes, at);
  }

  /** The function of the heads' checks in a store whose records are checked by {@code records}. */
  public static RecordChecksum headChecksum(RecordChecksum records) {
    return records == RecordChecksum.NONE ? RecordChecksum.XXH3 : records;
  }

  /**
   * The check, by {@code function} ({@link #headChecksum}), of the entries {@code bytes[from, from +
   * length)} of the head at payload offset {@code headOffset}.
   */
  public static int headCheck(RecordChecksum function, byte[] bytes, int from, int length, long headOffset) {
    return function.of(bytes, from, length, headOffset);
  }
}
