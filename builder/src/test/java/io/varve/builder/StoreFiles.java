package io.varve.builder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.core.hash.KeyHasher;
import io.varve.core.index.RankIndex;
import io.varve.core.store.IndexFile;
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
    assertEquals(!meta.isFixedSize(), expectedNames.contains(StoreFile.OFFSETS.fileName()));

    RankIndex index =
        StoreFileReader.read(dir.resolve(StoreFile.INDEX.fileName()), StoreFile.INDEX, (in, len) -> IndexFile.readFrom(in, meta, null));
    assertEquals(n, index.size());
    assertEquals(meta.indexParameters(), index.parameters());
    EliasFano offsets =
        meta.isFixedSize()
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
        assertTrue(offsets.get(i) >= position, "offsets increase");
        start = (int) offsets.get(i);
        long key = RecordFormat.decodeVarint(data, start, data.length);
        long value = RecordFormat.decodeVarint(data, start + (int) (key >>> 32), data.length);
        keyLength = (int) key;
        valueLength = (int) value;
        keyStart = start + (int) (key >>> 32) + (int) (value >>> 32);
        long length = keyStart - start + (long) keyLength + valueLength + checkBytes;
        assertEquals(RecordFormat.alignedStart(position, length, page), start, "record " + i + " placed by the page alignment");
      }
      for (int p = position; p < start; p++) {
        assertEquals(0, data[p], "padding is zero before record " + i);
      }
      assertTrue((long) keyStart + keyLength + valueLength + checkBytes <= data.length, "record " + i + " within the data");
      byte[] k = Arrays.copyOfRange(data, keyStart, keyStart + keyLength);
      byte[] v = Arrays.copyOfRange(data, keyStart + keyLength, keyStart + keyLength + valueLength);
      position = keyStart + keyLength + valueLength;
      if (checkBytes > 0) {
        assertEquals(expectedCheck(data, start, position), ByteBuffer.wrap(data, position, 4).order(java.nio.ByteOrder.LITTLE_ENDIAN).getInt(),
            "checksum of record " + i);
        position += checkBytes;
      }
      int length = position - start;
      if (page > 0 && length > 0 && length <= page) {
        assertEquals(start / page, (position - 1) / page, "record " + i + " within one page");
      }
      hasher.hash(k, 0, k.length, hash);
      if (i > 0) {
        assertTrue(KeyHasher.compare(lastHi, lastLo, hash[0], hash[1]) < 0, "strict hash order at record " + i);
      }
      lastHi = hash[0];
      lastLo = hash[1];
      assertEquals(i, meta.hashRange().rank(index, hash[0], hash[1]), "rank of the key of record " + i);
      keys.add(k);
      values.add(v);
    }
    assertEquals(data.length, position, "data ends after the last record");
    return new Contents(meta, keys, values);
  }

  /**
   * The record checksum as docs/FORMAT.md specifies it, computed here independently of {@code
   * RecordChecksum}: XXH3-64 of the record's bytes, XOR its payload offset times the golden ratio.
   */
  static int expectedCheck(byte[] payload, int start, int end) {
    return (int) (net.openhft.hashing.LongHashFunction.xx3().hashBytes(payload, start, end - start) ^ start * 0x9E3779B97F4A7C15L);
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
