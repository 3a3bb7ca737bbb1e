package io.varve.bufferhash;

import static io.varve.bufferhash.LogFormat.HEADER_BYTES;
import static io.varve.bufferhash.LogFormat.PAGE_BYTES;
import static io.varve.bufferhash.LogFormat.UNIT_FOOTER_BYTES;
import static io.varve.bufferhash.LogFormat.UNIT_HEADER_BYTES;

import io.varve.core.format.CorruptStoreException;
import io.varve.core.hash.KeyHasher;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Turns a sealed buffer into an incarnation's bytes, and reads incarnations and their units back,
 * checking every header, unit and entry ({@link LogFormat} has the layout). Stateless; thread-safe.
 */
final class IncarnationCodec {
  private IncarnationCodec() {}

  /** An incarnation's bytes, ready to be written at a page of the log, with what RAM keeps of it. */
  static final class Encoded {
    final byte[] bytes;
    final int superTable;
    final long sequence;
    final int pages;
    final int[] fences;
    final int[] unitFirstPage;
    /** The entries' key hashes, for the Bloom filter. */
    final long[] his;
    final long[] los;

    Encoded(byte[] bytes, int superTable, long sequence, int[] fences, int[] unitFirstPage, long[] his, long[] los) {
      this.bytes = bytes;
      this.superTable = superTable;
      this.sequence = sequence;
      this.pages = bytes.length / PAGE_BYTES;
      this.fences = fences;
      this.unitFirstPage = unitFirstPage;
      this.his = his;
      this.los = los;
    }

    Incarnation at(int startPage) {
      return new Incarnation(superTable, sequence, startPage, pages, his.length, fences, unitFirstPage);
    }
  }

  /** The incarnation holding {@code buffer}'s live entries, ordered by hash prefix and packed into units. */
  static Encoded encode(WriteBuffer buffer, int superTable, long sequence, KeyHasher hasher, long tableId) {
    byte[] arena = buffer.arena();
    int[] offsets = buffer.entryOffsets();
    int n = offsets.length;
    if (n >= 1 << 20) {
      throw new IllegalStateException("a buffer of " + n + " entries: at most 2^20 - 1 fit an incarnation");
    }
    long[] his = new long[n];
    long[] los = new long[n];
    long[] order = new long[n];
    long[] hash = new long[2];
    for (int i = 0; i < n; i++) {
      long keyLength = LogFormat.getVarint(arena, offsets[i], arena.length);
      long valueCode = LogFormat.getVarint(arena, (int) (keyLength >>> 32), arena.length);
      hasher.hash(arena, (int) (valueCode >>> 32), (int) keyLength, hash);
      his[i] = hash[0];
      los[i] = hash[1];
      // The top 44 bits of lo order the entries (unsigned: the sign bit flipped for a signed
      // sort); the low 20 bits carry the entry's index.
      order[i] = (((hash[1] >>> 20) << 20) | i) ^ Long.MIN_VALUE;
    }
    Arrays.sort(order);
    long[] sortedHis = new long[n];
    long[] sortedLos = new long[n];
    int[] sizes = new int[n];
    int[] sorted = new int[n];
    for (int i = 0; i < n; i++) {
      int e = (int) (order[i] & 0xFFFFF);
      sorted[i] = offsets[e];
      sortedHis[i] = his[e];
      sortedLos[i] = los[e];
      sizes[i] = WriteBuffer.entrySize(arena, offsets[e]);
    }
    UnitLayout layout = UnitLayout.of(sizes);
    byte[] bytes = new byte[layout.pages * PAGE_BYTES];
    int[] fences = new int[layout.units];
    boolean onePagePerUnit = true;
    for (int u = 0; u < layout.units; u++) {
      onePagePerUnit &= layout.firstPage[u] == u;
    }
    for (int u = 0; u < layout.units; u++) {
      int start = u == 0 ? HEADER_BYTES : layout.firstPage[u] * PAGE_BYTES;
      int end = (u + 1 < layout.units ? layout.firstPage[u + 1] : layout.pages) * PAGE_BYTES;
      int first = layout.firstEntry[u];
      int last = u + 1 < layout.units ? layout.firstEntry[u + 1] : n;
      LogFormat.putInt(bytes, start, (end - 1) / PAGE_BYTES - (start / PAGE_BYTES) + 1);
      LogFormat.putInt(bytes, start + 4, last - first);
      int at = start + UNIT_HEADER_BYTES;
      for (int i = first; i < last; i++) {
        System.arraycopy(arena, sorted[i], bytes, at, sizes[i]);
        at += sizes[i];
      }
      int footer = end - UNIT_FOOTER_BYTES;
      LogFormat.putInt(bytes, footer, LogFormat.unitCrc(tableId, sequence, layout.firstPage[u], bytes, start, footer - start));
      fences[u] = (int) (sortedLos[first] >>> 32);
    }
    writeHeader(bytes, tableId, superTable, sequence, layout.pages, n);
    return new Encoded(
        bytes, superTable, sequence, fences, onePagePerUnit ? null : Arrays.copyOf(layout.firstPage, layout.units), sortedHis, sortedLos);
  }

