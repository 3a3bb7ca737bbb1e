package io.varve.silt;

import io.varve.core.cuckoo.CuckooTagFilter;
import io.varve.core.cuckoo.CuckooTagTable;
import io.varve.core.format.CorruptStoreException;
import io.varve.core.format.Envelope;
import io.varve.core.succinct.EliasFano;
import java.io.BufferedOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * SILT's HashStore (§3.2): a frozen log store rewritten as an immutable on-disk cuckoo table. Its
 * entries (the newest record of each key the log held, deletes included) lie in the table's slot
 * order, so memory keeps only the tags (a {@link CuckooTagFilter}, two bytes per slot) and where
 * each bucket's entries start (Elias-Fano, a few bits per bucket): a key's candidate slot says
 * which bucket's bytes to read, one read for most records.
 *
 * <pre>
 * HashStore := Header Entry* Trailer Footer
 * Header    := magic:int32 = 0x56534C48 ("VSLH") version:uint8 = 1 or 2 reserved:uint8[3]
 *              number:int64 buckets:int32 crc:int32   (crc: Check of the 20 bytes before)
 * Entry     := Record                                 (as in {@link SiltLog}, copied unchanged:
 *                                                      bucket 0's occupied slots in slot order,
 *                                                      then bucket 1's, ..., the stash's last)
 * Trailer   := tags:int16[4 × buckets + 1] bucketStart:int64[buckets + 2]
 *                                                     (bucketStart[b]: offset of bucket b's first
 *                                                      entry; b = buckets is the stash; the last is
 *                                                      the trailer's offset)
 * Footer    := trailerOffset:int64 crc:int32          (crc: Check of Trailer and trailerOffset)
 * </pre>
 *
 * Integers are big-endian. Check is the store's {@link SiltCheck} (version 2: salted with the store
 * id, so that another store's hash store fails its header and trailer checks; version 1: plain
 * CRC32C); the entries, copied from the log, carry the log's. Opening checks the header, the footer, the trailer's checksum, that the
 * bucket starts rise from the header's end to the trailer, and that a bucket's bytes can hold its
 * occupied slots; every entry is checked by its Check when read.
 *
 * <p>Immutable; thread-safe.
 */
final class HashStore extends Retained {
  static final int MAGIC = 0x56534C48;
  static final Envelope FORMAT = Envelope.builder("SILT hash store").magic(MAGIC).byteVersion().versions(1, 2).build();
  static final int HEADER_BYTES = 24;
  static final int FOOTER_BYTES = 12;

  /**
   * A bucket up to this size is read whole with one {@code pread}: one disk request, where reading
   * its first page and then the entries past it took two or three once records neared a kilobyte.
   */
  static final int MAX_BUCKET_READ = 64 << 10;
  private static final ThreadLocal<ByteBuffer[]> BUCKETS =
      ThreadLocal.withInitial(() -> new ByteBuffer[] {ByteBuffer.allocate(SiltRecords.READ_GUESS)});

  private final Path file;
  private final FileAccess channel;
  private final long number;
  private final SiltCheck check;
  private final CuckooTagFilter filter;
  private final EliasFano bucketStarts;
  private final int entries;

  private HashStore(Path file, FileAccess channel, long number, SiltCheck check, CuckooTagFilter filter, EliasFano bucketStarts, int entries) {
    this.file = file;
    this.channel = channel;
    this.number = number;
    this.check = check;
    this.filter = filter;
    this.bucketStarts = bucketStarts;
    this.entries = entries;
  }

