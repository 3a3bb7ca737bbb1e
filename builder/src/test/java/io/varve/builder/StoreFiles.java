package io.varve.builder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.core.hash.KeyHasher;
import io.varve.core.index.RankIndex;
import io.varve.core.store.IndexFile;
import io.varve.core.store.RecordChecksum;
import io.varve.core.store.RecordFormat;
import io.varve.core.store.StoreFile;
import io.varve.core.store.StoreFileReader;
import io.varve.core.store.StoreMeta;
import io.varve.core.succinct.EliasFano;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Reads a built store directory with core classes only (the builder cannot see the reader
 * module) and checks it thoroughly: envelopes and checksums, meta against the files, offsets
 * against the record layout, hash order, and that the index ranks every key at its position.
 */
final class StoreFiles {
  private StoreFiles() {}

  /** A checked store: its meta and its records in data-file order. */
  record Contents(StoreMeta meta, List<byte[]> keys, List<byte[]> values) {
    /** The records as a map from key to value (keys are distinct, checked). */
    Map<ByteBuffer, byte[]> asMap() {
      Map<ByteBuffer, byte[]> map = new LinkedHashMap<>();
      for (int i = 0; i < keys.size(); i++) {
        map.put(ByteBuffer.wrap(keys.get(i)), values.get(i));
      }
      return map;
    }
  }

  static StoreMeta readMeta(Path dir) throws IOException {
    return StoreMeta.read(dir.resolve(StoreFile.META.fileName()));
  }

  /** Reads and fully checks the store at {@code dir}. */
  static Contents read(Path dir) throws IOException {
    return read(dir, null);
  }

