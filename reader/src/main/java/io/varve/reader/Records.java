package io.varve.reader;

import io.varve.core.format.CorruptStoreException;
import io.varve.core.store.PageTable;
import io.varve.core.store.RecordBlocks;
import io.varve.core.store.RecordChecksum;
import io.varve.core.store.RecordFormat;
import io.varve.core.store.StoreMeta;
import io.varve.core.succinct.EliasFano;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * A store's records as its data file lays them out: where record {@code rank} starts, its key and
 * value lengths, and its checksum. One of four layouts, chosen when the store opens: {@link Fixed}
 * (every record of one size, its place computed), {@link WithOffsets} (variable-size records found
 * through Elias-Fano offsets), {@link InBlocks} (variable-size records of a sparse store, found
 * by walking their block) and {@link PagedRecords} (records packed into frames, found through each
 * frame's head). Positions are absolute in the data file; every position a method
 * returns has been checked to lie, with its whole record, inside the data.
 *
 * <p>A record's lengths travel as one long, {@code keyLength << 32 | valueLength}, so that no
 * lookup allocates. Thread-safe (immutable).
 */
abstract sealed class Records permits Records.Fixed, Records.Variable {
  static final VarHandle LITTLE_ENDIAN_LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  /**
   * Records this large or larger are copied in one bulk copy; shorter ones word by word, which is
   * faster for them. A record of 1 KiB was looked up 1.4 times faster with the bulk copy.
   */
  static final int BULK_COPY_BYTES = 64;

  final RecordMemory data;
  final DataFaults faults;
  /** Where the payload starts in the data file. */
  final long dataStart;
  final long dataBytes;
  final long recordCount;
  final int pageBytes;
  /** The check after each record ({@link RecordChecksum#NONE} in stores without). */
  final RecordChecksum checksum;
  /** The store's {@code recordCheckSalt}, added to every checked offset (0 in stores without). */
  final long salt;
  /** Bytes of the checksum after each record, 0 in stores without. */
  final int checkBytes;

  private Records(RecordMemory data, DataFaults faults, long dataStart, StoreMeta meta) {
    this.data = data;
    this.faults = faults;
    this.dataStart = dataStart;
    this.dataBytes = meta.dataBytes();
    this.recordCount = meta.recordCount();
    this.pageBytes = meta.pageBytes();
    this.checksum = meta.recordChecksum();
    this.salt = meta.recordCheckSalt();
    this.checkBytes = meta.checkBytes();
  }

  /**
   * The layout of the store {@code meta} describes; {@code offsets}, {@code blocks} or {@code pages}
   * as it has them.
   */
  static Records of(
      RecordMemory data, DataFaults faults, long dataStart, StoreMeta meta, EliasFano offsets, RecordBlocks blocks, PageTable pages) {
    if (meta.fixedRecordLength() >= 0) {
      return new Fixed(data, faults, dataStart, meta);
    }
    if (pages != null) {
      return new PagedRecords(data, faults, dataStart, meta, pages);
    }
    return blocks != null ? new InBlocks(data, faults, dataStart, meta, blocks) : new WithOffsets(data, faults, dataStart, meta, offsets);
  }

  /** The file position where record {@code rank} starts (its header, or its key when fixed-size). */
  abstract long start(long rank);

  /**
   * The start of record {@code rank} when walking all records in order and the previous one ended
   * at {@code previousEnd}: without a search where finding a start costs one.
   */
  long nextStart(long rank, long previousEnd) {
    return start(rank);
  }

  /** The lengths of the record at {@code position}, checked to lie inside the data. */
  abstract long lengthsAt(long position);

  /** Where the key of the record at {@code position} (of {@code lengths}) starts. */
  abstract long keyStart(long position, long lengths);

  /**
   * The lengths of the record copied to {@code block[p]} as {@link #lengthsAt} gives them, or -1
   * unless the whole record lies in {@code block[0, span)}.
   */
  abstract long lengthsIn(byte[] block, int p, int span);

  /** Bytes before the key in a record of {@code lengths}. */
  abstract int headerLength(long lengths);

  static int keyLength(long lengths) {
    return (int) (lengths >>> 32);
  }

  static int valueLength(long lengths) {
    return (int) lengths;
  }

  /** Where the record at {@code position} (of {@code lengths}) ends, its checksum included. */
  final long end(long position, long lengths) {
    return keyStart(position, lengths) + keyLength(lengths) + valueLength(lengths) + checkBytes;
  }

  /** {@code position}, once the record there is checked ({@link #check}). */
  final long checked(long position) {
    check(position, lengthsAt(position));
    return position;
  }

  /**
   * Throws {@link CorruptStoreException} unless the record at {@code position} (of {@code
   * lengths}) matches the checksum that follows it. The record is checked in this thread's {@link
   * RecordCopy}, which then holds it for the reads that follow; a record too large to copy, or one
   * of a store without checksums, is read in the mapping, and its reads are settled here ({@link
   * DataFaults#settleReads}).
   */
  final void check(long position, long lengths) {
    if (copyChecked(position, lengths) == null) {
      checkInMapping(position, lengths);
      faults.settleReads();
    }
  }

  /**
   * The record at {@code position} (of {@code lengths}, as read from the mapping) copied into this
   * thread's {@link RecordCopy} and checked there: its header must give the same lengths and its
   * bytes must match their checksum. Null, with nothing copied, in a store without checksums or
   * for a record of {@link RecordCopy#LIMIT} bytes or more.
   */
  final RecordCopy copyChecked(long position, long lengths) {
    return copyChecked(position, lengths, RecordCopy.ofThisThread());
  }

  /** {@link #copyChecked(long, long)} into {@code copy}, this thread's. */
  final RecordCopy copyChecked(long position, long lengths, RecordCopy copy) {
    if (checkBytes == 0) {
      return null;
    }
    long size = end(position, lengths) - position;
    if (size >= RecordCopy.LIMIT) {
      return null;
    }
    byte[] bytes = copy.room((int) size + Long.BYTES);
    if (size >= BULK_COPY_BYTES) {
      data.read(position, bytes, 0, (int) size);
    } else {
      // The last word may reach up to seven bytes past the record, which the file always holds (see
      // WithOffsets#start).
      for (int i = 0; i < size; i += Long.BYTES) {
        LITTLE_ENDIAN_LONG.set(bytes, i, data.readLittleEndianLong(position + i));
      }
    }
    int header = headerLength(lengths);
    int checkAt = (int) size - checkBytes;
    if ((header > 0 && lengthsOfHeader(bytes, checkAt) != lengths)
        || checksum.of(bytes, 0, checkAt, position - dataStart + salt) != RecordChecksum.read(bytes, checkAt)) {
      throw faults.damagedRecord(position);
    }
    copy.hold(this, position, lengths, header);
    return copy;
  }

  /**
   * Keeps the checked record copied at {@code block[p, p + size)} (a block a search copied) in
   * {@code copy}, this thread's, as the record at {@code position}.
   */
  final void holdCopy(byte[] block, int p, int size, long position, long lengths, RecordCopy copy) {
    System.arraycopy(block, p, copy.room(size), 0, size);
    copy.hold(this, position, lengths, headerLength(lengths));
  }

  /** The lengths in the variable-size header at {@code bytes[0, limit)}, or -1 when it is not one. */
  private static long lengthsOfHeader(byte[] bytes, int limit) {
    long key = decodeVarint(bytes, 0, limit);
    if (key < 0) {
      return -1;
    }
    long value = decodeVarint(bytes, (int) (key >>> 32), limit);
    return value < 0 ? -1 : (key & 0xFFFF_FFFFL) << 32 | (value & 0xFFFF_FFFFL);
  }

  /** {@link RecordFormat#decodeVarint} that answers -1 instead of throwing. */
  private static long decodeVarint(byte[] bytes, int position, int limit) {
    long value = 0;
    for (int i = 0; i < 5 && position + i < limit; i++) {
      int b = bytes[position + i] & 0xFF;
      value |= (long) (b & 0x7F) << (7 * i);
      if (b < 0x80) {
        return value > Integer.MAX_VALUE ? -1 : (long) (i + 1) << 32 | value;
      }
    }
    return -1;
  }

  /** {@link #check} of the record where it lies in the mapping. */
  private void checkInMapping(long position, long lengths) {
    if (checkBytes == 0) {
      return;
    }
    long checkAt = keyStart(position, lengths) + keyLength(lengths) + valueLength(lengths);
    if (data.checksum(position, checkAt - position, position - dataStart + salt, checksum) != data.readLittleEndianInt(checkAt)) {
      throw faults.damagedRecord(position);
    }
  }

  /** {@link #check} for a record copied to {@code block[p, checkAt)}, found at {@code position}. */
  final void checkCopy(byte[] block, int p, int checkAt, long position) {
    if (checkBytes > 0 && checksum.of(block, p, checkAt - p, position - dataStart + salt) != RecordChecksum.read(block, checkAt)) {
      throw faults.damagedRecord(position);
    }
  }

  final boolean keyEquals(long position, long lengths, byte[] key, int offset, int length) {
    if (keyLength(lengths) != length) {
      return false;
    }
    long start = keyStart(position, lengths);
    int i = 0;
    for (; i + 8 <= length; i += 8) {
      if (data.readLittleEndianLong(start + i) != (long) LITTLE_ENDIAN_LONG.get(key, offset + i)) {
        return false;
      }
    }
    for (; i < length; i++) {
      if (data.readByte(start + i) != key[offset + i]) {
        return false;
      }
    }
    return true;
  }

  /** The stored key of the record at {@code position} as a little-endian number (a signature). */
  final long storedKeyAsLong(long position, long lengths) {
    long start = keyStart(position, lengths);
    long signature = 0;
    for (int i = 0; i < keyLength(lengths); i++) {
      signature |= (data.readByte(start + i) & 0xFFL) << (8 * i);
    }
    return signature;
  }

  /** The key of the checked record at {@code position} ({@link #check}). */
  final byte[] keyBytes(long position) {
    RecordCopy copy = RecordCopy.ofThisThread();
    if (copy.holds(this, position)) {
      return Arrays.copyOfRange(copy.bytes, copy.keyStart(), copy.valueStart());
    }
    long lengths = settledLengthsAt(position);
    byte[] key = new byte[keyLength(lengths)];
    data.read(keyStart(position, lengths), key, 0, key.length);
    faults.settleReads();
    return key;
  }

  /** The value of the checked record at {@code position} ({@link #check}). */
  final byte[] valueBytes(long position) {
    return valueBytes(position, RecordCopy.ofThisThread());
  }

  /** {@link #valueBytes(long)} with this thread's {@code copy}. */
  final byte[] valueBytes(long position, RecordCopy copy) {
    if (copy.holds(this, position)) {
      int from = copy.valueStart();
      return Arrays.copyOfRange(copy.bytes, from, from + valueLength(copy.lengths));
    }
    long lengths = settledLengthsAt(position);
    byte[] value = new byte[valueLength(lengths)];
    data.read(keyStart(position, lengths) + keyLength(lengths), value, 0, value.length);
    faults.settleReads();
    return value;
  }

  /**
   * Copies the value of the checked record at {@code position} to {@code target[offset]} when it
   * fits there; returns its length either way. {@code copy} is this thread's.
   */
  final int copyValue(long position, byte[] target, int offset, RecordCopy copy) {
    if (copy.holds(this, position)) {
      int length = valueLength(copy.lengths);
      if (length <= target.length - offset) {
        System.arraycopy(copy.bytes, copy.valueStart(), target, offset, length);
      }
      return length;
    }
    long lengths = settledLengthsAt(position);
    int length = valueLength(lengths);
    if (length <= target.length - offset) {
      data.read(keyStart(position, lengths) + keyLength(lengths), target, offset, length);
      faults.settleReads();
    }
    return length;
  }

  /** {@link #lengthsAt}, settled before anything is sized by them (a record not in the thread's copy). */
  private long settledLengthsAt(long position) {
    long lengths = lengthsAt(position);
    faults.settleReads();
    return lengths;
  }

  /** Records of one size, {@code RecordFormat#fixedRecordOffset} apart: nothing to read to find one. */
  static final class Fixed extends Records {
    private final int keyLength;
    private final int valueLength;
    /** Bytes of each record, its checksum included. */
    private final int recordLength;

    private Fixed(RecordMemory data, DataFaults faults, long dataStart, StoreMeta meta) {
      super(data, faults, dataStart, meta);
      this.keyLength = meta.keyLength();
      this.valueLength = meta.valueLength();
      this.recordLength = meta.fixedRecordLength();
    }

    int recordLength() {
      return recordLength;
    }

    @Override
    long start(long rank) {
      return dataStart + RecordFormat.fixedRecordOffset(rank, recordLength, pageBytes);
    }

    @Override
    long lengthsAt(long position) {
      return (long) keyLength << 32 | valueLength;
    }

    @Override
    long keyStart(long position, long lengths) {
      return position;
    }

    @Override
    long lengthsIn(byte[] block, int p, int span) {
      return p + recordLength <= span ? (long) keyLength << 32 | valueLength : -1;
    }

    @Override
    int headerLength(long lengths) {
      return 0;
    }
  }

  /** Records of any size, each behind a header of two varints (key and value length). */
  abstract static sealed class Variable extends Records permits WithOffsets, InBlocks, PagedRecords {
    Variable(RecordMemory data, DataFaults faults, long dataStart, StoreMeta meta) {
      super(data, faults, dataStart, meta);
    }

    @Override
    final long lengthsAt(long position) {
      long decoded = RecordFormat.decodeShortHeader(data.readLittleEndianLong(position));
      long keyLength;
      long valueLength;
      if (decoded >= 0) {
        keyLength = RecordFormat.shortKeyLength(decoded);
        valueLength = RecordFormat.shortValueLength(decoded);
      } else {
        byte[] header = new byte[RecordFormat.MAX_HEADER_LENGTH];
        int available = (int) Math.min(header.length, dataStart + dataBytes - position);
        data.read(position, header, 0, available);
        long key = RecordFormat.decodeVarint(header, 0, available);
        long value = RecordFormat.decodeVarint(header, (int) (key >>> 32), available);
        keyLength = (int) key;
        valueLength = (int) value;
      }
      if (position + RecordFormat.headerLength((int) keyLength, (int) valueLength) + keyLength + valueLength + checkBytes
          > dataStart + dataBytes) {
        throw faults.damaged("the record at byte " + position + " runs past the end of the data");
      }
      return keyLength << 32 | valueLength;
    }

    @Override
    final long keyStart(long position, long lengths) {
      return position + RecordFormat.headerLength(keyLength(lengths), valueLength(lengths));
    }

    @Override
    final long lengthsIn(byte[] block, int p, int span) {
      if (p + Long.BYTES > span) {
        return -1;
      }
      long decoded = RecordFormat.decodeShortHeader((long) LITTLE_ENDIAN_LONG.get(block, p));
      if (decoded < 0) {
        return -1;
      }
      long keyLength = RecordFormat.shortKeyLength(decoded);
      long valueLength = RecordFormat.shortValueLength(decoded);
      int header = RecordFormat.shortHeaderLength(decoded);
      return p + header + keyLength + valueLength + checkBytes <= span ? keyLength << 32 | valueLength : -1;
    }

    @Override
    final int headerLength(long lengths) {
      return RecordFormat.headerLength(keyLength(lengths), valueLength(lengths));
    }
  }

  /** Variable-size records whose starts the offsets hold. */
  static final class WithOffsets extends Variable {
    private final EliasFano offsets;

    private WithOffsets(RecordMemory data, DataFaults faults, long dataStart, StoreMeta meta, EliasFano offsets) {
      super(data, faults, dataStart, meta);
      this.offsets = offsets;
    }

    EliasFano offsets() {
      return offsets;
    }

    @Override
    long start(long rank) {
      long offset = offsets.get(rank);
      // A header read takes eight bytes from here: the footer keeps them inside the file.
      if (offset < 0 || offset >= dataBytes) {
        throw faults.damaged("offset " + offset + " of record " + rank + " lies outside the data");
      }
      return dataStart + offset;
    }
  }

  /** Variable-size records of a sparse store: only the first record of each block has a known start. */
  static final class InBlocks extends Variable {
    private final RecordBlocks blocks;

    private InBlocks(RecordMemory data, DataFaults faults, long dataStart, StoreMeta meta, RecordBlocks blocks) {
      super(data, faults, dataStart, meta);
      this.blocks = blocks;
    }

    @Override
    long start(long rank) {
      long b = blocks.blockOf(rank);
      long position = dataStart + blocks.firstStart(b);
      // Each record walked past is checked: a damaged one could end elsewhere and land the walk on
      // an intact record of another rank.
      for (long r = blocks.firstRank(b); r < rank; r++) {
        long lengths = lengthsAt(position);
        check(position, lengths);
        position = end(position, lengths);
      }
      return position;
    }

    @Override
    long nextStart(long rank, long previousEnd) {
      long b = blocks.blockOf(rank);
      return blocks.firstRank(b) == rank ? dataStart + blocks.firstStart(b) : previousEnd;
    }
  }
}
