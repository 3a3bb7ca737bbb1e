package io.varve.reader;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.core.blocked.BlockedIndexParameters;
import io.varve.core.index.IndexKind;
import io.varve.core.store.KeyMode;
import io.varve.core.store.RecordChecksum;
import io.varve.core.store.StoreFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.IntFunction;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Reads the committed golden stores of each meta format version (1 to 7) and checks every
 * record, and checks that today's builder still writes the same data, offsets and index bytes
 * (meta differs only in its creation time) when given the samples' salts. Versions 1 to 3 have no
 * record checksums (data format version 1); versions 4 to 7 have them (data format version 2, or 3
 * when paged), salted in version 7.
 */
class GoldenStoreTest {
  private static final Path GOLDEN = Path.of("src/test/resources/golden");

  @TempDir Path temp;

  @Test
  void readsVariableSizeSample() throws IOException {
    check(GOLDEN.resolve(GoldenStoreFiles.VARIABLE), GoldenStoreFiles::variableKey, GoldenStoreFiles::variableValue, false);
  }

  @Test
  void readsFixedSizeSample() throws IOException {
    check(GOLDEN.resolve(GoldenStoreFiles.FIXED), GoldenStoreFiles::fixedKey, GoldenStoreFiles::fixedValue, true);
  }

  @Test
  void readsSparseSample() throws IOException {
    Path dir = GOLDEN.resolve(GoldenStoreFiles.SPARSE);
    check(dir, GoldenStoreFiles::variableKey, GoldenStoreFiles::variableValue, false);
    try (Store store = Store.open(dir)) {
      assertEquals(512, store.stats().blockBytes());
    }
  }

  @Test
  void readsSignatureSample() throws IOException {
    Path dir = GOLDEN.resolve(GoldenStoreFiles.SIGNATURE);
    try (Store store = Store.open(dir)) {
      assertEquals(io.varve.core.store.KeyMode.signature(12), store.meta().keyMode());
      assertEquals(GoldenStoreFiles.RECORDS, store.size());
      for (int i = 0; i < GoldenStoreFiles.RECORDS; i++) {
        assertArrayEquals(GoldenStoreFiles.fixedValue(i), store.get(GoldenStoreFiles.fixedKey(i)), "record " + i);
      }
      store.verify();
    }
  }

  @Test
  void readsBlockedIndexSample() throws IOException {
    Path dir = GOLDEN.resolve(GoldenStoreFiles.BLOCKED);
    check(dir, GoldenStoreFiles::variableKey, GoldenStoreFiles::variableValue, false);
    try (Store store = Store.open(dir)) {
      assertEquals(new BlockedIndexParameters(100), store.meta().indexParameters());
      assertEquals(3, store.meta().formatVersion());
      assertEquals(3, store.stats().formatVersion());
      assertEquals(IndexKind.BLOCKED, store.stats().indexKind());
      assertTrue(store.stats().indexBitsPerKey() >= 1024.0 / 100, store.stats().toJson());
    }
  }

  @Test
  void readsCheckedSamples() throws IOException {
    for (String sample : new String[] {GoldenStoreFiles.XXH3_CHECKED_VARIABLE, GoldenStoreFiles.CHECKED_VARIABLE, GoldenStoreFiles.SALTED_VARIABLE}) {
      check(GOLDEN.resolve(sample), GoldenStoreFiles::variableKey, GoldenStoreFiles::variableValue, false);
    }
    for (String sample : new String[] {GoldenStoreFiles.XXH3_CHECKED_FIXED, GoldenStoreFiles.CHECKED_FIXED, GoldenStoreFiles.SALTED_FIXED}) {
      check(GOLDEN.resolve(sample), GoldenStoreFiles::fixedKey, GoldenStoreFiles::fixedValue, true);
    }
    Object[][] expected = {
      {GoldenStoreFiles.XXH3_CHECKED_VARIABLE, RecordChecksum.XXH3, 4, 0L}, {GoldenStoreFiles.XXH3_CHECKED_FIXED, RecordChecksum.XXH3, 4, 0L},
      {GoldenStoreFiles.CHECKED_VARIABLE, RecordChecksum.CRC32C, 6, 0L}, {GoldenStoreFiles.CHECKED_FIXED, RecordChecksum.CRC32C, 6, 0L},
      {GoldenStoreFiles.SALTED_VARIABLE, RecordChecksum.CRC32C, 7, GoldenStoreFiles.SALT},
      {GoldenStoreFiles.SALTED_FIXED, RecordChecksum.CRC32C, 7, GoldenStoreFiles.SALT}
    };
    for (Object[] sample : expected) {
      try (Store store = Store.open(GOLDEN.resolve((String) sample[0]))) {
        assertEquals(sample[1], store.meta().recordChecksum(), (String) sample[0]);
        assertEquals(sample[2], store.stats().formatVersion(), (String) sample[0]);
        assertEquals(sample[3], store.meta().recordCheckSalt(), (String) sample[0]);
      }
    }
  }