  /** Writes an incarnation header of the version the table's id calls for, its check salted with the id. */
  static void writeHeader(byte[] bytes, long tableId, int superTable, long sequence, int pages, int entries) {
    LogFormat.INCARNATION.putHeader(bytes, 0, LogFormat.structureVersion(tableId));
    LogFormat.putInt(bytes, 8, superTable);
    LogFormat.putLong(bytes, 12, sequence);
    LogFormat.putInt(bytes, 20, pages);
    LogFormat.putInt(bytes, 24, entries);
    LogFormat.seal(tableId, bytes, 0, 28);
  }

  /** How entries of the given sizes fill units: a unit per page, or a run of pages for one large entry. */
  private static final class UnitLayout {
    int units;
    int pages;
    int[] firstPage = new int[8];
    int[] firstEntry = new int[8];

    static UnitLayout of(int[] sizes) {
      UnitLayout layout = new UnitLayout();
      int page = 0;
      int used = HEADER_BYTES + UNIT_HEADER_BYTES;
      layout.open(0, 0);
      for (int i = 0; i < sizes.length; i++) {
        boolean unitEmpty = layout.firstEntry[layout.units - 1] == i;
        if (used + sizes[i] + UNIT_FOOTER_BYTES <= PAGE_BYTES) {
          used += sizes[i];
          continue;
        }
        if (!unitEmpty) {
          page++;
          used = UNIT_HEADER_BYTES;
          layout.open(page, i);
          if (used + sizes[i] + UNIT_FOOTER_BYTES <= PAGE_BYTES) {
            used += sizes[i];
            continue;
          }
        }
        // One entry too large for a page: it fills a run of pages alone.
        long end = (long) page * PAGE_BYTES + used + sizes[i] + UNIT_FOOTER_BYTES;
        page = (int) ((end + PAGE_BYTES - 1) / PAGE_BYTES);
        used = UNIT_HEADER_BYTES;
        if (i + 1 < sizes.length) {
          layout.open(page, i + 1);
        } else {
          layout.pages = page;
          return layout;
        }
      }
      layout.pages = page + 1;
      return layout;
    }

    private void open(int page, int entry) {
      if (units == firstPage.length) {
        firstPage = Arrays.copyOf(firstPage, units * 2);
        firstEntry = Arrays.copyOf(firstEntry, units * 2);
      }
      firstPage[units] = page;
      firstEntry[units] = entry;
      units++;
    }
  }