  /**
   * Writes the hash store of the frozen {@code log} to {@code file} (which must not exist), forces
   * it, and opens it. The log is read once in order ({@link SlotOrderCopy}), holding up to
   * {@code memoryBytes} of records, the rest spilled to {@code scratch}. It is of the log's store:
   * its checks are the log's.
   */
  static HashStore convert(LogStore log, Path file, long number, Path scratch, long memoryBytes) throws IOException {
    CuckooTagTable table = log.table();
    SiltCheck check = log.check();
    int buckets = table.slotCount() / CuckooTagTable.WAYS;
    try (FileAccess in = FileAccess.open(log.file(), new java.nio.file.OpenOption[] {StandardOpenOption.READ}, StandardOpenOption.READ);
        FileChannel out = FileAccess.opener.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      DataOutputStream data = new DataOutputStream(new BufferedOutputStream(Channels.newOutputStream(out), 1 << 16));
      byte[] header = new byte[HEADER_BYTES];
      FORMAT.putHeader(header, 0, check.fileVersion());
      ByteBuffer.wrap(header).putLong(8, number).putInt(16, buckets).putInt(20, check.of(header, 0, 20));
      data.write(header);
      int[] lengths = SlotOrderCopy.copy(table, in, check, log.logBytes(), scratch, memoryBytes, data);
      long[] starts = new long[buckets + 2];
      long at = HEADER_BYTES;
      int rank = 0;
      for (int bucket = 0; bucket <= buckets; bucket++) {
        starts[bucket] = at;
        int first = bucket * CuckooTagTable.WAYS;
        int last = bucket == buckets ? first : first + CuckooTagTable.WAYS - 1;
        for (int slot = first; slot <= last; slot++) {
          if (table.tagAt(slot) != 0) {
            at += lengths[rank++];
          }
        }
      }
      starts[buckets + 1] = at;
      TrailerWriter trailer = new TrailerWriter(data, check);
      for (int slot = 0; slot <= table.slotCount(); slot++) {
        trailer.writeShort(table.tagAt(slot));
      }
      for (long start : starts) {
        trailer.writeLong(start);
      }
      trailer.writeLong(at);
      data.writeInt(trailer.crc());
      data.flush();
      out.force(true);
    } catch (IOException | RuntimeException e) {
      Files.deleteIfExists(file);
      throw e;
    }
    return open(file, number, check);
  }

  /** Writes through to the file while it checksums what it writes. */
  private static final class TrailerWriter {
    private final DataOutputStream out;
    private final java.util.zip.CRC32C crc;
    private final byte[] eight = new byte[8];

    TrailerWriter(DataOutputStream out, SiltCheck check) {
      this.out = out;
      this.crc = check.start();
    }

    void writeShort(short v) throws IOException {
      ByteBuffer.wrap(eight).putShort(0, v);
      write(2);
    }

    void writeLong(long v) throws IOException {
      ByteBuffer.wrap(eight).putLong(0, v);
      write(8);
    }

    private void write(int n) throws IOException {
      crc.update(eight, 0, n);
      out.write(eight, 0, n);
    }

    int crc() {
      return (int) crc.getValue();
    }
  }

