package io.varve.bufferhash;

import io.varve.core.files.InterruptSafeFile;
import io.varve.core.format.CorruptStoreException;
import io.varve.core.format.SaltedCrc32c;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * The buffers file: what the buffers held when the table was closed ({@link LogFormat} has the
 * layout), so that a clean close loses nothing and makes no small incarnations. Written under a
 * temporary name a buffer at a time, forced, then renamed; read once on open, a window at a time,
 * and deleted. Stateless; thread-safe.
 */
final class BufferSnapshot {
  private static final int HEADER_BYTES = 20;
  /** Bytes the writer holds before it writes them: the file is as large as the buffers. */
  private static final int BUFFER_BYTES = 1 << 20;

  private BufferSnapshot() {}

  /**
   * The state generation a buffers file was written for, or -1 if it is not a whole, valid buffers
   * file of the table of id {@code tableId} (its version and salted check).
   */
  static long generationOf(Path file, long tableId) throws IOException {
    try (WholeFile buffers = WholeFile.open(file, "buffers file")) {
      int end = buffers.size() - 4;
      if (end < HEADER_BYTES) {
        return -1;
      }
      byte[] header = java.util.Arrays.copyOfRange(buffers.window(), buffers.at(0, HEADER_BYTES), HEADER_BYTES);
      if (!isSealed(buffers, tableId, end) || !LogFormat.BUFFERS.isHeader(java.nio.ByteBuffer.wrap(header))
          || header[4] != LogFormat.structureVersion(tableId)) {
        return -1;
      }
      return LogFormat.getLong(header, 8);
    }
  }

  /** Whether the file holds at {@code end} Check of the bytes before it. */
  private static boolean isSealed(WholeFile buffers, long tableId, int end) throws IOException {
    int check = buffers.check(tableId, 0, end);
    return LogFormat.getInt(buffers.window(), buffers.at(end, 4)) == check;
  }

  /** Receives each entry of the snapshot, oldest first within its super table. */
  interface EntrySink {
    /** {@code value} is null for a tombstone. */
    void accept(int superTable, byte[] key, byte[] value);
  }