  /**
   * Checks one unit read from the log ({@code bytes[0, length)}, from the unit's start to its last
   * page's end) and finds {@code key} in it: the entry's offset in {@code bytes}, or -1.
   *
   * @throws CorruptStoreException if the unit's checksum or structure is wrong
   */
  static int findInUnit(byte[] bytes, int length, long tableId, long sequence, int firstPage, byte[] key, String where) {
    int footer = checkUnit(bytes, 0, length, tableId, sequence, firstPage, where);
    int count = LogFormat.getInt(bytes, 4);
    int at = UNIT_HEADER_BYTES;
    byte first = key.length == 0 ? 0 : key[0];
    for (int i = 0; i < count; i++) {
      int keyLength = at < footer ? bytes[at] : -1;
      int valueCode = at + 1 < footer ? bytes[at + 1] : -1;
      if (keyLength >= 0 && valueCode >= 0) {
        // Both lengths below 128 (the usual case): one byte each, no varint loop.
        int keyStart = at + 2;
        int size = 2 + keyLength + (valueCode == 0 ? 0 : valueCode - 1);
        if (at + size > footer) {
          throw new CorruptStoreException(where + ": entry at unit offset " + at + " runs past its unit");
        }
        if (keyLength == key.length
            && (keyLength == 0 || bytes[keyStart] == first)
            && Arrays.equals(bytes, keyStart, keyStart + keyLength, key, 0, keyLength)) {
          return at;
        }
        at += size;
        continue;
      }
      int size = checkedEntrySize(bytes, at, footer, where);
      if (WriteBuffer.keyEquals(bytes, at, at + size, key)) {
        return at;
      }
      at += size;
    }
    return -1;
  }

  /** Checks a unit's checksum and header; returns the offset of its footer. */
  static int checkUnit(byte[] bytes, int length, long tableId, long sequence, int firstPage, String where) {
    return checkUnit(bytes, 0, length, tableId, sequence, firstPage, where);
  }

  /** Checks the unit at {@code bytes[offset, offset + length)}; returns the offset of its footer in {@code bytes}. */
  private static int checkUnit(byte[] bytes, int offset, int length, long tableId, long sequence, int firstPage, String where) {
    int footer = offset + length - UNIT_FOOTER_BYTES;
    if (footer < offset + UNIT_HEADER_BYTES
        || LogFormat.getInt(bytes, footer) != LogFormat.unitCrc(tableId, sequence, firstPage, bytes, offset, footer - offset)) {
      throw new CorruptStoreException(where + ": unit checksum mismatch");
    }
    int count = LogFormat.getInt(bytes, offset + 4);
    if (count < 0 || count > footer - offset) {
      throw new CorruptStoreException(where + ": unit entry count " + count);
    }
    return footer;
  }

  /** The size of the entry at {@code at}, checked to end at or before {@code end}. */
  static int checkedEntrySize(byte[] bytes, int at, int end, String where) {
    long keyLength = LogFormat.getVarint(bytes, at, end);
    long valueCode = keyLength < 0 ? -1 : LogFormat.getVarint(bytes, (int) (keyLength >>> 32), end);
    if (valueCode < 0) {
      throw new CorruptStoreException(where + ": malformed entry at unit offset " + at);
    }
    int code = (int) valueCode;
    long size = (valueCode >>> 32) - at + (keyLength & 0xFFFFFFFFL) + (code == 0 ? 0 : code - 1L);
    if (at + size > end) {
      throw new CorruptStoreException(where + ": entry at unit offset " + at + " runs past its unit");
    }
    return (int) size;
  }

  /** A header read from the log: its fields, or an exception naming what is wrong. */
  static final class Header {
    /** The id of the table it was read for, whose checks it passed. */
    final long tableId;
    final int superTable;
    final long sequence;
    final int pages;
    final int entries;

    Header(long tableId, int superTable, long sequence, int pages, int entries) {
      this.tableId = tableId;
      this.superTable = superTable;
      this.sequence = sequence;
      this.pages = pages;
      this.entries = entries;
    }
  }

  /** Whether the 32 bytes at {@code at} are a wrap marker. */
  static boolean isWrap(byte[] bytes, int at) {
    return LogFormat.WRAP_MARKER.isHeader(ByteBuffer.wrap(bytes, at, HEADER_BYTES)) && LogFormat.WRAP_MARKER.isFooterOf(bytes, at, at + 28);
  }

  /** The most pages of an incarnation: it is encoded into, and read back into, one byte array. */
  static final int MAX_PAGES = (Integer.MAX_VALUE - 8) / PAGE_BYTES;

  /** The fewest bytes of an entry: a key length and a value code of one byte each. */
  private static final int MIN_ENTRY_BYTES = 2;