  /**
   * Opens the hash store in {@code file}, checking its header against {@code number} and its
   * header and trailer against the store's {@code check} (another store's hash store fails them).
   *
   * @throws CorruptStoreException when it is damaged
   */
  static HashStore open(Path file, long number, SiltCheck check) throws IOException {
    FileAccess channel = FileAccess.open(file, new java.nio.file.OpenOption[] {StandardOpenOption.READ}, StandardOpenOption.READ);
    try {
      long size = channel.size();
      String source = file.toString();
      CorruptStoreException.check(size >= HEADER_BYTES + FOOTER_BYTES, source + ": a SILT hash store of " + size + " bytes");
      ByteBuffer header = ByteBuffer.allocate(HEADER_BYTES);
      channel.readFully(header, 0);
      FORMAT.checkHeader(header.duplicate().flip(), source);
      check.checkVersion(header.get(4), source);
      CorruptStoreException.check(check.of(header.array(), 0, 20) == header.getInt(20), source + ": " + check.damaged("the header"));
      long found = header.getLong(8);
      CorruptStoreException.check(found == number, source + ": hash store number " + found + " where the manifest names " + number);
      int buckets = header.getInt(16);
      CorruptStoreException.check(buckets > 0 && Integer.bitCount(buckets) == 1 && buckets <= 1 << 28, source + ": bad table size " + buckets);
      ByteBuffer footer = ByteBuffer.allocate(FOOTER_BYTES);
      channel.readFully(footer, size - FOOTER_BYTES);
      long trailerOffset = footer.getLong(0);
      long slots = (long) buckets * CuckooTagTable.WAYS + 1;
      long trailerBytes = 2 * slots + 8L * (buckets + 2);
      CorruptStoreException.check(trailerOffset >= HEADER_BYTES && trailerOffset + trailerBytes + FOOTER_BYTES == size,
          source + ": the trailer at " + trailerOffset + " does not end where the file does (" + size + " bytes)");
      ByteBuffer trailer = ByteBuffer.allocate((int) trailerBytes + 8);
      channel.readFully(trailer, trailerOffset);
      CorruptStoreException.check(!trailer.hasRemaining(), source + ": the trailer is cut short");
      CorruptStoreException.check(check.of(trailer.array(), 0, trailer.capacity()) == footer.getInt(8),
          source + ": " + check.damaged("the trailer"));
      trailer.flip();
      short[] tags = new short[(int) slots];
      int occupied = 0;
      for (int i = 0; i < tags.length; i++) {
        tags[i] = trailer.getShort();
        occupied += tags[i] != 0 ? 1 : 0;
      }
      EliasFano.Builder starts = EliasFano.builder(buckets + 2, trailerOffset);
      long previous = HEADER_BYTES;
      for (int b = 0; b < buckets + 2; b++) {
        long start = trailer.getLong();
        // The checks build their messages only on failure: they run for every bucket.
        if (start < previous || start > trailerOffset || (b == 0 && start != HEADER_BYTES)) {
          throw new CorruptStoreException(source + ": bucket " + b + " starts at " + start);
        }
        if (b > 0) {
          int slotsBefore = occupiedIn(tags, b - 1, buckets);
          if (start - previous < (long) slotsBefore * (SiltRecords.HEADER_BYTES + 2)) {
            throw new CorruptStoreException(source + ": bucket " + (b - 1) + " is too short for its entries");
          }
        }
        if (b == buckets + 1 && start != trailerOffset) {
          throw new CorruptStoreException(source + ": the entries do not end at the trailer");
        }
        starts.add(start);
        previous = start;
      }
      return new HashStore(file, channel, number, check, CuckooTagFilter.wrap(tags), starts.build(), occupied);
    } catch (IOException | RuntimeException e) {
      channel.close();
      throw e;
    }
  }

  private static int occupiedIn(short[] tags, int bucket, int buckets) {
    int first = bucket * CuckooTagTable.WAYS;
    int last = bucket == buckets ? first : first + CuckooTagTable.WAYS - 1;
    int n = 0;
    for (int slot = first; slot <= last; slot++) {
      n += tags[slot] != 0 ? 1 : 0;
    }
    return n;
  }

  long number() {
    return number;
  }

  Path file() {
    return file;
  }

  int entries() {
    return entries;
  }

  long ramBytesUsed() {
    return 64 + filter.ramBytesUsed() + bucketStarts.ramBytesUsed();
  }

  /**
   * What this store holds for {@code key}, whose hash is {@code (hi, lo)}: its value, {@link
   * SiltLog#DELETED}, or null.
   */
  byte[] get(byte[] key, long hi, long lo) {
    try {
      for (int slot = filter.firstCandidate(hi, lo); slot >= 0; slot = filter.nextCandidate(hi, lo, slot)) {
        byte[] value = valueIfKey(slot, key);
        if (value != null) {
          return value;
        }
      }
      return null;
    } catch (IOException e) {
      throw new UncheckedIOException("reading " + file, e);
    }
  }