  /** Reads and checks the store, hashing keys with {@code hasher} (null: XXH3 of the meta's seed). */
  static Contents read(Path dir, RecordHasher hasher) throws IOException {
    StoreMeta meta = readMeta(dir);
    long n = meta.recordCount();
    assertTrue(n < Integer.MAX_VALUE, "test helper handles small stores only");

    // Exactly the files the meta names, plus meta; sizes and checksums as recorded.
    Set<String> expectedNames = new TreeSet<>();
    expectedNames.add(StoreFile.META.fileName());
    for (StoreMeta.FileEntry file : meta.files()) {
      expectedNames.add(file.name());
      Path path = dir.resolve(file.name());
      assertEquals(file.size(), Files.size(path), "size of " + file.name());
      StoreFile kind = Stream.of(StoreFile.values()).filter(k -> k.fileName().equals(file.name())).findFirst().orElseThrow();
      assertEquals(file.checksum(), StoreFileReader.verify(path, kind), "checksum of " + file.name());
    }
    try (Stream<Path> list = Files.list(dir)) {
      assertEquals(expectedNames, list.map(p -> p.getFileName().toString()).collect(Collectors.toCollection(TreeSet::new)));
    }
    assertEquals(!meta.isFixedSize() && !meta.isPaged(), expectedNames.contains(StoreFile.OFFSETS.fileName()));
    assertEquals(meta.isPaged(), expectedNames.contains(StoreFile.PAGES.fileName()));

    RankIndex index =
        meta.isPaged()
            ? null
            : StoreFileReader.read(dir.resolve(StoreFile.INDEX.fileName()), StoreFile.INDEX, (in, len) -> IndexFile.readFrom(in, meta, null));
    if (index != null) {
      assertEquals(n, index.size());
      assertEquals(meta.indexParameters(), index.parameters());
    }
    EliasFano offsets =
        meta.isFixedSize() || meta.isPaged()
            ? null
            : StoreFileReader.read(
                dir.resolve(StoreFile.OFFSETS.fileName()), StoreFile.OFFSETS, (in, len) -> EliasFano.readFrom(in, n + 1));
    if (offsets != null) {
      assertEquals(n + 1, offsets.size());
      assertEquals(meta.dataBytes(), offsets.get(n), "last offset is the data size");
    }
    byte[] data = StoreFileReader.read(dir.resolve(StoreFile.DATA.fileName()), StoreFile.DATA, (in, len) -> in.readAllBytes());
    assertEquals(meta.dataBytes(), data.length, "data payload size");

    if (hasher == null) {
      hasher = RecordHasher.xxh3(meta.seed());
    }
    PagedRecords paged = meta.isPaged() ? PagedRecords.read(dir, meta, data) : null;
    long[] hash = new long[2];
    long lastHi = 0;
    long lastLo = 0;
    List<byte[]> keys = new ArrayList<>();
    List<byte[]> values = new ArrayList<>();
    int page = meta.pageBytes();
    int checkBytes = meta.checkBytes();
    int position = 0;
    for (long i = 0; i < n; i++) {
      int keyStart;
      int keyLength;
      int valueLength;
      int start;
      if (meta.isFixedSize()) {
        keyLength = meta.keyLength();
        valueLength = meta.valueLength();
        start = (int) RecordFormat.fixedRecordOffset(i, keyLength + valueLength + checkBytes, page);
        keyStart = start;
      } else {
        start = paged != null ? paged.starts[(int) i] : (int) offsets.get(i);
        assertTrue(start >= position, "records in order");
        long key = RecordFormat.decodeVarint(data, start, data.length);
        long value = RecordFormat.decodeVarint(data, start + (int) (key >>> 32), data.length);
        keyLength = (int) key;
        valueLength = (int) value;
        keyStart = start + (int) (key >>> 32) + (int) (value >>> 32);
        long length = keyStart - start + (long) keyLength + valueLength + checkBytes;
        if (paged == null) {
          assertEquals(RecordFormat.alignedStart(position, length, page), start, "record " + i + " placed by the page alignment");
        }
      }
      for (int p = position; p < start && paged == null; p++) {
        assertEquals(0, data[p], "padding is zero before record " + i);
      }
      assertTrue((long) keyStart + keyLength + valueLength + checkBytes <= data.length, "record " + i + " within the data");
      byte[] k = Arrays.copyOfRange(data, keyStart, keyStart + keyLength);
      byte[] v = Arrays.copyOfRange(data, keyStart + keyLength, keyStart + keyLength + valueLength);
      position = keyStart + keyLength + valueLength;
      if (checkBytes > 0) {
        assertEquals(expectedCheck(meta.recordChecksum(), meta.recordCheckSalt(), data, start, position), ByteBuffer.wrap(data, position, 4).order(java.nio.ByteOrder.LITTLE_ENDIAN).getInt(),
            "checksum of record " + i);
        position += checkBytes;
      }
      int length = position - start;
      if (page > 0 && length > 0 && length <= page && paged == null) {
        assertEquals(start / page, (position - 1) / page, "record " + i + " within one page");
      }
      hasher.hash(k, 0, k.length, hash);
      if (i > 0) {
        assertTrue(KeyHasher.compare(lastHi, lastLo, hash[0], hash[1]) < 0, "strict hash order at record " + i);
      }
      lastHi = hash[0];
      lastLo = hash[1];
      if (paged != null) {
        paged.checkEntry((int) i, hash[0], hash[1], meta);
      } else {
        assertEquals(i, meta.hashRange().rank(index, hash[0], hash[1]), "rank of the key of record " + i);
      }
      keys.add(k);
      values.add(v);
    }
    assertEquals(data.length, position, "data ends after the last record");
    return new Contents(meta, keys, values);
  }

  /**
   * A paged store's records as docs/FORMAT.md lays them out, decoded here independently of {@code
   * PageTable} and {@code PagedDataWriter}: the pages file's rows, each frame's head (its check and
   * entries) right after the tail of the record before it, zero padding between frames, and where
   * each record starts.
   */
  static final class PagedRecords {
    final int[] starts;
    final int[] fragments;
    /** The first of the frame each record is the first of, or -1 for the others. */
    final long[] firsts;

    private PagedRecords(int n) {
      starts = new int[n];
      fragments = new int[n];
      firsts = new long[n];
      Arrays.fill(firsts, -1);
    }