  /** Reads and checks the header at the start of {@code bytes}, of an incarnation of the table of id {@code tableId}. */
  static Header readHeader(byte[] bytes, long tableId, String where) {
    CorruptStoreException.check(
        LogFormat.getInt(bytes, 0) == LogFormat.INCARNATION_MAGIC, where + ": no incarnation header");
    int version = LogFormat.INCARNATION.checkHeader(bytes, where);
    LogFormat.checkVersion(LogFormat.INCARNATION, version, tableId, where);
    LogFormat.checkSealed(LogFormat.INCARNATION, tableId, bytes, 0, 28, where);
    int pages = LogFormat.getInt(bytes, 20);
    int entries = LogFormat.getInt(bytes, 24);
    // Bounded before anything is sized by them: an incarnation is read into one array (so at most
    // MAX_PAGES), and an entry takes two bytes at least, so a lying header cannot ask for gigabytes.
    CorruptStoreException.check(
        pages >= 1 && pages <= MAX_PAGES && entries >= 0 && entries <= (long) pages * PAGE_BYTES / MIN_ENTRY_BYTES,
        where + ": header of " + pages + " pages and " + entries + " entries");
    return new Header(tableId, LogFormat.getInt(bytes, 8), LogFormat.getLong(bytes, 12), pages, entries);
  }

  /** Visits the entries of a whole incarnation read back from the log. */
  interface EntryVisitor {
    void visit(byte[] bytes, int offset, int size);
  }

  /**
   * Checks a whole incarnation's units and visits its entries; returns what RAM keeps of it, with
   * the entries' hashes in {@code hashesOut} (his then los) for its Bloom filter.
   */
  static Incarnation decode(byte[] bytes, Header header, int startPage, KeyHasher hasher, long[][] hashesOut, EntryVisitor visitor, String where) {
    int[] fences = new int[Math.max(1, header.pages)];
    int[] firstPages = new int[fences.length];
    long[] his = new long[header.entries];
    long[] los = new long[header.entries];
    long[] hash = new long[2];
    int units = 0;
    int entry = 0;
    int start = HEADER_BYTES;
    boolean onePagePerUnit = true;
    while (start < header.pages * PAGE_BYTES) {
      int unitPage = start / PAGE_BYTES;
      int runPages = LogFormat.getInt(bytes, start);
      CorruptStoreException.check(
          runPages >= 1 && unitPage + (long) runPages <= header.pages, where + ": unit at page " + unitPage + " of " + runPages + " pages");
      int end = (unitPage + runPages) * PAGE_BYTES;
      int footer = checkUnit(bytes, start, end - start, header.tableId, header.sequence, unitPage, where + ", unit at page " + unitPage);
      int count = LogFormat.getInt(bytes, start + 4);
      CorruptStoreException.check(count >= 1 && entry + (long) count <= header.entries, where + ": more entries than the header says");
      int at = start + UNIT_HEADER_BYTES;
      for (int i = 0; i < count; i++) {
        int size = checkedEntrySize(bytes, at, footer, where);
        long keyLength = LogFormat.getVarint(bytes, at, footer);
        long valueCode = LogFormat.getVarint(bytes, (int) (keyLength >>> 32), footer);
        hasher.hash(bytes, (int) (valueCode >>> 32), (int) keyLength, hash);
        if (i == 0) {
          fences[units] = (int) (hash[1] >>> 32);
          firstPages[units] = unitPage;
        } else if (Integer.compareUnsigned((int) (hash[1] >>> 32), fences[units]) < 0) {
          throw new CorruptStoreException(where + ": entries out of hash order");
        }
        his[entry] = hash[0];
        los[entry] = hash[1];
        entry++;
        if (visitor != null) {
          visitor.visit(bytes, at, size);
        }
        at += size;
      }
      onePagePerUnit &= unitPage == units;
      units++;
      start = end;
    }
    CorruptStoreException.check(entry == header.entries, where + ": " + entry + " entries, the header says " + header.entries);
    hashesOut[0] = his;
    hashesOut[1] = los;
    return new Incarnation(
        header.superTable,
        header.sequence,
        startPage,
        header.pages,
        header.entries,
        Arrays.copyOf(fences, units),
        onePagePerUnit ? null : Arrays.copyOf(firstPages, units));
  }
}
