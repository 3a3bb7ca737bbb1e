package io.varve.benchmarks.peers;

import io.varve.core.hash.KeyHasher;
import io.varve.core.store.RecordFormat;
import net.openhft.chronicle.core.Jvm;
import net.openhft.chronicle.core.UnsafeMemory;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.List;

/**
 * Issue 23's prototype of a page-addressed layout, measured beside the peers before any format is
 * fixed: records in hash order packed into 4 KiB pages, a key's page found from its hash through
 * an in-memory table of each page's first hash, the record inside the page through a header of
 * hash fragments. No per-record offsets in memory and no rank step on the lookup path.
 *
 * <pre>
 * pages  = page*                                    (file "pages", 4096 bytes each)
 * page   = count:u16 (fragment:u16 offset:u16)[count] record[count] padding
 * record = keyLength:varint valueLength:varint key value
 * firsts = records:u64 hi32:u32[pageCount]          (file "firsts": each page's first hash's top 32 bits)
 * </pre>
 *
 * Hashes are XXH3-128 with seed 0, in unsigned {@code (hi, lo)} order; a fragment is the low 16
 * bits of {@code lo}; a page's offsets are from its start; pages little-endian, {@code firsts}
 * big-endian. A lookup guesses the page by interpolation ({@code hi32 * pageCount / 2^32}), walks
 * the table to the last page whose first {@code hi32} is not above the key's (the previous page
 * too when they are equal: a page can start inside a run of equal {@code hi32}), then searches the
 * entries outwards from the one interpolated in the page, comparing the key of each fragment
 * match. The reader also keeps each page's count and extent in memory (read at open: 32 bits per
 * page that a format would store), so that the entry's and the record's lines are read together. A prototype: records must fit in one page, the pages file in 2 GiB, and the build sorts
 * in memory. Stateless; thread-safe; its readers too.
 */
final class PagedPrototype implements Peer {
  static final int PAGE_BYTES = 4096;
  private static final String PAGES = "pages";
  private static final String FIRSTS = "firsts";
  private static final KeyHasher HASHER = KeyHasher.withSeed(0);

  @Override
  public String name() {
    return "Paged";
  }

  @Override
  public void build(RecordSet records, Path dir) throws Exception {
    int n = Math.toIntExact(records.size());
    long[] hi = new long[n];
    long[] lo = new long[n];
    long[] hash = new long[2];
    for (int j = 0; j < n; j++) {
      HASHER.hash(records.key(j), hash);
      hi[j] = hash[0];
      lo[j] = hash[1];
    }
    Integer[] order = new Integer[n];
    Arrays.setAll(order, j -> j);
    Arrays.sort(order, (a, b) -> KeyHasher.compare(hi[a], lo[a], hi[b], lo[b]));
    Files.createDirectories(dir);
    PageWriter pages = new PageWriter();
    try (OutputStream out = Files.newOutputStream(dir.resolve(PAGES))) {
      for (int j : order) {
        byte[] key = records.key(j);
        byte[] value = records.value(j);
        if (!pages.fits(key, value)) {
          pages.flush(out);
        }
        pages.add((int) (hi[j] >>> 32), (short) lo[j], key, value);
      }
      pages.flush(out);
    }
    try (DataOutputStream out = new DataOutputStream(Files.newOutputStream(dir.resolve(FIRSTS)))) {
      out.writeLong(n);
      for (int p = 0; p < pages.firsts.length(); p++) {
        out.writeInt(pages.firsts.get(p));
      }
    }
  }

  /** Fills one page at a time. Not thread-safe. */
  private static final class PageWriter {
    private final ByteBuffer page = ByteBuffer.allocate(PAGE_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    private final short[] fragments = new short[PAGE_BYTES / 4];
    private final byte[][] keys = new byte[PAGE_BYTES / 4][];
    private final byte[][] values = new byte[PAGE_BYTES / 4][];
    private int count;
    private int recordBytes;
    private int first;
    final IntList firsts = new IntList();

    boolean fits(byte[] key, byte[] value) {
      int bytes = 2 + 4 * (count + 1) + recordBytes + recordBytes(key, value);
      if (count == 0 && bytes > PAGE_BYTES) {
        throw new IllegalArgumentException("the prototype keeps a record in one page: " + (key.length + value.length) + " bytes");
      }
      return bytes <= PAGE_BYTES;
    }

    void add(int hi32, short fragment, byte[] key, byte[] value) {
      if (count == 0) {
        first = hi32;
      }
      fragments[count] = fragment;
      keys[count] = key;
      values[count] = value;
      count++;
      recordBytes += recordBytes(key, value);
    }

    void flush(OutputStream out) throws IOException {
      if (count == 0) {
        return;
      }
      Arrays.fill(page.array(), (byte) 0);
      page.putShort(0, (short) count);
      int offset = 2 + 4 * count;
      for (int i = 0; i < count; i++) {
        page.putShort(2 + 4 * i, fragments[i]);
        page.putShort(2 + 4 * i + 2, (short) offset);
        offset = RecordFormat.writeVarint(page.array(), offset, keys[i].length);
        offset = RecordFormat.writeVarint(page.array(), offset, values[i].length);
        page.position(offset);
        page.put(keys[i]).put(values[i]);
        offset = page.position();
      }
      out.write(page.array());
      firsts.add(first);
      count = 0;
      recordBytes = 0;
    }

    private static int recordBytes(byte[] key, byte[] value) {
      return RecordFormat.headerLength(key.length, value.length) + key.length + value.length;
    }
  }