  /** A record check as docs/FORMAT.md defines it, computed without Varve's code. */
  private interface SpecHash {
    long of(byte[] bytes);

    SpecHash XXH3 = net.openhft.hashing.LongHashFunction.xx3()::hashBytes;
    SpecHash CRC32C =
        bytes -> {
          java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
          crc.update(bytes);
          return crc.getValue();
        };
  }

  static Stream<Arguments> checkedFixedSamples() {
    return Stream.of(
        Arguments.of(GoldenStoreFiles.XXH3_CHECKED_FIXED, "XXH3", 0L),
        Arguments.of(GoldenStoreFiles.CHECKED_FIXED, "CRC32C", 0L),
        Arguments.of(GoldenStoreFiles.SALTED_FIXED, "CRC32C", GoldenStoreFiles.SALT));
  }

  static Stream<Arguments> pagedSamples() {
    return Stream.of(
        Arguments.of(GoldenStoreFiles.XXH3_PAGED, "XXH3", 0L),
        Arguments.of(GoldenStoreFiles.PAGED, "CRC32C", 0L),
        Arguments.of(GoldenStoreFiles.SALTED_PAGED, "CRC32C", GoldenStoreFiles.SALT));
  }

  private static SpecHash specHash(String name) {
    return name.equals("XXH3") ? SpecHash.XXH3 : SpecHash.CRC32C;
  }

