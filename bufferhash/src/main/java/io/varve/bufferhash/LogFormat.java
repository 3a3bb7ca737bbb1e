package io.varve.bufferhash;

import io.varve.core.format.CorruptStoreException;
import io.varve.core.format.Envelope;
import io.varve.core.format.SaltedCrc32c;
import java.util.zip.CRC32C;

/**
 * The one place that knows BufferHash's byte layouts: entries, incarnations in the circular log,
 * the state file and the buffer snapshot. Integers are big-endian; a varint is an unsigned LEB128.
 * Each structure's magic, version and closing CRC32C are an {@link Envelope} ({@link #INCARNATION},
 * {@link #WRAP_MARKER}, {@link #STATE}, {@link #BUFFERS}; the write-ahead log's in {@link
 * WriteAheadLog}): a 4-byte magic, a one-byte version and three reserved bytes, a 4-byte checksum.
 *
 * <pre>
 * Entry        := keyLength:varint valueCode:varint key:byte[keyLength] value:byte[valueCode - 1]
 *                 (valueCode 0: a tombstone, the key was deleted; no value bytes)
 *
 * log file     := Page* (PAGE_BYTES each), used as one circular list of incarnations; free or
 *                 evicted pages hold anything
 * Incarnation  := IncarnationHeader Unit+            (starts at a page; unit 0 follows the header
 *                                                     inside page 0, every other unit starts a page)
 * IncarnationHeader (HEADER_BYTES = 32)
 *   +0  magic:int32 = 0x56424849 ("VBHI")  (WRAP_MAGIC 0x56424857 "VBHW": the log continues at page 0)
 *   +4  version:uint8 = 2 (1: an unsalted table's), reserved:uint8[3] = 0
 *   +8  superTable:int32
 *   +12 sequence:int64                     (rising in log order: +1 per incarnation, + a multiple of
 *                                           logPages + 1 where the log was opened; IncarnationLog#scan)
 *   +20 pages:int32                        (the incarnation's length in pages)
 *   +24 entries:int32
 *   +28 crc:int32                          Check(bytes +0..+27)
 * Unit         := runPages:int32 entryCount:int32 Entry[entryCount] zero padding crc:int32
 *                 (fills its runPages pages, less the header in page 0; crc is the Check of the
 *                 incarnation's sequence (int64), the unit's first page in the incarnation (int32)
 *                 and every unit byte before it, so a page left over from an older incarnation
 *                 fails the check)
 *                 Entries are ordered by the top bits of their key hash's low word; a unit holds
 *                 the entries that fit in one page, or one entry too large for a page alone.
 *
 * state file   := StateSlot StateSlot              (STATE_SLOT_BYTES each; written alternately;
 *                                                  the valid slot of higher generation counts)
 * StateSlot    := magic:int32 = 0x56424853 ("VBHS") version:uint8 = 3 (1, 2: unsalted) reserved:uint8[3]
 *                 generation:int64 logPages:int64 tailPage:int64 headPage:int64
 *                 tailSequence:int64 nextSequence:int64
 *                 buffersCheck:int64               (0: no buffers file; else 2^32 | its Check)
 *                 superTables:int32 seed:int64
 *                 tableId:int64                    (version 3 only, never 0)
 *                 crc:int32                        (CRC32C of the slot's bytes before it)
 *
 * buffers file := magic:int32 = 0x56424842 ("VBHB") version:uint8 = 2 (1: unsalted) reserved:uint8[3]
 *                 generation:int64 superTables:int32 Table* crc:int32  (Check of all bytes before it)
 * Table        := superTable:int32 entryCount:int32 Entry[entryCount]
 *
 * Check(bytes) := CRC32C(tableId:int64 bytes)      (incarnation, buffers, segment version 2)
 *               | CRC32C(bytes)                     (version 1: a table of state version 1 or 2, id 0)
 * </pre>
 *
 * <p>The table id is drawn at random when a table is created and kept in its state: mixed into
 * every check the table writes, it makes a structure of another table (a log, a buffers file or a
 * write-ahead segment copied in, even of the same seed and workload) fail its check instead of
 * being served. A table created before state version 3 has id 0 and keeps writing the unsalted
 * version-1 structures and state version 2: it is never converted, so no crash can leave it half
 * one and half the other, and a version-1 structure is refused under a state of version 3 (and a
 * version-2 one under an older state), whose structures are all of the other version.
 *
 * <p>Stateless; thread-safe.
 */
