package io.varve.bufferhash;

import io.varve.core.files.InterruptSafeFile;
import io.varve.core.format.CorruptStoreException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.List;

/**
 * The buffers file: what the buffers held when the table was closed ({@link LogFormat} has the
 * layout), so that a clean close loses nothing and makes no small incarnations. Written whole under
 * a temporary name, forced, then renamed; read once on open and deleted. Stateless; thread-safe.
 */
final class BufferSnapshot {
  private static final int HEADER_BYTES = 20;

  private BufferSnapshot() {}

  /**
   * The state generation a buffers file was written for, or -1 if it is not a whole, valid buffers
   * file of the table of id {@code tableId} (its version and salted check).
   */
  static long generationOf(Path file, long tableId) throws IOException {
    byte[] bytes = WholeFile.read(file, "buffers file");
    int end = bytes.length - 4;
    if (end < HEADER_BYTES || !LogFormat.isSealed(tableId, bytes, 0, end) || !LogFormat.BUFFERS.isHeader(java.nio.ByteBuffer.wrap(bytes))
        || bytes[4] != LogFormat.structureVersion(tableId)) {
      return -1;
    }
    return LogFormat.getLong(bytes, 8);
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
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[] header = new byte[HEADER_BYTES];
    LogFormat.BUFFERS.putHeader(header, 0, LogFormat.structureVersion(tableId));
    LogFormat.putLong(header, 8, generation);
    LogFormat.putInt(header, 16, tables.length);
    out.write(header);
    byte[] word = new byte[8];
    for (SuperTable table : tables) {
      List<WriteBuffer> buffers = table.buffersOldestFirst();
      int count = 0;
      for (WriteBuffer buffer : buffers) {
        count += buffer.entryCount();
      }
      LogFormat.putInt(word, 0, table.id);
      LogFormat.putInt(word, 4, count);
      out.write(word);
      for (WriteBuffer buffer : buffers) {
        byte[] arena = buffer.arena();
        buffer.forEachEntry(offset -> out.write(arena, offset, WriteBuffer.entrySize(arena, offset)));
      }
    }
    out.write(new byte[LogFormat.BUFFERS.footerLength()]);
    byte[] bytes = out.toByteArray();
    int checksum = LogFormat.seal(tableId, bytes, 0, bytes.length - LogFormat.BUFFERS.footerLength());
    Path temporary = file.resolveSibling(file.getFileName() + ".tmp");
    // close() writes it, often on a thread being interrupted to shut down: its interrupt must not lose the buffers
    try (InterruptSafeFile channel = InterruptSafeFile.open(FileChannel::open, temporary,
        new OpenOption[] {StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE}, StandardOpenOption.WRITE)) {
      channel.writeFully(java.nio.ByteBuffer.wrap(bytes), 0);
      channel.force(true);
    }
    Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    Channels.forceDirectory(file.getParent()); // before the state names the file
    return checksum;
  }

  /**
   * Reads the file into {@code sink}; it must be of the table of id {@code tableId}, and have
   * checksum {@code expectedChecksum} unless that is -1.
   */
  static void read(Path file, int superTables, long tableId, long expectedChecksum, EntrySink sink) throws IOException {
    byte[] bytes = WholeFile.read(file, "buffers file");
    CorruptStoreException.check(bytes.length >= HEADER_BYTES + 4, file + ": " + bytes.length + " bytes, too short for a buffers file");
    int end = bytes.length - 4;
    int version = LogFormat.BUFFERS.checkHeader(bytes, file.toString());
    LogFormat.checkVersion(LogFormat.BUFFERS, version, tableId, file.toString());
    LogFormat.checkSealed(LogFormat.BUFFERS, tableId, bytes, 0, end, file.toString());
    CorruptStoreException.check(
        expectedChecksum < 0 || (LogFormat.getInt(bytes, end) & 0xFFFFFFFFL) == expectedChecksum,
        file + ": not the buffers file the state names (another checksum)");
    int tables = LogFormat.getInt(bytes, 16);
    CorruptStoreException.check(tables == superTables, file + ": written for " + tables + " super tables, the log has " + superTables);
    int at = HEADER_BYTES;
    for (int t = 0; t < superTables; t++) {
      CorruptStoreException.check(at + 8 <= end, file + ": ends inside super table " + t);
      CorruptStoreException.check(LogFormat.getInt(bytes, at) == t, file + ": super table " + LogFormat.getInt(bytes, at) + " where " + t + " belongs");
      int count = LogFormat.getInt(bytes, at + 4);
      CorruptStoreException.check(count >= 0, file + ": negative entry count");
      at += 8;
      for (int i = 0; i < count; i++) {
        int size = IncarnationCodec.checkedEntrySize(bytes, at, end, file.toString());
        sink.accept(t, WriteBuffer.key(bytes, at), WriteBuffer.value(bytes, at));
        at += size;
      }
    }
    CorruptStoreException.check(at == end, file + ": " + (end - at) + " bytes after the last super table");
  }
}