  /**
   * The checksums of the fixed-size checked samples, computed here from docs/FORMAT.md alone: the
   * hash (XXH3-64 in meta version 4, CRC32C in 6 and 7) of the record's 24 bytes, XOR its payload
   * offset plus the salt (meta version 7; 0 before) times 0x9E3779B97F4A7C15, low 32 bits,
   * little-endian. The salt is read where FORMAT.md puts it: the 8 bytes after recordCheck.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("checkedFixedSamples")
  void checkedSampleFollowsTheSpec(String sample, String hashName, long salt) throws IOException {
    assertEquals(salt, saltInMetaFile(GOLDEN.resolve(sample)));
    byte[] file = Files.readAllBytes(GOLDEN.resolve(sample).resolve(StoreFile.DATA.fileName()));
    SpecHash hash = specHash(hashName);
    java.nio.ByteBuffer payload =
        java.nio.ByteBuffer.wrap(file, StoreFile.DATA.payloadOffset(), file.length - (int) StoreFile.DATA.envelopeLength())
            .slice()
            .order(java.nio.ByteOrder.LITTLE_ENDIAN);
    for (int i = 0; i < GoldenStoreFiles.RECORDS; i++) {
      int start = (i / (4096 / 28)) * 4096 + (i % (4096 / 28)) * 28;
      byte[] record = new byte[24];
      payload.get(start, record);
      int expected = (int) (hash.of(record) ^ (start + salt) * 0x9E3779B97F4A7C15L);
      assertEquals(expected, payload.getInt(start + 24), "checksum of record " + i);
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("pagedSamples")
  void readsPagedSample(String sample, String hashName, long salt) throws IOException {
    Path dir = GOLDEN.resolve(sample);
    check(dir, GoldenStoreFiles::variableKey, GoldenStoreFiles::pagedValue, false);
    try (Store store = Store.open(dir)) {
      assertTrue(store.meta().isPaged());
      assertEquals(RecordChecksum.valueOf(hashName), store.meta().recordChecksum());
      assertEquals(hashName.equals("XXH3") ? 5 : salt == 0 ? 6 : 7, store.stats().formatVersion());
      assertEquals(salt, store.meta().recordCheckSalt());
      assertEquals(IndexKind.PAGED, store.stats().indexKind());
      assertEquals(512, store.meta().pageBytes());
    }
  }

  /**
   * The paged sample decoded from docs/FORMAT.md alone: the pages file's frames, each frame's head
   * (its check, and entries whose fragments are the low 16 bits of the key hashes and whose offsets
   * point at the records, back to back from the head), the firsts (top 32 bits of each frame's first
   * hash), records that cross frames, and the checksum of every record.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("pagedSamples")
  void pagedSampleFollowsTheSpec(String sample, String hashName, long salt) throws IOException {
    Path dir = GOLDEN.resolve(sample);
    assertEquals(salt, saltInMetaFile(dir));
    SpecHash check = specHash(hashName);
    byte[] dataFile = Files.readAllBytes(dir.resolve(StoreFile.DATA.fileName()));
    byte[] pagesFile = Files.readAllBytes(dir.resolve(StoreFile.PAGES.fileName()));
    java.nio.ByteBuffer data =
        java.nio.ByteBuffer.wrap(dataFile, StoreFile.DATA.payloadOffset(), dataFile.length - (int) StoreFile.DATA.envelopeLength())
            .slice()
            .order(java.nio.ByteOrder.LITTLE_ENDIAN);
    java.nio.ByteBuffer pages = java.nio.ByteBuffer.wrap(pagesFile, StoreFile.PAGES.payloadOffset(), pagesFile.length - (int) StoreFile.PAGES.envelopeLength()).slice();
    int pageBytes = pages.getInt();
    int frameCount = pages.getInt();
    assertEquals(512, pageBytes);
    assertEquals((data.capacity() + pageBytes - 1) / pageBytes, frameCount);
    io.varve.core.hash.KeyHasher hasher = io.varve.core.hash.KeyHasher.withSeed(5);
    long[] hash = new long[2];
    int records = 0;
    int crossing = 0;
    long previousEnd = 0;
    for (int f = 0; f < frameCount; f++) {
      int first = pages.getInt();
      int count = pages.getShort() & 0xFFFF;
      int headerStart = pages.getShort() & 0xFFFF;
      int recordsEnd = pages.getShort() & 0xFFFF;
      if (count == 0) {
        continue;
      }
      long frame = (long) f * pageBytes;
      int head = (int) frame + headerStart;
      assertEquals(Math.max(frame, previousEnd), head, "frame " + f + "'s head follows the tail");
      byte[] entries = new byte[4 * count];
      data.get(head + 4, entries);
      assertEquals((int) (check.of(entries) ^ (head + salt) * 0x9E3779B97F4A7C15L), data.getInt(head), "head check of frame " + f);
      int position = head + 4 + 4 * count;
      for (int i = 0; i < count; i++) {
        int fragment = data.getShort(head + 4 + 4 * i) & 0xFFFF;
        int offset = data.getShort(head + 4 + 4 * i + 2) & 0xFFFF;
        assertEquals(position, frame + offset, "entry " + i + " of frame " + f);
        int keyLength = data.get(position); // the sample's lengths fit one varint byte... or two
        int at = position + 1;
        if (keyLength < 0) {
          keyLength = keyLength & 0x7F | data.get(at++) << 7;
        }
        int valueLength = data.get(at++);
        if (valueLength < 0) {
          valueLength = valueLength & 0x7F | data.get(at++) << 7;
        }
        byte[] key = new byte[keyLength];
        data.get(at, key);
        hasher.hash(key, 0, keyLength, hash);
        assertEquals((int) hash[1] & 0xFFFF, fragment, "fragment of entry " + i + " of frame " + f);
        if (i == 0) {
          assertEquals((int) (hash[0] >>> 32), first, "first of frame " + f);
        }
        int length = at - position + keyLength + valueLength;
        byte[] record = new byte[length];
        data.get(position, record);
        assertEquals((int) (check.of(record) ^ (position + salt) * 0x9E3779B97F4A7C15L), data.getInt(position + length), "check of a record");
        position += length + 4;
        records++;
      }
      assertEquals(Math.min(pageBytes, position - frame), recordsEnd, "records end of frame " + f);
      crossing += position > frame + pageBytes ? 1 : 0;
      previousEnd = position;
    }
    assertEquals(GoldenStoreFiles.RECORDS, records);
    assertEquals(data.capacity(), previousEnd, "the payload ends with the last record");
    assertTrue(crossing > 0, "some records cross frames");
  }

  /**
   * A store checked with XXH3 (meta version 4) as a merge's base, and re-indexed: its records are
   * checked with XXH3 as they are read, and every store written from them is checked with CRC32C,
   * except a re-indexing that keeps the data file (and so its checks).
   */
  @Test
  void xxh3StoresMergeAndReindexIntoStoresOfTheirOwnChecks() throws IOException {
    Path base = GOLDEN.resolve(GoldenStoreFiles.XXH3_CHECKED_VARIABLE);
    Path merged = temp.resolve("merged");
    byte[] added = "added \u00e9".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    try (io.varve.builder.StoreMerger merger = io.varve.builder.StoreMerger.create(merged).base(base)) {
      merger.put(added, new byte[] {1, 2, 3});
      merger.put(GoldenStoreFiles.variableKey(7), new byte[] {9});
      merger.merge();
    }
    try (Store store = Store.open(merged)) {
      assertEquals(RecordChecksum.CRC32C, store.meta().recordChecksum());
      assertEquals(GoldenStoreFiles.RECORDS + 1, store.size());
      for (int i = 0; i < GoldenStoreFiles.RECORDS; i++) {
        assertArrayEquals(i == 7 ? new byte[] {9} : GoldenStoreFiles.variableValue(i), store.get(GoldenStoreFiles.variableKey(i)), "record " + i);
      }
      assertArrayEquals(new byte[] {1, 2, 3}, store.get(added));
      store.verify();
    }
    Path indexed = temp.resolve("reindexed");
    io.varve.builder.StoreReindexer.reindex(base, indexed, io.varve.builder.StoreReindexer.DENSE, new BlockedIndexParameters(50));
    check(indexed, GoldenStoreFiles::variableKey, GoldenStoreFiles::variableValue, false);
    try (Store store = Store.open(indexed)) {
      assertEquals(RecordChecksum.XXH3, store.meta().recordChecksum(), "the data file is kept as it is");
    }
    Path relaidOut = temp.resolve("relaid-out");
    io.varve.builder.StoreReindexer.reindex(
        GOLDEN.resolve(GoldenStoreFiles.XXH3_PAGED), relaidOut, io.varve.builder.StoreReindexer.DENSE, new BlockedIndexParameters(50));
    check(relaidOut, GoldenStoreFiles::variableKey, GoldenStoreFiles::pagedValue, false);
    try (Store store = Store.open(relaidOut)) {
      assertEquals(RecordChecksum.CRC32C, store.meta().recordChecksum(), "the records are written anew");
    }
  }