  private byte[] valueIfKey(int slot, byte[] key) throws IOException {
    int bucket = slot / CuckooTagTable.WAYS;
    int before = 0;
    for (int s = bucket * CuckooTagTable.WAYS; s < slot; s++) {
      before += filter.tagAt(s) != 0 ? 1 : 0;
    }
    long start = bucketStarts.get(bucket);
    long end = bucketStarts.get(bucket + 1);
    // One read of the whole bucket (of its first 64 KiB when larger) finds the entry; the entries
    // before the slot's are skipped by their lengths.
    ByteBuffer page = bucketBuffer((int) Math.min(MAX_BUCKET_READ, end - start));
    channel.readFully(page, start);
    byte[] bytes = page.array();
    int loaded = page.position();
    long at = start;
    for (int i = 0; i <= before; i++) {
      if (end - at < SiltRecords.HEADER_BYTES) {
        throw new CorruptStoreException(file + ": bucket " + bucket + " holds fewer entries than its tags");
      }
      int length;
      if (at + SiltRecords.HEADER_BYTES <= start + loaded) {
        length = SiltRecords.checkedLength(bytes, (int) (at - start), loaded, at, file);
      } else {
        ByteBuffer head = ByteBuffer.allocate(SiltRecords.HEADER_BYTES);
        channel.readFully(head, at);
        length = SiltRecords.checkedLength(head.array(), 0, head.position(), at, file);
      }
      if (length > end - at - SiltRecords.HEADER_BYTES) {
        throw new CorruptStoreException(file + ": the entry at " + at + " overruns bucket " + bucket);
      }
      if (i == before) {
        return at + SiltRecords.HEADER_BYTES + length <= start + loaded
            ? SiltRecords.valueIfKey(bytes, (int) (at - start), length, key, at, file, check)
            : SiltRecords.valueIfKey(channel, at, end, key, file, check);
      }
      at += SiltRecords.HEADER_BYTES + length;
    }
    throw new AssertionError();
  }

  /** This thread's read buffer, grown to at least {@code bytes}, its limit set to them. */
  private static ByteBuffer bucketBuffer(int bytes) {
    ByteBuffer[] holder = BUCKETS.get();
    if (holder[0].capacity() < bytes) {
      holder[0] = ByteBuffer.allocate(Math.max(bytes, 2 * holder[0].capacity()));
    }
    ByteBuffer buffer = holder[0];
    buffer.clear();
    buffer.limit(bytes);
    return buffer;
  }

  /** Reads every entry in file order (for a merge: one per key, so their order does not matter). */
  void scan(SiltLog.Visitor visitor) throws IOException {
    long end = bucketStarts.get(bucketStarts.size() - 1);
    ReadWindow window = new ReadWindow(channel, end);
    long at = HEADER_BYTES;
    while (at < end) {
      if (end - at < SiltRecords.HEADER_BYTES) {
        throw new CorruptStoreException(file + ": the entry at " + at + " is cut short");
      }
      ByteBuffer head = window.at(at, SiltRecords.HEADER_BYTES);
      int length = head.getInt(head.position());
      if (length < 2 || length > end - at - SiltRecords.HEADER_BYTES) {
        throw new CorruptStoreException(file + ": the entry at " + at + " has length " + length);
      }
      ByteBuffer record = window.at(at, SiltRecords.HEADER_BYTES + length);
      SiltRecords.Parsed parsed = SiltRecords.parseChecked(record.array(), record.arrayOffset() + record.position(), length, at, file, check);
      visitor.record(at, parsed.key(), parsed.value());
      at += SiltRecords.HEADER_BYTES + length;
    }
  }

  @Override
  void released(boolean delete) throws IOException {
    channel.close();
    if (delete) {
      Files.deleteIfExists(file);
    }
  }

  @Override
  public String toString() {
    return "hash store " + file;
  }
}
