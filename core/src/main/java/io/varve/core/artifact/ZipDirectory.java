package io.varve.core.artifact;

import io.varve.core.format.CorruptStoreException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The entries of a ZIP file of STORED entries, read from its central directory without trusting a
 * byte of it, so that a reader can map each entry's data in place. Its own parser rather than
 * Commons Compress's {@code ZipFile}: a serving host then needs nothing beyond {@code core}, and
 * every check below is ours to pin (a library parser accepts what a general unzip must, and
 * reports damage as many exception types).
 *
 * <p>The subset of the ZIP layout (APPNOTE 6.3, all integers little-endian) read here:
 *
 * <pre>
 * File      := (LocalHeader data:byte[size])^n CentralHeader^n Zip64End? Zip64Locator? End
 * LocalHeader   := 0x04034b50 version:u16 flags:u16 method:u16 time:u16 date:u16 crc32:u32
 *                  compressedSize:u32 size:u32 nameLength:u16 extraLength:u16 name extra
 *                  (the entry's data starts right after: at offset + 30 + nameLength + extraLength)
 * CentralHeader := 0x02014b50 made:u16 version:u16 flags:u16 method:u16 time:u16 date:u16 crc32:u32
 *                  compressedSize:u32 size:u32 nameLength:u16 extraLength:u16 commentLength:u16
 *                  disk:u16 internal:u16 external:u32 localHeaderOffset:u32 name extra comment
 *                  (a field of 0xFFFFFFFF is in the ZIP64 extra field, id 0x0001: size, compressed
 *                  size, local header offset, each u64 and present only when its field is 0xFFFFFFFF)
 * Zip64End      := 0x06064b50 recordSize:u64 made:u16 version:u16 disk:u32 cdDisk:u32
 *                  entriesHere:u64 entries:u64 cdSize:u64 cdOffset:u64 ...
 * Zip64Locator  := 0x07064b50 disk:u32 zip64EndOffset:u64 disks:u32
 * End           := 0x06054b50 disk:u16 cdDisk:u16 entriesHere:u16 entries:u16 cdSize:u32
 *                  cdOffset:u32 commentLength:u16 comment   (0xFFFF / 0xFFFFFFFF: see Zip64End)
 * </pre>
 *
 * Checked: one disk; the entry count against a caller's limit and against the central directory's
 * size before anything is allocated; the central directory inside the file, before its end records;
 * each entry STORED (method 0), not encrypted, its sizes equal, its name ASCII of {@code
 * [A-Za-z0-9._/-]} without empty, {@code .} or {@code ..} components, names distinct; its local
 * header inside the file, with the central directory's name and method; its data inside the file
 * before the central directory, entries not overlapping. Every defect is a {@link
 * CorruptStoreException} naming the file. Immutable once read; thread-safe.
 */
public final class ZipDirectory {
  private static final int END = 0x06054b50;
  private static final int END_BYTES = 22;
  private static final int ZIP64_LOCATOR = 0x07064b50;
  private static final int ZIP64_LOCATOR_BYTES = 20;
  private static final int ZIP64_END = 0x06064b50;
  private static final int ZIP64_END_BYTES = 56;
  private static final int CENTRAL = 0x02014b50;
  private static final int CENTRAL_BYTES = 46;
  private static final int LOCAL = 0x04034b50;
  private static final int LOCAL_BYTES = 30;
  private static final int ZIP64_EXTRA = 0x0001;
  private static final long U32_MAX = 0xFFFF_FFFFL;
  private static final int MAX_COMMENT = 0xFFFF;
  private static final int MAX_NAME = 255;

  /**
   * One entry: its name, where its data starts in the file, its length, and the CRC-32 the
   * central directory records for it.
   */
  public record Entry(String name, long dataOffset, long size, int crc32) {
    /** Where the entry's data ends in the file. */
    public long dataEnd() {
      return dataOffset + size;
    }
  }

  private final List<Entry> entries;

  private ZipDirectory(List<Entry> entries) {
    this.entries = List.copyOf(entries);
  }

  /** The entries in the central directory's order. */
  public List<Entry> entries() {
    return entries;
  }

  /**
   * Reads and checks the central directory of the ZIP file open as {@code channel}.
   *
   * @param source the file's name, for messages
   * @param maxEntries the most entries a file may have (more is refused before any is read)
   * @throws CorruptStoreException naming {@code source} on any defect, including a file that is no
   *     ZIP at all
   */
  public static ZipDirectory read(FileChannel channel, String source, int maxEntries) throws IOException {
    long size = channel.size();
    check(size >= END_BYTES, source, size + " bytes is too short for a ZIP file");
    int tailLength = (int) Math.min(size, END_BYTES + MAX_COMMENT);
    ByteBuffer tail = readAt(channel, size - tailLength, tailLength, source);
    int end = findEnd(tail);
    check(end >= 0, source, "no ZIP end of central directory record (not a ZIP file, or truncated)");
    long endOffset = size - tailLength + end;
    check(tail.getShort(end + 4) == 0 && tail.getShort(end + 6) == 0, source, "a ZIP file split over disks");
    long entryCount = tail.getShort(end + 10) & 0xFFFF;
    check((tail.getShort(end + 8) & 0xFFFF) == entryCount, source, "entry counts of the end record differ");
    long cdSize = tail.getInt(end + 12) & U32_MAX;
    long cdOffset = tail.getInt(end + 16) & U32_MAX;
    long cdLimit = endOffset; // the central directory ends before the end records
    if (end >= ZIP64_LOCATOR_BYTES && tail.getInt(end - ZIP64_LOCATOR_BYTES) == ZIP64_LOCATOR) {
      int locator = end - ZIP64_LOCATOR_BYTES;
      check(tail.getInt(locator + 4) == 0 && tail.getInt(locator + 16) == 1, source, "a ZIP64 file split over disks");
      long zip64End = tail.getLong(locator + 8);
      long locatorOffset = endOffset - ZIP64_LOCATOR_BYTES;
      check(zip64End >= 0 && zip64End <= locatorOffset - ZIP64_END_BYTES, source,
          "the ZIP64 end record at " + zip64End + " lies outside the file");
      ByteBuffer record = readAt(channel, zip64End, ZIP64_END_BYTES, source);
      check(record.getInt(0) == ZIP64_END, source, "no ZIP64 end record where the locator points (" + zip64End + ")");
      check(record.getInt(16) == 0 && record.getInt(20) == 0, source, "a ZIP64 file split over disks");
      entryCount = record.getLong(32);
      check(record.getLong(24) == entryCount, source, "entry counts of the ZIP64 end record differ");
      cdSize = record.getLong(40);
      cdOffset = record.getLong(48);
      cdLimit = zip64End;
    }
    check(entryCount >= 0 && entryCount <= maxEntries, source,
        Long.toUnsignedString(entryCount) + " entries, more than an artifact has (at most " + maxEntries + ")");
    check(cdSize >= 0 && cdOffset >= 0 && cdOffset <= cdLimit && cdSize <= cdLimit - cdOffset, source,
        "the central directory (" + Long.toUnsignedString(cdSize) + " bytes at " + Long.toUnsignedString(cdOffset)
            + ") lies outside the file");
    long most = entryCount * (CENTRAL_BYTES + MAX_NAME + 2L * 0xFFFF);
    check(cdSize >= entryCount * CENTRAL_BYTES && cdSize <= most, source,
        "a central directory of " + cdSize + " bytes cannot hold " + entryCount + " entries");
    ByteBuffer central = readAt(channel, cdOffset, (int) cdSize, source);
    List<Entry> entries = new ArrayList<>((int) entryCount);
    Set<String> names = new HashSet<>();
    int at = 0;
    for (int i = 0; i < entryCount; i++) {
      Entry entry = readEntry(channel, central, at, cdOffset, source, i);
      check(names.add(entry.name()), source, "two entries named " + entry.name());
      entries.add(entry);
      at += CENTRAL_BYTES + (central.getShort(at + 28) & 0xFFFF) + (central.getShort(at + 30) & 0xFFFF) + (central.getShort(at + 32) & 0xFFFF);
    }
    check(at == cdSize, source, (cdSize - at) + " unexpected bytes after the central directory's entries");
    checkDisjoint(entries, source);
    return new ZipDirectory(entries);
  }

  /** The last End record in {@code tail} whose comment runs exactly to the end of the file, or -1. */
  private static int findEnd(ByteBuffer tail) {
    for (int at = tail.limit() - END_BYTES; at >= 0; at--) {
      if (tail.getInt(at) == END && at + END_BYTES + (tail.getShort(at + 20) & 0xFFFF) == tail.limit()) {
        return at;
      }
    }
    return -1;
  }

  private static Entry readEntry(FileChannel channel, ByteBuffer central, int at, long cdOffset, String source, int i)
      throws IOException {
    String what = "entry " + i;
    check(central.limit() - at >= CENTRAL_BYTES && central.getInt(at) == CENTRAL, source,
        what + ": no central directory header at " + (cdOffset + at));
    int flags = central.getShort(at + 8) & 0xFFFF;
    int method = central.getShort(at + 10) & 0xFFFF;
    int crc32 = central.getInt(at + 16);
    long compressed = central.getInt(at + 20) & U32_MAX;
    long size = central.getInt(at + 24) & U32_MAX;
    int nameLength = central.getShort(at + 28) & 0xFFFF;
    int extraLength = central.getShort(at + 30) & 0xFFFF;
    int commentLength = central.getShort(at + 32) & 0xFFFF;
    long localOffset = central.getInt(at + 42) & U32_MAX;
    check(central.limit() - at - CENTRAL_BYTES >= nameLength + extraLength + commentLength, source,
        what + ": its name and fields run past the central directory");
    String name = name(central, at + CENTRAL_BYTES, nameLength, source, what);
    what = "entry " + name;
    check((flags & 0x41) == 0, source, what + " is encrypted");
    check(method == 0, source, what + " is compressed (method " + method + "), not STORED: it cannot be read in place");
    int extra = at + CENTRAL_BYTES + nameLength;
    int zip64 = findExtra(central, extra, extraLength, source, what);
    if (size == U32_MAX || compressed == U32_MAX || localOffset == U32_MAX) {
      check(zip64 >= 0, source, what + ": a size or offset of 0xFFFFFFFF but no ZIP64 field");
      int field = zip64 + 4;
      int fieldEnd = zip64 + 4 + (central.getShort(zip64 + 2) & 0xFFFF);
      if (size == U32_MAX) {
        check(field + 8 <= fieldEnd, source, what + ": ZIP64 field too short");
        size = central.getLong(field);
        field += 8;
      }
      if (compressed == U32_MAX) {
        check(field + 8 <= fieldEnd, source, what + ": ZIP64 field too short");
        compressed = central.getLong(field);
        field += 8;
      }
      if (localOffset == U32_MAX) {
        check(field + 8 <= fieldEnd, source, what + ": ZIP64 field too short");
        localOffset = central.getLong(field);
      }
    }
    check(size >= 0 && compressed == size, source, what + ": stored size " + Long.toUnsignedString(compressed)
        + " differs from its size " + Long.toUnsignedString(size) + " (not STORED)");
    check(localOffset >= 0 && localOffset <= cdOffset - LOCAL_BYTES, source,
        what + ": its local header (at " + Long.toUnsignedString(localOffset) + ") lies outside the entries");
    ByteBuffer local = readAt(channel, localOffset, LOCAL_BYTES, source);
    check(local.getInt(0) == LOCAL, source, what + ": no local header at " + localOffset);
    check((local.getShort(8) & 0xFFFF) == 0, source, what + ": its local header says another method than STORED");
    int localName = local.getShort(26) & 0xFFFF;
    int localExtra = local.getShort(28) & 0xFFFF;
    long dataOffset = localOffset + LOCAL_BYTES + localName + localExtra;
    check(localName == nameLength, source, what + ": its local header names another entry (a name of " + localName + " bytes)");
    check(dataOffset <= cdOffset && size <= cdOffset - dataOffset, source,
        what + ": " + size + " bytes at " + dataOffset + " lie outside the entries (which end at " + cdOffset + ")");
    ByteBuffer localNameBytes = readAt(channel, localOffset + LOCAL_BYTES, localName, source);
    check(localNameBytes.equals(central.slice(at + CENTRAL_BYTES, nameLength)), source,
        what + ": its local header names another entry");
    return new Entry(name, dataOffset, size, crc32);
  }

  /** The position of the ZIP64 extra field among the extra fields at {@code from}, or -1. */
  private static int findExtra(ByteBuffer central, int from, int length, String source, String what) {
    int end = from + length;
    int found = -1;
    for (int at = from; at < end; ) {
      check(end - at >= 4, source, what + ": its extra fields are cut short");
      int id = central.getShort(at) & 0xFFFF;
      int fieldLength = central.getShort(at + 2) & 0xFFFF;
      check(end - at - 4 >= fieldLength, source, what + ": its extra field " + id + " runs past its end");
      if (id == ZIP64_EXTRA && found < 0) {
        found = at;
      }
      at += 4 + fieldLength;
    }
    return found;
  }

  private static String name(ByteBuffer central, int at, int length, String source, String what) {
    check(length >= 1 && length <= MAX_NAME, source, what + ": a name of " + length + " bytes");
    byte[] bytes = new byte[length];
    central.get(at, bytes);
    for (byte b : bytes) {
      boolean ok = (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') || (b >= '0' && b <= '9') || b == '.' || b == '_' || b == '-' || b == '/';
      check(ok, source, what + ": its name holds a byte other than [A-Za-z0-9._/-] (" + (b & 0xFF) + ")");
    }
    String name = new String(bytes, StandardCharsets.US_ASCII);
    for (String part : name.split("/", -1)) {
      check(!part.isEmpty() && !part.equals(".") && !part.equals(".."), source, what + ": name " + name + " is not a plain relative path");
    }
    return name;
  }

  /** Entries (local header to data end) must not overlap: a lying directory could alias them. */
  private static void checkDisjoint(List<Entry> entries, String source) {
    List<Entry> byOffset = new ArrayList<>(entries);
    byOffset.sort(Comparator.comparingLong(Entry::dataOffset));
    for (int i = 1; i < byOffset.size(); i++) {
      Entry previous = byOffset.get(i - 1);
      Entry next = byOffset.get(i);
      check(previous.dataEnd() + LOCAL_BYTES + next.name().length() <= next.dataOffset(), source,
          "entries " + previous.name() + " and " + next.name() + " overlap");
    }
  }

  private static ByteBuffer readAt(FileChannel channel, long position, int length, String source) throws IOException {
    ByteBuffer buffer = ByteBuffer.allocate(length).order(ByteOrder.LITTLE_ENDIAN);
    while (buffer.hasRemaining()) {
      int read = channel.read(buffer, position + buffer.position());
      check(read > 0, source, "ends at byte " + (position + buffer.position()) + " (truncated)");
    }
    return buffer.flip();
  }

  private static void check(boolean condition, String source, String message) {
    if (!condition) {
      throw new CorruptStoreException(source + ": " + message);
    }
  }
}
