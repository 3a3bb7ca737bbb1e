package io.varve.builder;

import io.varve.core.store.RecordFormat;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A temporary file of records in hash order, spilled by the builder and read back by the merge.
 * Private to one build, so it has no header or checksum:
 *
 * <pre>
 * Run := (hi:int64 lo:int64 Record)*     (big-endian; Record as in RecordFormat)
 * </pre>
 *
 * Immutable once written; {@link #open} gives each reader its own cursor.
 */
final class SortedRun {
  private static final VarHandle LONG_BE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
  private static final int HASH_BYTES = 16;

  final Path path;
  final long records;
  final long bytes;

  private SortedRun(Path path, long records, long bytes) {
    this.path = path;
    this.records = records;
    this.bytes = bytes;
  }

  /** Writes all of {@code source} to a new run file at {@code path}. */
  static SortedRun write(Path path, SortedRecords source) throws IOException {
    byte[] buffer = new byte[1 << 20];
    int used = 0;
    long records = 0;
    long total = 0;
    try (FileChannel out = FileChannel.open(path, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      while (source.next()) {
        RecordSlice r = source.record;
        int length = HASH_BYTES + r.length();
        if (used + length > buffer.length) {
          total += flush(out, buffer, used);
          used = 0;
          if (length > buffer.length) {
            buffer = new byte[length];
          }
        }
        LONG_BE.set(buffer, used, source.hi);
        LONG_BE.set(buffer, used + 8, source.lo);
        System.arraycopy(r.bytes, r.offset, buffer, used + HASH_BYTES, r.length());
        used += length;
        records++;
      }
      total += flush(out, buffer, used);
    }
    return new SortedRun(path, records, total);
  }

  private static int flush(FileChannel out, byte[] buffer, int used) throws IOException {
    ByteBuffer bytes = ByteBuffer.wrap(buffer, 0, used);
    while (bytes.hasRemaining()) {
      out.write(bytes);
    }
    return used;
  }

  /** A cursor over the run reading through a buffer of {@code bufferBytes}. */
  SortedRecords open(int bufferBytes) throws IOException {
    return new Cursor(FileChannel.open(path, StandardOpenOption.READ), bufferBytes);
  }

  void delete() throws IOException {
    Files.deleteIfExists(path);
  }

  private static final class Cursor extends SortedRecords {
    private final FileChannel channel;
    private byte[] buffer;
    private int start;
    private int end;
    private boolean eof;

    Cursor(FileChannel channel, int bufferBytes) {
      this.channel = channel;
      this.buffer = new byte[Math.max(bufferBytes, HASH_BYTES + RecordFormat.MAX_HEADER_LENGTH)];
    }

    @Override
    boolean next() throws IOException {
      if (!ensure(HASH_BYTES + 2)) {
        if (start != end) {
          throw new IOException("run file " + this + " ends inside a record");
        }
        return false;
      }
      ensure(HASH_BYTES + RecordFormat.MAX_HEADER_LENGTH);
      hi = (long) LONG_BE.get(buffer, start);
      lo = (long) LONG_BE.get(buffer, start + 8);
      record.decode(buffer, start + HASH_BYTES);
      int length = HASH_BYTES + record.length();
      if (!ensure(length)) {
        throw new IOException("run file ends inside a record");
      }
      record.decode(buffer, start + HASH_BYTES);
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