  /**
   * Writes the buffers of {@code tables}, for the state write of {@code generation} to record;
   * returns the file's checksum (its last four bytes).
   */
  static int write(Path file, SuperTable[] tables, long generation, long tableId) throws IOException {
    Path temporary = file.resolveSibling(file.getFileName() + ".tmp");
    int checksum;
    // close() writes it, often on a thread being interrupted to shut down: its interrupt must not lose the buffers
    try (InterruptSafeFile channel = InterruptSafeFile.open(FileChannel::open, temporary,
        new OpenOption[] {StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE}, StandardOpenOption.WRITE)) {
      SealingWriter out = new SealingWriter(channel, tableId);
      byte[] header = new byte[HEADER_BYTES];
      LogFormat.BUFFERS.putHeader(header, 0, LogFormat.structureVersion(tableId));
      LogFormat.putLong(header, 8, generation);
      LogFormat.putInt(header, 16, tables.length);
      out.write(header, 0, HEADER_BYTES);
      byte[] word = new byte[8];
      for (SuperTable table : tables) {
        List<WriteBuffer> buffers = table.buffersOldestFirst();
        int count = 0;
        for (WriteBuffer buffer : buffers) {
          count += buffer.entryCount();
        }
        LogFormat.putInt(word, 0, table.id);
        LogFormat.putInt(word, 4, count);
        out.write(word, 0, word.length);
        for (WriteBuffer buffer : buffers) {
          byte[] arena = buffer.arena();
          buffer.forEachEntry(offset -> out.write(arena, offset, WriteBuffer.entrySize(arena, offset)));
        }
      }
      checksum = out.seal(LogFormat.BUFFERS.footerLength());
      channel.force(true);
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
    Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    Channels.forceDirectory(file.getParent()); // before the state names the file
    return checksum;
  }

  /**
   * Writes a file through a buffer of {@link #BUFFER_BYTES} and checks what it writes on the way:
   * the buffers file was built whole in a growing array first, two to three times the buffers'
   * bytes at its peak, and a close with buffers taking most of the heap died with an {@link
   * OutOfMemoryError}. Its layout puts nothing that depends on the entries before them, so one pass
   * writes it.
   */
  private static final class SealingWriter {
    private final InterruptSafeFile channel;
    private final CRC32C crc;
    private final byte[] buffer = new byte[BUFFER_BYTES];
    private int buffered;
    private long position;

    SealingWriter(InterruptSafeFile channel, long tableId) {
      this.channel = channel;
      this.crc = SaltedCrc32c.start(tableId);
    }

    /** Writes {@code bytes[from, from + length)}; an {@link IOException} is thrown unchecked (from a visitor). */
    void write(byte[] bytes, int from, int length) {
      while (length > 0) {
        if (buffered == buffer.length) {
          flush();
        }
        int n = Math.min(length, buffer.length - buffered);
        System.arraycopy(bytes, from, buffer, buffered, n);
        buffered += n;
        from += n;
        length -= n;
      }
    }

    /**
     * Writes the footer of {@code footerBytes}, Check(every byte written before) first, as {@link
     * LogFormat#seal} puts it, and the rest zero; returns the check.
     */
    int seal(int footerBytes) {
      flush();
      int check = (int) crc.getValue();
      byte[] footer = new byte[footerBytes];
      LogFormat.putInt(footer, 0, check);
      write(footer, 0, footerBytes);
      flush();
      return check;
    }

    private void flush() {
      crc.update(buffer, 0, buffered);
      try {
        channel.writeFully(ByteBuffer.wrap(buffer, 0, buffered), position);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      position += buffered;
      buffered = 0;
    }
  }

  /**
   * Reads the file into {@code sink}; it must be of the table of id {@code tableId}, and have
   * checksum {@code expectedChecksum} unless that is -1.
   */
  static void read(Path file, int superTables, long tableId, long expectedChecksum, EntrySink sink) throws IOException {
    try (WholeFile buffers = WholeFile.open(file, "buffers file")) {
      read(buffers, file, superTables, tableId, expectedChecksum, sink);
    }
  }

  /** Reads the file a window at a time: it holds every buffer of the table, and may be larger than the heap. */
  private static void read(WholeFile buffers, Path file, int superTables, long tableId, long expectedChecksum, EntrySink sink) throws IOException {
    int size = buffers.size();
    CorruptStoreException.check(size >= HEADER_BYTES + 4, file + ": " + size + " bytes, too short for a buffers file");
    int end = size - 4;
    byte[] header = java.util.Arrays.copyOfRange(buffers.window(), buffers.at(0, HEADER_BYTES), HEADER_BYTES);
    int version = LogFormat.BUFFERS.checkHeader(header, file.toString());
    LogFormat.checkVersion(LogFormat.BUFFERS, version, tableId, file.toString());
    // Every byte is checked before the first entry is handed over: a damaged file gives none.
    if (!isSealed(buffers, tableId, end)) {
      throw LogFormat.sealMismatch(LogFormat.BUFFERS, tableId, file.toString());
    }
    int checksum = LogFormat.getInt(buffers.window(), buffers.at(end, 4));
    CorruptStoreException.check(
        expectedChecksum < 0 || (checksum & 0xFFFFFFFFL) == expectedChecksum,
        file + ": not the buffers file the state names (another checksum)");
    int tables = LogFormat.getInt(header, 16);
    CorruptStoreException.check(tables == superTables, file + ": written for " + tables + " super tables, the log has " + superTables);
    int at = HEADER_BYTES;
    for (int t = 0; t < superTables; t++) {
      CorruptStoreException.check(at + 8 <= end, file + ": ends inside super table " + t);
      int word = buffers.at(at, 8);
      int table = LogFormat.getInt(buffers.window(), word);
      CorruptStoreException.check(table == t, file + ": super table " + table + " where " + t + " belongs");
      int count = LogFormat.getInt(buffers.window(), word + 4);
      CorruptStoreException.check(count >= 0, file + ": negative entry count");
      at += 8;
      for (int i = 0; i < count; i++) {
        at += readEntry(buffers, file, at, end, t, sink);
      }
    }
    CorruptStoreException.check(at == end, file + ": " + (end - at) + " bytes after the last super table");
  }

  /** Hands the entry at {@code at} to {@code sink}; returns its size. */
  private static int readEntry(WholeFile buffers, Path file, int at, int end, int superTable, EntrySink sink) throws IOException {
    CorruptStoreException.check(at < end, file + ": entry at offset " + at + " runs past its unit");
    int prefix = Math.min(end - at, 10); // the two varints
    int from = buffers.at(at, prefix);
    byte[] window = buffers.window();
    long keyLength = LogFormat.getVarint(window, from, from + prefix);
    long valueCode = keyLength < 0 ? -1 : LogFormat.getVarint(window, (int) (keyLength >>> 32), from + prefix);
    CorruptStoreException.check(valueCode >= 0, file + ": malformed entry at offset " + at);
    int code = (int) valueCode;
    long size = (valueCode >>> 32) - from + (keyLength & 0xFFFFFFFFL) + (code == 0 ? 0 : code - 1L);
    CorruptStoreException.check(at + size <= end, file + ": entry at offset " + at + " runs past its unit");
    byte[] bytes;
    int offset;
    if (size <= WholeFile.WINDOW_BYTES) {
      offset = buffers.at(at, (int) size);
      bytes = buffers.window();
    } else {
      offset = 0;
      bytes = buffers.read(at, (int) size, 2, "an entry of " + size + " bytes");
    }
    sink.accept(superTable, WriteBuffer.key(bytes, offset), WriteBuffer.value(bytes, offset));
    return (int) size;
  }
}
