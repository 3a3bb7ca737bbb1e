package io.varve.builder;

import io.varve.core.store.RecordFormat;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A temporary file of records, written by one build and read back by it. Private to the build, so
 * it has no header or checksum:
 *
 * <pre>
 * SpillFile := Record*     (Record as in RecordFormat)
 * </pre>
 *
 * Records are appended in input order; {@link #read} returns them in file order with their hashes
 * computed again: hashing a key is cheaper than writing and reading 16 more bytes per record
 * through the page cache, whose dirty pages the kernel would otherwise write to disk.
 */
final class SpillFile {
  private SpillFile() {}

  /** Appends records to a spill file through a buffer. Not thread-safe. */
  static final class Writer implements Closeable {
    private final Path path;
    private final FileChannel channel;
    private byte[] buffer;
    private int used;
    private long records;
    private boolean closed;

    Writer(Path path, int bufferBytes) throws IOException {
      this.path = path;
      try {
        this.channel = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
      } catch (IOException e) {
        throw FullDisk.named(e, path);
      }
      this.buffer = new byte[bufferBytes];
    }

    /** Appends {@code record} (its hash, recomputed on reading, is not stored). */
    void append(long hi, long lo, RecordSlice record) throws IOException {
      int length = record.length();
      if (used + length > buffer.length) {
        flush();
        if (length > buffer.length) {
          buffer = new byte[length];
        }
      }
      System.arraycopy(record.bytes, record.offset, buffer, used, length);
      used += length;
      records++;
    }

    /** Records appended so far. */
    long records() {
      return records;
    }

    Path path() {
      return path;
    }

    void flush() throws IOException {
      ByteBuffer bytes = ByteBuffer.wrap(buffer, 0, used);
      try {
        while (bytes.hasRemaining()) {
          channel.write(bytes);
        }
      } catch (IOException e) {
        throw FullDisk.named(e, path); // a full disk names no file: say which directory
      }
      used = 0;
    }

    @Override
    public void close() throws IOException {
      if (closed) {
        return;
      }
      closed = true;
      try {
        flush();
      } finally {
        try {
          channel.close();
        } catch (IOException e) {
          throw FullDisk.named(e, path);
        }
      }
    }
  }

  /**
   * A cursor over the records of {@code path} in file order, reading through a buffer, with hashes
   * by {@code hasher} (the one they were partitioned by).
   */
  static RecordCursor read(Path path, int bufferBytes, RecordHasher hasher) throws IOException {
    return new Cursor(FileChannel.open(path, StandardOpenOption.READ), bufferBytes, path, hasher);
  }

  private static final class Cursor extends RecordCursor {
    private final FileChannel channel;
    private final Path path;
    private final RecordHasher hasher;
    private final long[] hash = new long[2];
    private byte[] buffer;
    private int start;
    private int end;
    private boolean eof;

    Cursor(FileChannel channel, int bufferBytes, Path path, RecordHasher hasher) {
      this.channel = channel;
      this.path = path;
      this.hasher = hasher;
      this.buffer = new byte[Math.max(bufferBytes, RecordFormat.MAX_HEADER_LENGTH)];
    }

    @Override
    boolean next() throws IOException {
      if (!ensure(2)) {
        if (start != end) {
          throw new IOException(path + ": spill file ends inside a record");
        }
        return false;
      }
      ensure(RecordFormat.MAX_HEADER_LENGTH);
      record.decode(buffer, start);
      int length = record.length();
      if (end - start < length) {
        if (!ensure(length)) {
          throw new IOException(path + ": spill file ends inside a record");
        }
        record.decode(buffer, start);
      }
      hasher.hash(buffer, record.keyOffset(), record.keyLength, hash);
      hi = hash[0];
      lo = hash[1];
      start += length;
      return true;
    }

    /** Makes at least {@code n} bytes available from {@code start}; false at end of file. */
    private boolean ensure(int n) throws IOException {
      if (end - start >= n) {
        return true;
      }
      if (n > buffer.length) {
        byte[] larger = new byte[n];
        System.arraycopy(buffer, start, larger, 0, end - start);
        buffer = larger;
      } else {
        System.arraycopy(buffer, start, buffer, 0, end - start);
      }
      end -= start;
      start = 0;
      while (end < n && !eof) {
        int read = channel.read(ByteBuffer.wrap(buffer, end, buffer.length - end));
        if (read < 0) {
          eof = true;
        } else {
          end += read;
        }
      }
      return end - start >= n;
    }

    @Override
    public void close() throws IOException {
      channel.close();
    }
  }
}