final class LogFormat {
  static final int PAGE_BYTES = 4096;
  static final int INCARNATION_MAGIC = 0x56424849;
  static final int WRAP_MAGIC = 0x56424857;
  static final int STATE_MAGIC = 0x56424853;
  static final int BUFFERS_MAGIC = 0x56424842;
  /** The version of the incarnations, buffers files and write-ahead segments of an unsalted table (id 0). */
  static final int VERSION = 1;
  /** Their version in a table with an id: their checks are salted with it. */
  static final int SALTED_VERSION = 2;
  static final int HEADER_BYTES = 32;
  static final int UNIT_HEADER_BYTES = 8;
  static final int UNIT_FOOTER_BYTES = 4;
  static final int STATE_SLOT_BYTES = 512;
  /** The magic and version opening an incarnation, and the checksum closing its header. */
  static final Envelope INCARNATION = envelope("BufferHash incarnation", INCARNATION_MAGIC, VERSION, SALTED_VERSION);
  /** A wrap marker: an incarnation header's place, magic "VBHW", version byte 0, a checksum. */
  static final Envelope WRAP_MARKER = envelope("BufferHash wrap marker", WRAP_MAGIC, 0, 0);
  /**
   * The state's version: 2 since sequence numbers skip ahead at each open (incarnations written
   * since may follow the one before by a multiple of {@code logPages + 1}); a version-1 state's
   * incarnations run consecutively. 3 adds the table id (and sequence numbers skip as in 2). 4
   * has the layout of 3 and says the table keeps a write-ahead sync mark ({@link WalSyncMark}) of
   * version 1; 5, one of version 2, which also records the first segment that must exist. All are
   * read; a new table writes 5 (2 with id 0); an existing one keeps its version (1 becomes 2).
   */
  static final int STATE_VERSION = 5;
  /** The state version of a table whose sync mark does not record its first segment (created before version 5). */
  static final int UNNUMBERED_MARK_STATE_VERSION = 4;
  /** The state version of a table with an id but no write-ahead sync mark (created before version 4). */
  static final int UNMARKED_STATE_VERSION = 3;
  /** The state version an unsalted table (id 0) writes. */
  static final int UNSALTED_STATE_VERSION = 2;
  /** A state slot's magic, version and checksum. */
  static final Envelope STATE = Envelope.builder("BufferHash state").magic(STATE_MAGIC).byteVersion().versions(1, STATE_VERSION).build();
  /** The buffers file's magic, version and checksum. */
  static final Envelope BUFFERS = envelope("BufferHash buffers", BUFFERS_MAGIC, VERSION, SALTED_VERSION);

  private LogFormat() {}

  /** The envelope of a BufferHash structure: {@code magic:int32 version:uint8 reserved:uint8[3] ... crc:int32}. */
  static Envelope envelope(String name, int magic, int minVersion, int maxVersion) {
    return Envelope.builder(name).magic(magic).byteVersion().versions(minVersion, maxVersion).build();
  }

  /** The version of the incarnations, buffers files and segments a table of id {@code tableId} writes and reads. */
  static int structureVersion(long tableId) {
    return tableId == 0 ? VERSION : SALTED_VERSION;
  }

  /** The state version a new table of id {@code tableId} writes. */
  static int stateVersion(long tableId) {
    return tableId == 0 ? UNSALTED_STATE_VERSION : STATE_VERSION;
  }

  /** The state version an existing table writes, given the version read: never converted (a version-1 state becomes 2). */
  static int stateVersionKept(long tableId, int versionRead) {
    if (tableId == 0) {
      return UNSALTED_STATE_VERSION;
    }
    return versionRead >= STATE_VERSION ? STATE_VERSION : versionRead == UNNUMBERED_MARK_STATE_VERSION ? UNNUMBERED_MARK_STATE_VERSION : UNMARKED_STATE_VERSION;
  }

  /**
   * Refuses a structure whose version is not the one its table's id calls for: a version-1
   * structure in a table with an id, or a version-2 one in a table without, is another table's.
   */
  static void checkVersion(Envelope envelope, int version, long tableId, String where) {
    int expected = structureVersion(tableId);
    if (version != expected) {
      throw new CorruptStoreException(where + ": " + envelope.formatName() + " of version " + version
          + ", but this table's are of version " + expected + " (state version " + (tableId == 0 ? "1 or 2" : "3 to 5") + "): another table's?");
    }
  }

  /** Check({@code bytes[from, end)}): their CRC32C, preceded by the table id unless it is 0 (see the grammar). */
  static int check(long tableId, byte[] bytes, int from, int end) {
    return SaltedCrc32c.of(tableId, bytes, from, end - from);
  }

  /** Writes Check({@code bytes[from, end)}) at {@code end}; returns it. */
  static int seal(long tableId, byte[] bytes, int from, int end) {
    int check = check(tableId, bytes, from, end);
    putInt(bytes, end, check);
    return check;
  }

