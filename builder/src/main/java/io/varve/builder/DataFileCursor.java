package io.varve.builder;

import io.varve.core.format.CorruptStoreException;
import io.varve.core.store.RecordFormat;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;

/**
 * Reads the records of a data file's payload in file order (hash order), one sequential pass,
 * skipping the padding between them by their starts, and hashes each key. The starts come from
 * the writer's temporary list or a finished store's offsets; fixed-size records need none.
 * Subclasses check the file once the last record is read ({@link #finished()}). Not thread-safe.
 */
class DataFileCursor extends RecordCursor {
  /** The start of each record in turn, as a payload offset. */
  @FunctionalInterface
  interface Starts {
    long next() throws IOException;
  }

  private final InputStream payload;
  private final Starts starts;
  private final long count;
  private final int fixedKeyLength;
  private final int fixedValueLength;
  private final int pageBytes;
  private final RecordHasher hasher;
  private final Closeable resources;
  private final long[] hash = new long[2];
  private final byte[] header = new byte[RecordFormat.MAX_HEADER_LENGTH];
  private byte[] bytes = new byte[256];
  private long read;
  private long position;

  /**
   * @param payload the payload, positioned at its first byte; must support mark/reset
   * @param starts the records' starts, or null for fixed-size records
   * @param fixedKeyLength every key's length when {@code starts} is null
   * @param resources closed with the cursor
   */
  DataFileCursor(
      InputStream payload,
      long count,
      Starts starts,
      int fixedKeyLength,
      int fixedValueLength,
      int pageBytes,
      RecordHasher hasher,
      Closeable resources) {
    if (!payload.markSupported()) {
      throw new IllegalArgumentException("the payload stream must support mark/reset");
    }
    this.payload = payload;
    this.count = count;
    this.starts = starts;
    this.fixedKeyLength = fixedKeyLength;
    this.fixedValueLength = fixedValueLength;
    this.pageBytes = pageBytes;
    this.hasher = hasher;
    this.resources = resources;
  }

  /** The payload bytes consumed so far: the end of the last record read. */
  final long position() {
    return position;
  }

  /** The records read so far. */
  final long recordsRead() {
    return read;
  }

  /** Called once, when {@link #next()} finds no more records. */
  void finished() throws IOException {}

  @Override
  final boolean next() throws IOException {
    if (read == count) {
      if (read >= 0) {
        read = -1 - read;
        finished();
      }
      return false;
    }
    if (read < 0) {
      return false;
    }
    boolean fixed = starts == null;
    int fixedLength = fixedKeyLength + fixedValueLength;
    long start = fixed ? RecordFormat.fixedRecordOffset(read, fixedLength, pageBytes) : starts.next();
    CorruptStoreException.check(start >= position, "record " + read + " starts at " + start + ", before the end of the previous one");
    payload.skipNBytes(start - position);
    int length;
    if (fixed) {
      length = fixedLength;
      readRecordBytes(length);
      record.bytes = bytes;
      record.offset = 0;
      record.headerLength = 0;
      record.keyLength = fixedKeyLength;
      record.valueLength = fixedValueLength;
    } else {
      payload.mark(RecordFormat.MAX_HEADER_LENGTH);
      int got = payload.readNBytes(header, 0, header.length);
      payload.reset();
      long key = RecordFormat.decodeVarint(header, 0, got);
      long value = RecordFormat.decodeVarint(header, (int) (key >>> 32), got);
      long total = (key >>> 32) + (value >>> 32) + (int) key + (int) value;
      CorruptStoreException.check(total <= RecordFormat.MAX_LENGTH, "record " + read + " claims " + total + " bytes");
      length = (int) total;
      readRecordBytes(length);
      record.decode(bytes, 0);
    }
    position = start + length;
    hasher.hash(record.bytes, record.keyOffset(), record.keyLength, hash);
    hi = hash[0];
    lo = hash[1];
    read++;
    return true;
  }

  private void readRecordBytes(int length) throws IOException {
    if (bytes.length < length) {
      bytes = new byte[Math.max(length, 2 * bytes.length)];
    }
    int got = payload.readNBytes(bytes, 0, length);
    CorruptStoreException.check(got == length, "the data ends inside record " + read);
  }

  @Override
  public void close() throws IOException {
    resources.close();
  }
}
