package io.varve.builder;

import io.varve.core.format.CorruptStoreException;
import io.varve.core.store.RecordChecksum;
import io.varve.core.store.RecordFormat;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;

/**
 * Reads the records of a data file's payload in file order (hash order), one sequential pass,
 * skipping the padding between them by their starts, and hashes each key. The starts come from
 * the writer's temporary list or a finished store's offsets; fixed-size records need none. Reads
 * the payload in large blocks and points each record into the block, so records are not copied.
 * Subclasses check the file once the last record is read ({@link #finished()}). Not thread-safe.
 */
class DataFileCursor extends RecordCursor {
  /** The start of each record in turn, as a payload offset. */
  @FunctionalInterface
  interface Starts {
    /** Where record {@code rank} starts; the previous one ended at {@code previousEnd}. */
    long start(long rank, long previousEnd) throws IOException;
  }

  /** How messages name the data file. */
  private final String source;
  private final InputStream payload;
  private final Starts starts;
  private final long count;
  private final int fixedKeyLength;
  private final int fixedValueLength;
  private final int pageBytes;
  /** Bytes of the checksum after each record, checked as records are read; 0 when there is none. */
  private final RecordChecksum checksum;
  /** The data file's {@code recordCheckSalt}, added to every checked offset. */
  private final long salt;
  private final int checkBytes;
  private final RecordHasher hasher;
  private final Closeable resources;
  private final long[] hash = new long[2];
  /** Payload bytes {@code [bufferStart, bufferStart + limit)} are in {@code buffer[0, limit)}. */
  private byte[] buffer = new byte[1 << 20];
  private long bufferStart;
  private int limit;
  private boolean endOfInput;
  private long read;
  private long position;
  private long recordStart;

  /**
   * @param source how messages name the data file (its path, or an artifact's entry)
   * @param payload the payload, positioned at its first byte; read in large blocks
   * @param starts the records' starts, or null for fixed-size records
   * @param fixedKeyLength every key's length when {@code starts} is null
   * @param checksum the check after each record, {@link RecordChecksum#NONE} for none
   * @param salt the data file's {@code recordCheckSalt} (0 for none)
   * @param resources closed with the cursor
   */
  DataFileCursor(
      String source,
      InputStream payload,
      long count,
      Starts starts,
      int fixedKeyLength,
      int fixedValueLength,
      int pageBytes,
      RecordChecksum checksum,
      long salt,
      RecordHasher hasher,
      Closeable resources) {
    this.salt = salt;
    this.source = source;
    this.payload = payload;
    this.count = count;
    this.starts = starts;
    this.fixedKeyLength = fixedKeyLength;
    this.fixedValueLength = fixedValueLength;
    this.pageBytes = pageBytes;
    this.checksum = checksum;
    this.checkBytes = checksum.bytes();
    this.hasher = hasher;
    this.resources = resources;
  }

  /** The payload bytes consumed so far: the end of the last record read. */
  final long position() {
    return position;
  }

  /** Where the current record starts in the payload. */
  final long recordStart() {
    return recordStart;
  }

  /** Called once, when {@link #next()} finds no more records. */
  void finished() throws IOException {}

  /** Reads what is left of the payload, unparsed (to pass it through a checksum); false if none was. */
  final boolean drain() throws IOException {
    boolean any = bufferStart + limit > position;
    while (!endOfInput) {
      bufferStart += limit;
      limit = 0;
      fill(1);
      any |= limit > 0;
    }
    return any;
  }

  @Override
  final boolean next() throws IOException {
    if (read == count) {
      read = -1 - read;
      finished();
      return false;
    }
    if (read < 0) {
      return false;
    }
    boolean fixed = starts == null;
    int fixedLength = fixedKeyLength + fixedValueLength + checkBytes;
    // For fixed sizes this is RecordFormat.fixedRecordOffset(read, ...), without its divisions.
    long start = fixed ? RecordFormat.alignedStart(position, fixedLength, pageBytes) : starts.start(read, position);
    if (start < position) {
      throw new CorruptStoreException(source + ": record " + read + " starts at " + start + ", before the end of the previous one");
    }
    int length;
    if (fixed) {
      length = fixedLength;
      int at = ensure(start, length);
      record.bytes = buffer;
      record.offset = at;
      record.headerLength = 0;
      record.keyLength = fixedKeyLength;
      record.valueLength = fixedValueLength;
    } else {
      int at = ensure(start, RecordFormat.MAX_HEADER_LENGTH);
      int available = (int) Math.min(limit, at + (long) RecordFormat.MAX_HEADER_LENGTH);
      long key = RecordFormat.decodeVarint(buffer, at, available);
      long value = RecordFormat.decodeVarint(buffer, at + (int) (key >>> 32), available);
      long total = (key >>> 32) + (value >>> 32) + (int) key + (int) value + checkBytes;
      if (total > RecordFormat.MAX_LENGTH) {
        throw new CorruptStoreException(source + ": record " + read + " claims " + total + " bytes");
      }
      length = (int) total;
      at = ensure(start, length);
      record.decode(buffer, at);
    }
    if (checkBytes > 0) {
      int checkAt = record.offset + record.length();
      CorruptStoreException.check(
          checksum.of(buffer, record.offset, record.length(), start + salt) == RecordChecksum.read(buffer, checkAt),
          source + ": record " + read + " (at payload byte " + start + ") does not match its checksum (damaged)");
    }
    recordStart = start;
    position = start + length;
    hasher.hash(record.bytes, record.keyOffset(), record.keyLength, hash);
    hi = hash[0];
    lo = hash[1];
    read++;
    return true;
  }

  /**
   * Makes payload bytes {@code [start, start + length)} available in the buffer (fewer at the end
   * of the input, for a header near it) and returns where {@code start} is in it.
   */
  private int ensure(long start, int length) throws IOException {
    long end = start + length;
    if (end > bufferStart + limit) {
      if (start >= bufferStart + limit) {
        skipTo(start);
      } else {
        int keep = (int) (start - bufferStart);
        System.arraycopy(buffer, keep, buffer, 0, limit - keep);
        limit -= keep;
        bufferStart = start;
      }
      if (length > buffer.length) {
        buffer = java.util.Arrays.copyOf(buffer, Math.max(length, 2 * buffer.length));
      }
      fill(length);
      if (bufferStart + limit < end && length > RecordFormat.MAX_HEADER_LENGTH) {
        throw new CorruptStoreException(source + ": the data ends inside record " + read);
      }
      if (limit == 0 || start >= bufferStart + limit) {
        throw new CorruptStoreException(source + ": the data ends before record " + read);
      }
    }
    return (int) (start - bufferStart);
  }

  /** Empties the buffer and discards input up to payload offset {@code start}. */
  private void skipTo(long start) throws IOException {
    bufferStart += limit;
    limit = 0;
    while (bufferStart < start && !endOfInput) {
      // Read rather than skip: a checksummed stream must see every byte.
      int n = payload.read(buffer, 0, (int) Math.min(buffer.length, start - bufferStart));
      if (n < 0) {
        endOfInput = true;
      } else {
        bufferStart += n;
      }
    }
  }

  /** Reads until the buffer holds at least {@code wanted} bytes or the input ends. */
  private void fill(int wanted) throws IOException {
    while (limit < wanted && !endOfInput) {
      int n = payload.read(buffer, limit, buffer.length - limit);
      if (n < 0) {
        endOfInput = true;
      } else {
        limit += n;
      }
    }
  }

  @Override
  public void close() throws IOException {
    resources.close();
  }
}