  @Test
  void samplesCarryTheVersionsTheyNeed() throws IOException {
    String[][] expected = {
      {GoldenStoreFiles.VARIABLE, "1", "1"}, {GoldenStoreFiles.FIXED, "1", "1"}, {GoldenStoreFiles.SPARSE, "2", "1"},
      {GoldenStoreFiles.SIGNATURE, "2", "1"}, {GoldenStoreFiles.BLOCKED, "3", "1"},
      {GoldenStoreFiles.XXH3_CHECKED_VARIABLE, "4", "2"}, {GoldenStoreFiles.XXH3_CHECKED_FIXED, "4", "2"}, {GoldenStoreFiles.XXH3_PAGED, "5", "3"},
      {GoldenStoreFiles.CHECKED_VARIABLE, "6", "2"}, {GoldenStoreFiles.CHECKED_FIXED, "6", "2"}, {GoldenStoreFiles.PAGED, "6", "3"},
      {GoldenStoreFiles.SALTED_VARIABLE, "7", "2"}, {GoldenStoreFiles.SALTED_FIXED, "7", "2"}, {GoldenStoreFiles.SALTED_PAGED, "7", "3"}
    };
    for (String[] sample : expected) {
      Path meta = GOLDEN.resolve(sample[0]).resolve(StoreFile.META.fileName());
      assertEquals(Integer.parseInt(sample[1]), StoreFile.META.checkHeader(Files.readAllBytes(meta), meta.toString()), sample[0]);
      Path data = GOLDEN.resolve(sample[0]).resolve(StoreFile.DATA.fileName());
      assertEquals(Integer.parseInt(sample[2]), StoreFile.DATA.checkHeader(Files.readAllBytes(data), data.toString()), sample[0]);
    }
  }