  /** A growable list of ints. Not thread-safe. */
  private static final class IntList {
    private int[] values = new int[1024];
    private int size;

    void add(int value) {
      if (size == values.length) {
        values = Arrays.copyOf(values, size * 2);
      }
      values[size++] = value;
    }

    int get(int i) {
      return values[i];
    }

    int length() {
      return size;
    }
  }

  @Override
  public Reader open(Path dir) throws Exception {
    Path firstsFile = dir.resolve(FIRSTS);
    int[] firsts = new int[Math.toIntExact((Files.size(firstsFile) - Long.BYTES) / Integer.BYTES)];
    long records;
    try (InputStream file = Files.newInputStream(firstsFile); DataInputStream in = new DataInputStream(new java.io.BufferedInputStream(file))) {
      records = in.readLong();
      for (int p = 0; p < firsts.length; p++) {
        firsts[p] = in.readInt();
      }
    }
    MappedByteBuffer pages;
    try (FileChannel channel = FileChannel.open(dir.resolve(PAGES), StandardOpenOption.READ)) {
      pages = channel.map(FileChannel.MapMode.READ_ONLY, 0, channel.size());
    }
    pages.order(ByteOrder.LITTLE_ENDIAN);
    return new PagedReader(firsts, pages, records);
  }

  /**
   * Lookups in the pages, read as the store's reader reads its mapping (Chronicle's unsafe memory
   * at the mapping's address, bounds checked once). Thread-safe: absolute reads only.
   */
  private static final class PagedReader implements Reader {
    private static final ThreadLocal<long[]> HASH = ThreadLocal.withInitial(() -> new long[2]);
    private static final UnsafeMemory MEMORY = UnsafeMemory.MEMORY;
    private final int[] firsts;
    @SuppressWarnings("unused") // keeps the mapping alive
    private final ByteBuffer pages;
    private final long address;
    /**
     * Per page, its record count and the bytes its header and records take (read from the pages at
     * open: what a format would keep beside {@code firsts}, 32 more bits per page), so that a lookup
     * knows where its entry and its record probably are before it reads the page.
     */
    private final char[] counts;
    private final char[] used;
    /** Written only if the early reads sum to a sentinel: the JIT cannot drop reads whose sum may be stored. */
    @SuppressWarnings("unused")
    private static long touchSink;

    private static final long TOUCH_SENTINEL = 0x7A6E_D5EE_D000_0001L;

    /** Lines read on either side of the probable record's: its guess is off by a few records. */
    private static final int TOUCHED_AROUND = Integer.getInteger("paged.touchedAround", 3);

    PagedReader(int[] firsts, ByteBuffer pages, long records) {
      this.firsts = firsts;
      this.pages = pages;
      if (ByteOrder.nativeOrder() != ByteOrder.LITTLE_ENDIAN) {
        throw new UnsupportedOperationException("the prototype reads its little-endian pages in the native order");
      }
      this.address = Jvm.address(pages);
      if (pages.capacity() != (long) firsts.length * PAGE_BYTES) {
        throw new IllegalStateException("the pages file holds " + pages.capacity() + " bytes for " + firsts.length + " pages");
      }
      counts = new char[firsts.length];
      used = new char[firsts.length];
      for (int page = 0; page < firsts.length; page++) {
        long base = address + (long) page * PAGE_BYTES;
        int count = MEMORY.readShort(base) & 0xFFFF;
        counts[page] = (char) count;
        long end = base + 2;
        if (count > 0) {
          long at = base + (MEMORY.readShort(base + 2 + 4L * (count - 1) + 2) & 0xFFFF);
          int keyLength = varintAt(at);
          at += RecordFormat.varintLength(keyLength);
          int valueLength = varintAt(at);
          end = at + RecordFormat.varintLength(valueLength) + keyLength + valueLength;
        }
        used[page] = (char) (end - base);
      }
    }