    static PagedRecords read(Path dir, StoreMeta meta, byte[] data) throws IOException {
      int n = (int) meta.recordCount();
      PagedRecords records = new PagedRecords(n);
      ByteBuffer table =
          ByteBuffer.wrap(StoreFileReader.read(dir.resolve(StoreFile.PAGES.fileName()), StoreFile.PAGES, (in, len) -> in.readAllBytes()));
      int page = table.getInt();
      assertEquals(meta.pageBytes(), page);
      int frames = table.getInt();
      assertEquals((data.length + page - 1) / page, frames, "frame count");
      ByteBuffer payload = ByteBuffer.wrap(data).order(java.nio.ByteOrder.LITTLE_ENDIAN);
      int rank = 0;
      int end = 0; // where the previous frame's records end
      for (int f = 0; f < frames; f++) {
        int first = table.getInt();
        int count = table.getShort() & 0xFFFF;
        int headerStart = table.getShort() & 0xFFFF;
        int recordsEnd = table.getShort() & 0xFFFF;
        if (count == 0) {
          assertEquals(0, headerStart + recordsEnd, "frame " + f + " without records");
          continue;
        }
        int frame = f * page;
        int head = frame + headerStart;
        assertEquals(Math.max(frame, end), head, "frame " + f + "'s head follows the tail before it");
        for (int p = end; p < frame; p++) {
          assertEquals(0, data[p], "padding is zero before frame " + f);
        }
        RecordChecksum headFunction = meta.recordChecksum() == RecordChecksum.CRC32C ? RecordChecksum.CRC32C : RecordChecksum.XXH3;
        long entriesHash = specHash(headFunction, data, head + 4, head + 4 + 4 * count);
        assertEquals((int) (entriesHash ^ (head + meta.recordCheckSalt()) * 0x9E3779B97F4A7C15L), payload.getInt(head), "head check of frame " + f);
        int position = head + 4 + 4 * count;
        for (int i = 0; i < count; i++) {
          int fragment = payload.getShort(head + 4 + 4 * i) & 0xFFFF;
          int offset = payload.getShort(head + 6 + 4 * i) & 0xFFFF;
          assertEquals(position, frame + offset, "entry " + i + " of frame " + f);
          records.starts[rank] = position;
          records.fragments[rank] = fragment;
          if (i == 0) {
            records.firsts[rank] = Integer.toUnsignedLong(first);
          }
          long key = RecordFormat.decodeVarint(data, position, data.length);
          long value = RecordFormat.decodeVarint(data, position + (int) (key >>> 32), data.length);
          position += (int) (key >>> 32) + (int) (value >>> 32) + (int) key + (int) value + meta.checkBytes();
          rank++;
        }
        assertEquals(Math.min(page, position - frame), recordsEnd, "records end of frame " + f);
        end = position;
      }
      assertEquals(n, rank, "the frames hold every record");
      assertEquals(data.length, end, "the last frame's records end the data");
      return records;
    }

    /** Checks record {@code i}'s entry against its key's hash {@code hi:lo}. */
    void checkEntry(int i, long hi, long lo, StoreMeta meta) {
      assertEquals((int) lo & 0xFFFF, fragments[i], "fragment of record " + i);
      if (firsts[i] >= 0) {
        assertEquals(meta.hashRange().mapHi(hi, lo) >>> 32, firsts[i], "first of the frame record " + i + " opens");
      }
    }
  }

  /**
   * The record checksum as docs/FORMAT.md specifies it, computed here independently of {@code
   * RecordChecksum}'s code: the hash {@code function} names (CRC32C or XXH3-64) of the record's
   * bytes, XOR its payload offset plus the meta's salt (version 7; 0 before) times the golden ratio.
   */
  static int expectedCheck(RecordChecksum function, long salt, byte[] payload, int start, int end) {
    return (int) (specHash(function, payload, start, end) ^ (start + salt) * 0x9E3779B97F4A7C15L);
  }

  /** The hash {@code function} names (CRC32C, else XXH3-64 with seed 0) of {@code bytes[from, to)}. */
  private static long specHash(RecordChecksum function, byte[] bytes, int from, int to) {
    if (function == RecordChecksum.CRC32C) {
      java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
      crc.update(bytes, from, to - from);
      return crc.getValue();
    }
    return net.openhft.hashing.LongHashFunction.xx3().hashBytes(bytes, from, to - from);
  }

  /** Names in {@code parent} left by a build: temporary or staging directories. */
  static List<String> leftovers(Path parent) throws IOException {
    try (Stream<Path> list = Files.list(parent)) {
      return list.map(p -> p.getFileName().toString())
          .filter(name -> name.startsWith(".varve-build-") || (name.startsWith(".") && name.contains(".staging-")))
          .sorted()
          .collect(Collectors.toList());
    }
  }

  /** Asserts that {@code parent} holds no temporary or staging directory of a build. */
  static void assertNoLeftovers(Path parent) throws IOException {
    List<String> left = leftovers(parent);
    assertTrue(left.isEmpty(), "leftovers in " + parent + ": " + left);
  }

  /** Asserts that a failed build left nothing: no target, no temporary or staging directory. */
  static void assertCleanFailure(Path target) throws IOException {
    assertFalse(Files.exists(target), "target exists after a failed build: " + target);
    assertNoLeftovers(target.getParent());
  }
}