  /** Whether {@code bytes} hold at {@code end} Check({@code bytes[from, end)}). */
  static boolean isSealed(long tableId, byte[] bytes, int from, int end) {
    return end >= from && end + 4 <= bytes.length && getInt(bytes, end) == check(tableId, bytes, from, end);
  }

  /** Throws, naming {@code where}, unless {@code bytes} hold at {@code end} Check({@code bytes[from, end)}). */
  static void checkSealed(Envelope envelope, long tableId, byte[] bytes, int from, int end, String where) {
    if (!isSealed(tableId, bytes, from, end)) {
      throw sealMismatch(envelope, tableId, where);
    }
  }

  /** The exception of a structure, at {@code where}, that fails its check. */
  static CorruptStoreException sealMismatch(Envelope envelope, long tableId, String where) {
    return new CorruptStoreException(where + ": " + envelope.formatName()
        + " checksum mismatch (the file is damaged, or another table's" + (tableId == 0 ? "" : ": checks are salted with the table id") + ")");
  }

  /** Bytes an entry takes, encoded. */
  static int entryBytes(int keyLength, int valueLength, boolean tombstone) {
    int valueCode = tombstone ? 0 : valueLength + 1;
    return varintBytes(keyLength) + varintBytes(valueCode) + keyLength + (tombstone ? 0 : valueLength);
  }

  static int varintBytes(int value) {
    int bytes = 1;
    while ((value & ~0x7F) != 0) {
      value >>>= 7;
      bytes++;
    }
    return bytes;
  }

  /** Writes {@code value} as a varint at {@code at}; returns the position after it. */
  static int putVarint(byte[] to, int at, int value) {
    while ((value & ~0x7F) != 0) {
      to[at++] = (byte) ((value & 0x7F) | 0x80);
      value >>>= 7;
    }
    to[at++] = (byte) value;
    return at;
  }

  /**
   * Reads a varint at {@code at}, no further than {@code end}: the value in the low 32 bits, the
   * position after it in the high 32 bits, or -1 if the bytes are not a varint of at most 31 bits.
   */
  static long getVarint(byte[] from, int at, int end) {
    int value = 0;
    for (int shift = 0; shift < 32; shift += 7) {
      if (at >= end) {
        return -1;
      }
      int b = from[at++];
      value |= (b & 0x7F) << shift;
      if ((b & 0x80) == 0) {
        return value < 0 ? -1 : ((long) at << 32) | (value & 0xFFFFFFFFL);
      }
    }
    return -1;
  }

  /** Encodes one entry at {@code at}; returns the position after it. */
  static int putEntry(byte[] to, int at, byte[] key, byte[] value, boolean tombstone) {
    at = putVarint(to, at, key.length);
    at = putVarint(to, at, tombstone ? 0 : value.length + 1);
    System.arraycopy(key, 0, to, at, key.length);
    at += key.length;
    if (!tombstone) {
      System.arraycopy(value, 0, to, at, value.length);
      at += value.length;
    }
    return at;
  }

  /** Check of a unit: bound to the table, the incarnation's sequence and the unit's first page. */
  static int unitCrc(long tableId, long sequence, int firstPage, byte[] bytes, int offset, int length) {
    CRC32C crc = unitCrcStart(tableId, sequence, firstPage);
    crc.update(bytes, offset, length);
    return (int) crc.getValue();
  }

  /** A unit's Check before its bytes: bound to the table, the incarnation's sequence and the unit's first page. */
  static CRC32C unitCrcStart(long tableId, long sequence, int firstPage) {
    CRC32C crc = SaltedCrc32c.start(tableId);
    SaltedCrc32c.update(crc, sequence);
    SaltedCrc32c.update(crc, firstPage);
    return crc;
  }

  static void putInt(byte[] to, int at, int value) {
    to[at] = (byte) (value >>> 24);
    to[at + 1] = (byte) (value >>> 16);
    to[at + 2] = (byte) (value >>> 8);
    to[at + 3] = (byte) value;
  }

  static int getInt(byte[] from, int at) {
    return (from[at] << 24) | ((from[at + 1] & 0xFF) << 16) | ((from[at + 2] & 0xFF) << 8) | (from[at + 3] & 0xFF);
  }

  static void putLong(byte[] to, int at, long value) {
    putInt(to, at, (int) (value >>> 32));
    putInt(to, at + 4, (int) value);
  }

  static long getLong(byte[] from, int at) {
    return ((long) getInt(from, at) << 32) | (getInt(from, at + 4) & 0xFFFFFFFFL);
  }
}