  @Test
  void todaysBuilderWritesTheSameBytes() throws IOException {
    GoldenStoreFiles.writeVariable(temp.resolve("variable"));
    GoldenStoreFiles.writeFixed(temp.resolve("fixed"));
    GoldenStoreFiles.writeSparse(temp.resolve("sparse"));
    GoldenStoreFiles.writeSignature(temp.resolve("signature"));
    GoldenStoreFiles.writeBlocked(temp.resolve("blocked"));
    GoldenStoreFiles.writeCheckedVariable(temp.resolve("checked-variable"), 0);
    GoldenStoreFiles.writeCheckedFixed(temp.resolve("checked-fixed"), 0);
    GoldenStoreFiles.writePaged(temp.resolve("paged"), 0);
    GoldenStoreFiles.writeCheckedVariable(temp.resolve("salted-variable"), GoldenStoreFiles.SALT);
    GoldenStoreFiles.writeCheckedFixed(temp.resolve("salted-fixed"), GoldenStoreFiles.SALT);
    GoldenStoreFiles.writePaged(temp.resolve("salted-paged"), GoldenStoreFiles.SALT);
    for (String file : new String[] {"data", "pages"}) {
      assertSameBytes(GOLDEN.resolve(GoldenStoreFiles.SALTED_PAGED).resolve(file), temp.resolve("salted-paged").resolve(file));
    }
    for (String file : new String[] {"data", "offsets", "index"}) {
      assertSameBytes(GOLDEN.resolve(GoldenStoreFiles.SALTED_VARIABLE).resolve(file), temp.resolve("salted-variable").resolve(file));
    }
    for (String file : new String[] {"data", "index"}) {
      assertSameBytes(GOLDEN.resolve(GoldenStoreFiles.SALTED_FIXED).resolve(file), temp.resolve("salted-fixed").resolve(file));
    }
    for (String file : new String[] {"data", "pages"}) {
      assertSameBytes(GOLDEN.resolve(GoldenStoreFiles.PAGED).resolve(file), temp.resolve("paged").resolve(file));
    }
    for (String file : new String[] {"data", "offsets", "index"}) {
      assertSameBytes(GOLDEN.resolve(GoldenStoreFiles.CHECKED_VARIABLE).resolve(file), temp.resolve("checked-variable").resolve(file));
    }
    for (String file : new String[] {"data", "index"}) {
      assertSameBytes(GOLDEN.resolve(GoldenStoreFiles.CHECKED_FIXED).resolve(file), temp.resolve("checked-fixed").resolve(file));
    }
    for (String file : new String[] {"data", "offsets", "index"}) {
      assertSameBytes(GOLDEN.resolve(GoldenStoreFiles.BLOCKED).resolve(file), temp.resolve("blocked").resolve(file));
    }
    for (String file : new String[] {"data", "hashes", "index"}) {
      assertSameBytes(GOLDEN.resolve(GoldenStoreFiles.SIGNATURE).resolve(file), temp.resolve("signature").resolve(file));
    }
    for (String file : new String[] {"data", "blocks", "index"}) {
      assertSameBytes(GOLDEN.resolve(GoldenStoreFiles.SPARSE).resolve(file), temp.resolve("sparse").resolve(file));
    }
    for (String file : new String[] {"data", "offsets", "index"}) {
      assertSameBytes(GOLDEN.resolve(GoldenStoreFiles.VARIABLE).resolve(file), temp.resolve("variable").resolve(file));
    }
    for (String file : new String[] {"data", "index"}) {
      assertSameBytes(GOLDEN.resolve(GoldenStoreFiles.FIXED).resolve(file), temp.resolve("fixed").resolve(file));
    }
  }

  /**
   * The recordCheckSalt of a meta file, decoded as docs/FORMAT.md lays it out: in a version-7
   * file, the int64 after recordCheck, which follows the index knobs, the key mode and three int32s.
   */
  private static long saltInMetaFile(Path dir) throws IOException {
    byte[] file = Files.readAllBytes(dir.resolve(StoreFile.META.fileName()));
    int version = StoreFile.META.checkHeader(file, dir.toString());
    if (version < 7) {
      return 0;
    }
    java.nio.ByteBuffer payload = java.nio.ByteBuffer.wrap(file, StoreFile.META.payloadOffset(), file.length - (int) StoreFile.META.envelopeLength()).slice();
    payload.position(16); // recordCount, seed
    int kind = payload.get();
    payload.position(payload.position() + (kind == 0 ? 12 : kind == 1 ? 4 : 0)); // EctKnobs, BlockedKnobs, paged: none
    int keyMode = payload.get();
    payload.position(payload.position() + (keyMode == 1 ? 1 : 0) + 12); // signatureBits; keyLength, valueLength, pageBytes
    assertEquals(RecordChecksum.CRC32C.code(), payload.get(), "recordCheck");
    return payload.getLong();
  }

  private static void assertSameBytes(Path expected, Path actual) throws IOException {
    assertArrayEquals(Files.readAllBytes(expected), Files.readAllBytes(actual), "bytes of " + actual.getFileName() + " changed: the format changed without a version bump?");
  }

  private static void check(Path dir, IntFunction<byte[]> keys, IntFunction<byte[]> values, boolean fixed) throws IOException {
    try (Store store = Store.open(dir)) {
      assertEquals(GoldenStoreFiles.RECORDS, store.size());
      assertEquals(fixed, store.meta().isFixedSize());
      for (int i = 0; i < GoldenStoreFiles.RECORDS; i++) {
        assertArrayEquals(values.apply(i), store.get(keys.apply(i)), "record " + i);
      }
      assertEquals(null, store.get("not there".getBytes(java.nio.charset.StandardCharsets.UTF_8)));
      store.verify();
      assertTrue(store.meta().createdMillis() > 0);
    }
  }
}
