package io.varve.silt;

import io.varve.core.files.FileIdentity;
import io.varve.core.format.CorruptStoreException;
import io.varve.core.format.Envelope;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The file of one LogStore: its puts and deletes in the order they came (SILT §3.1), which is
 * also the write-ahead log. Entries are found by their byte offset, which the LogStore's cuckoo
 * table keeps.
 *
 * <pre>
 * Log    := Header Record*
 * Header := magic:int32 = 0x56534C47 ("VSLG") version:uint8 = 1 or 2 reserved:uint8[3]
 *           number:int64 buckets:int32 crc:int32      (crc: Check of the 20 bytes before)
 * Record := length:int32 crc:int32 Body                (length: Body's bytes; crc: Check of Body)
 * Body   := kind:uint8 keyLength:varint key:byte[keyLength] value:byte[*]
 *                                                      (kind 1: a put, the value is the rest of
 *                                                       Body; kind 2: a delete, nothing follows)
 * </pre>
 *
 * Integers are big-endian; a varint is unsigned LEB128 (7 bits per byte, low first). {@code
 * number} is the log's number in the store's manifest; {@code buckets} the size of the table that
 * indexed it, so that it is replayed into a table of the same shape whatever the options today.
 *
 * <p>Check is the store's {@link SiltCheck}: version 2 (a store with an id) salts it with the
 * store id, so that another store's log fails its header check; version 1 is the plain CRC32C.
 *
 * <p>A crash can leave the newest log's last record cut short, torn (its bytes complete but its
 * checksum wrong), or followed by zeros: those are writes never synced, and {@link #scan} drops
 * them when asked to repair the tail. Damage anywhere else is a {@link CorruptStoreException},
 * but for one kind the format cannot tell from a crash: a length changed so that its record seems
 * to run past the end of the newest log, or to end where only zeros follow, reads as a last record
 * cut short or torn (a length has no checksum of its own, as in LevelDB's log).
 *
 * <p>Thread-safe for reads at offsets already written; one thread appends.
 */
final class SiltLog implements AutoCloseable {
  static final int MAGIC = 0x56534C47;
  static final Envelope FORMAT = Envelope.builder("SILT log").magic(MAGIC).byteVersion().versions(1, 2).build();
  static final int HEADER_BYTES = 24;
  static final int RECORD_HEADER_BYTES = SiltRecords.HEADER_BYTES;
  static final byte PUT = SiltRecords.PUT;
  static final byte DELETE = SiltRecords.DELETE;
  /** The longest a log grows: offsets are ints. */
  static final long MAX_BYTES = Integer.MAX_VALUE;

  private final Path file;
  private final FileAccess channel;
  /** The file {@code file} named on open: a force checks that it still does. */
  private final FileIdentity identity;
  private final long number;
  private final int buckets;
  private final SiltCheck check;
  /** Bytes written (the next record's offset); written only by the appending thread. */
  private long end;
  private byte[] scratch = new byte[256];

  private SiltLog(Path file, FileAccess channel, long number, int buckets, SiltCheck check, long end) throws IOException {
    this.file = file;
    this.channel = channel;
    this.identity = FileIdentity.of(file);
    this.number = number;
    this.buckets = buckets;
    this.check = check;
    this.end = end;
  }

  /** Creates the log {@code file}, which must not exist, and forces its header. */
  static SiltLog create(Path file, long number, int buckets, SiltCheck check) throws IOException {
    FileAccess channel = FileAccess.open(file,
        new OpenOption[] {StandardOpenOption.CREATE_NEW, StandardOpenOption.READ, StandardOpenOption.WRITE},
        StandardOpenOption.READ, StandardOpenOption.WRITE);
    try {
      byte[] header = new byte[HEADER_BYTES];
      FORMAT.putHeader(header, 0, check.fileVersion());
      ByteBuffer b = ByteBuffer.wrap(header);
      b.putLong(8, number).putInt(16, buckets).putInt(20, check.of(header, 0, 20));
      channel.writeFully(b, 0);
      channel.force(true);
      return new SiltLog(file, channel, number, buckets, check, HEADER_BYTES);
    } catch (IOException | RuntimeException e) {
      channel.close();
      throw e;
    }
  }

  /**
   * Opens the existing log {@code file}, checking its header against {@code number} and the store's
   * {@code check} (another store's log fails it). Call
   * {@link #scan} next, before any append.
   *
   * @param writable whether records will be appended (the newest log)
   */
  static SiltLog open(Path file, long number, boolean writable, SiltCheck check) throws IOException {
    OpenOption[] options = writable
        ? new OpenOption[] {StandardOpenOption.READ, StandardOpenOption.WRITE}
        : new OpenOption[] {StandardOpenOption.READ};
    FileAccess channel = FileAccess.open(file, options, options);
    try {
      ByteBuffer header = ByteBuffer.allocate(HEADER_BYTES);
      channel.readFully(header, 0);
      header.flip();
      CorruptStoreException.check(header.remaining() == HEADER_BYTES, file + ": the SILT log header is cut short");
      FORMAT.checkHeader(header.duplicate(), file.toString());
      check.checkVersion(header.get(4), file.toString());
      CorruptStoreException.check(check.of(header.array(), 0, 20) == header.getInt(20), file + ": " + check.damaged("the SILT log header"));
      long found = header.getLong(8);
      CorruptStoreException.check(found == number, file + ": log number " + found + " where the manifest names " + number);
      int buckets = header.getInt(16);
      CorruptStoreException.check(
          buckets > 0 && Integer.bitCount(buckets) == 1 && buckets <= 1 << 28, file + ": bad table size " + buckets);
      return new SiltLog(file, channel, number, buckets, check, HEADER_BYTES);
    } catch (IOException | RuntimeException e) {
      channel.close();
      throw e;
    }
  }

  Path file() {
    return file;
  }

  long number() {
    return number;
  }

  SiltCheck check() {
    return check;
  }

  /** Buckets of the table that indexes this log. */
  int buckets() {
    return buckets;
  }

  /** Bytes in the log, header included. */
  long bytes() {
    return end;
  }

  /** Receives a log's records in order. */
  interface Visitor {
    /** A record at {@code offset}; {@code value} is null for a delete. */
    void record(long offset, byte[] key, byte[] value) throws IOException;
  }

  /**
   * Reads every record in order, and sets the end of the log after the last one.
   *
   * @param repairTail whether a record cut short, torn or followed by zeros at the end is dropped
   *     (and the file cut there), as a crash leaves the newest log; otherwise it is damage
   * @param dropDamaged whether any damaged record is dropped with every record after it, and the
   *     file cut there ({@link SiltOptions#dropDamagedLogTail})
   * @param synced the length the log's last sync reached, as its sync mark says (0: unknown):
   *     damage before it is no crash's, and a shorter file lost synced writes
   * @return bytes dropped from the tail
   * @throws LogShorterThanSyncException when the file is shorter than {@code synced}, unless
   *     {@code dropDamaged}
   * @throws CorruptStoreException when a record is damaged elsewhere
   */
  long scan(boolean repairTail, boolean dropDamaged, long synced, Visitor visitor) throws IOException {
    long size = channel.size();
    if (size < synced) {
      if (!dropDamaged) {
        throw new LogShorterThanSyncException(file, size, synced);
      }
      System.getLogger(SiltStore.class.getName()).log(Level.WARNING,
          "{0}: the log is {1} bytes, shorter than the {2} its last sync reached: opened without the writes it lost, as"
              + " SiltOptions.dropDamagedLogTail asks", file, size, synced);
    }
    ReadWindow window = new ReadWindow(channel, size);
    long offset = HEADER_BYTES;
    while (offset < size) {
      String problem = null;
      int length = 0;
      SiltRecords.Parsed parsed = null;
      // Whether a crash can leave this at the end: a record cut short, torn, or unwritten (zeros),
      // after what the last sync reached (a sync forced the records before it).
      boolean crashLeft = offset >= synced;
      if (size - offset < RECORD_HEADER_BYTES) {
        problem = "a record header cut short";
      } else {
        ByteBuffer head = window.at(offset, RECORD_HEADER_BYTES);
        length = head.getInt(head.position());
        int crc = head.getInt(head.position() + 4);
        if (length < 2) {
          problem = "a record of " + length + " bytes";
          // No writer makes such a record: only a header of zeros, never written, is a crash's.
          crashLeft &= length == 0 && crc == 0;
        } else if (length > size - offset - RECORD_HEADER_BYTES) {
          problem = "a record cut short";
        } else {
          ByteBuffer body = window.at(offset + RECORD_HEADER_BYTES, length);
          if (check.of(body.array(), body.arrayOffset() + body.position(), length) != crc) {
            problem = "a record whose checksum fails";
          } else if ((parsed = SiltRecords.parse(body.array(), body.arrayOffset() + body.position(), length)) == null) {
            problem = "a malformed record";
            crashLeft = false; // its checksum holds: it was written so
          }
        }
      }
      if (problem != null) {
        // Where the bytes after the damage begin: a crash leaves only zeros there.
        long next = length == 0 ? offset + RECORD_HEADER_BYTES
            : length < 2 || length > size - offset - RECORD_HEADER_BYTES ? size : offset + RECORD_HEADER_BYTES + length;
        boolean crashTail = repairTail && crashLeft && (next >= size || zerosFrom(next, size));
        if (crashTail || dropDamaged) {
          if (!crashTail) {
            System.getLogger(SiltStore.class.getName())
                .log(Level.WARNING, "{0}: {1} at offset {2}: dropped with the {3} bytes after it, as SiltOptions.dropDamagedLogTail asks",
                    file, problem, offset, size - offset);
          }
          channel.truncate(offset);
          channel.force(true);
          end = offset;
          return size - offset;
        }
        throw new CorruptStoreException(file + ": " + problem + " at offset " + offset + " of " + size
            + (!repairTail ? ""
                : offset < synced ? " (within the " + synced + " bytes its last sync reached, so no crash's: SiltOptions.dropDamagedLogTail"
                    + " drops it and the records after it)"
                : " (if a power loss left it among writes not yet synced, SiltOptions.dropDamagedLogTail drops it and the records after it)"));
      }
      visitor.record(offset, parsed.key(), parsed.value());
      offset += RECORD_HEADER_BYTES + length;
    }
    end = offset;
    return 0;
  }

  private boolean zerosFrom(long from, long size) throws IOException {
    ByteBuffer b = ByteBuffer.allocate(8192);
    for (long at = from; at < size; at += b.capacity()) {
      b.clear();
      b.limit((int) Math.min(b.capacity(), size - at));
      channel.readFully(b, at);
      for (int i = 0; i < b.position(); i++) {
        if (b.get(i) != 0) {
          return false;
        }
      }
    }
    return true;
  }

  /**
   * Appends a put ({@code value} non-null) or a delete of {@code key}.
   *
   * @return the record's offset
   */
  long append(byte[] key, byte[] value) throws IOException {
    int bodyBytes = recordBytes(key.length, value == null ? -1 : value.length) - RECORD_HEADER_BYTES;
    int total = RECORD_HEADER_BYTES + bodyBytes;
    if (scratch.length < total) {
      scratch = new byte[Math.max(total, scratch.length * 2)];
    }
    byte[] b = scratch;
    int at = RECORD_HEADER_BYTES;
    b[at++] = value == null ? DELETE : PUT;
    at = SiltRecords.putVarint(b, at, key.length);
    System.arraycopy(key, 0, b, at, key.length);
    at += key.length;
    if (value != null) {
      System.arraycopy(value, 0, b, at, value.length);
    }
    ByteBuffer buffer = ByteBuffer.wrap(b, 0, total);
    buffer.putInt(0, bodyBytes).putInt(4, check.of(b, RECORD_HEADER_BYTES, bodyBytes));
    long offset = end;
    channel.writeFully(buffer, offset);
    end = offset + total;
    return offset;
  }

  /** The bytes a record of a key and value of these lengths takes (value -1: a delete). */
  static int recordBytes(int keyLength, int valueLength) {
    long bytes = (long) RECORD_HEADER_BYTES + 1 + SiltRecords.varintBytes(keyLength) + keyLength + Math.max(0, valueLength);
    if (bytes > Integer.MAX_VALUE - 64) {
      throw new IllegalArgumentException("a record of " + bytes + " bytes is too large for a SILT log");
    }
    return (int) bytes;
  }

  /** What a record holds for a key: absent, deleted, or a value. */
  static final byte[] DELETED = SiltRecords.DELETED;

  /**
   * The value of the record at {@code offset} if its key is {@code key}: its value, {@link
   * #DELETED} for a delete, or null when the record holds another key.
   *
   * @throws CorruptStoreException when the record is damaged (it is never served)
   */
  byte[] valueIfKey(long offset, byte[] key) throws IOException {
    return SiltRecords.valueIfKey(channel, offset, Long.MAX_VALUE, key, file, check);
  }

  /**
   * Forces the records written so far to the device, and checks that the directory still holds
   * them: a log deleted while open (its directory with it) or replaced takes every write and
   * force, and a sync that vouched for them would lose them all at the next open.
   */
  void force() throws IOException {
    channel.force(false);
    identity.check();
  }

  @Override
  public void close() throws IOException {
    channel.close();
  }

}