    @Override
    public byte[] get(byte[] key) {
      int pageCount = firsts.length;
      if (pageCount == 0) {
        return null;
      }
      long[] hash = HASH.get();
      HASHER.hash(key, hash);
      long hi32 = hash[0] >>> 32;
      short fragment = (short) hash[1];
      int page = (int) ((hi32 * pageCount) >>> 32);
      while (page + 1 < pageCount && Integer.toUnsignedLong(firsts[page + 1]) <= hi32) {
        page++;
      }
      while (page > 0 && Integer.toUnsignedLong(firsts[page]) > hi32) {
        page--;
      }
      byte[] value = search(page, hi32, key, fragment);
      while (value == null && page > 0 && Integer.toUnsignedLong(firsts[page]) == hi32) {
        value = search(--page, hi32, key, fragment);
      }
      return value;
    }

    /**
     * Searches one page from the entry where the key's hash falls between the page's first hash
     * and the next page's (hashes are uniform, so the records are spread evenly), outwards. The
     * lines of that entry and around its probable record are read first, together, so that their
     * cache misses overlap.
     */
    private byte[] search(int page, long hi32, byte[] key, short fragment) {
      int count = counts[page];
      if (count == 0) {
        return null;
      }
      long base = address + (long) page * PAGE_BYTES;
      long first = Integer.toUnsignedLong(firsts[page]);
      long span = Math.max(1, (page + 1 < firsts.length ? Integer.toUnsignedLong(firsts[page + 1]) : 1L << 32) - first);
      long within = Math.max(0, hi32 - first); // below the first page's first hash: absent
      int start = (int) Math.min(count - 1, within * count / span);
      long headerEnd = 2 + 4L * count;
      long likelyRecord = base + headerEnd + start * (used[page] - headerEnd) / count;
      long last = base + PAGE_BYTES - Long.BYTES;
      long touched = MEMORY.readLong(Math.min(last, base + 2 + 4L * start));
      for (int line = -TOUCHED_AROUND; line <= TOUCHED_AROUND; line++) {
        touched += MEMORY.readLong(Math.max(base, Math.min(last, likelyRecord + 64L * line)));
      }
      if (touched == TOUCH_SENTINEL) {
        touchSink = touched; // almost never
      }
      for (int step = 0; step < 2 * count; step++) {
        int i = (step & 1) == 0 ? start + (step >>> 1) : start - 1 - (step >>> 1);
        if (i < 0 || i >= count) {
          continue;
        }
        long entry = base + 2 + 4L * i;
        if (MEMORY.readShort(entry) != fragment) {
          continue;
        }
        long at = base + (MEMORY.readShort(entry + 2) & 0xFFFF);
        int keyLength = varintAt(at);
        at += RecordFormat.varintLength(keyLength);
        int valueLength = varintAt(at);
        at += RecordFormat.varintLength(valueLength);
        if (keyLength == key.length && sameKey(at, key)) {
          byte[] value = new byte[valueLength];
          MEMORY.readBytes(at + keyLength, value, 0, valueLength);
          return value;
        }
      }
      return null;
    }

    /** The varint at {@code at}, which takes {@link RecordFormat#varintLength} of its value. */
    private static int varintAt(long at) {
      int value = 0;
      int shift = 0;
      byte b;
      do {
        b = MEMORY.readByte(at++);
        value |= (b & 0x7F) << shift;
        shift += 7;
      } while (b < 0);
      return value;
    }

    private static boolean sameKey(long at, byte[] key) {
      int i = 0;
      for (; i + Long.BYTES <= key.length; i += Long.BYTES) {
        if (MEMORY.readLong(at + i) != (long) LONGS.get(key, i)) {
          return false;
        }
      }
      for (; i < key.length; i++) {
        if (MEMORY.readByte(at + i) != key[i]) {
          return false;
        }
      }
      return true;
    }

    private static final java.lang.invoke.VarHandle LONGS =
        java.lang.invoke.MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.nativeOrder());

    @Override
    public long indexBytes() {
      return (long) firsts.length * Integer.BYTES;
    }

    @Override
    public List<FileRange> pageCacheIndex() {
      return List.of();
    }

    @Override
    public void close() {}
  }
}
