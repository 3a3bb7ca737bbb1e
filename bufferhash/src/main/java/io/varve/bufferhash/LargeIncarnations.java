package io.varve.bufferhash;

import static io.varve.bufferhash.LogFormat.PAGE_BYTES;
import static io.varve.bufferhash.LogFormat.UNIT_FOOTER_BYTES;
import static io.varve.bufferhash.LogFormat.UNIT_HEADER_BYTES;

import io.varve.core.files.InterruptSafeFile;
import io.varve.core.format.CorruptStoreException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * Checks the units of an incarnation that claims many pages a chunk at a time, before it is read
 * into one array. Its header is checksummed, but on its own: a lying one (up to {@link
 * IncarnationCodec#MAX_PAGES} pages, about 2 GiB) made an open allocate that much before any unit
 * was checked, which on a small heap, or with {@code -XX:+ExitOnOutOfMemoryError}, ends the process.
 * Only single entries of more than {@link #EAGER_PAGES} pages make incarnations this large, and
 * they are read twice. Stateless; thread-safe.
 */
final class LargeIncarnations {
  /** Incarnations of at most this many pages (16 MiB) are read whole at once. */
  static final int EAGER_PAGES = 4096;

  private static final int CHUNK_BYTES = 1 << 20;

  private LargeIncarnations() {}

  /**
   * Checks each unit's run and checksum of the incarnation at {@code startPage} whose header says
   * {@code header}, if it claims more than {@link #EAGER_PAGES} pages.
   *
   * @throws CorruptStoreException at the first unit that is not whole and right
   */
  static void checkUnits(InterruptSafeFile log, int startPage, IncarnationCodec.Header header, String where) throws IOException {
    if (header.pages <= EAGER_PAGES) {
      return;
    }
    long base = (long) startPage * PAGE_BYTES;
    long end = (long) header.pages * PAGE_BYTES;
    ByteBuffer chunk = ByteBuffer.allocate(CHUNK_BYTES);
    ByteBuffer word = ByteBuffer.allocate(UNIT_HEADER_BYTES);
    long start = LogFormat.HEADER_BYTES;
    while (start < end) {
      int unitPage = (int) (start / PAGE_BYTES);
      read(log, word.clear(), base + start, where);
      int runPages = word.getInt(0);
      CorruptStoreException.check(
          runPages >= 1 && unitPage + (long) runPages <= header.pages, where + ": unit at page " + unitPage + " of " + runPages + " pages");
      long footer = (long) (unitPage + runPages) * PAGE_BYTES - UNIT_FOOTER_BYTES;
      CRC32C crc = LogFormat.unitCrcStart(header.tableId, header.sequence, unitPage);
      for (long at = start; at < footer; ) {
        int length = (int) Math.min(CHUNK_BYTES, footer - at);
        read(log, chunk.clear().limit(length), base + at, where);
        crc.update(chunk.flip());
        at += length;
      }
      read(log, word.clear().limit(UNIT_FOOTER_BYTES), base + footer, where);
      if (word.getInt(0) != (int) crc.getValue()) {
        throw new CorruptStoreException(where + ", unit at page " + unitPage + ": unit checksum mismatch");
      }
      start = footer + UNIT_FOOTER_BYTES;
    }
  }

  private static void read(InterruptSafeFile log, ByteBuffer into, long position, String where) throws IOException {
    log.readFully(into, position);
    if (into.hasRemaining()) {
      throw new CorruptStoreException(where + ": the log ends inside the incarnation");
    }
  }
}
