package io.varve.reader;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.core.blocked.BlockedIndexParameters;
import io.varve.core.index.IndexKind;
import io.varve.core.store.KeyMode;
import io.varve.core.store.StoreFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Reads the committed golden stores of each meta format version (1 to 4) and checks every
 * record, and checks that today's builder still writes the same data, offsets and index bytes
 * (meta differs only in its creation time). Versions 1 to 3 have no record checksums (data
 * format version 1); version 4 has them (data format version 2).
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
    check(GOLDEN.resolve(GoldenStoreFiles.CHECKED_VARIABLE), GoldenStoreFiles::variableKey, GoldenStoreFiles::variableValue, false);
    check(GOLDEN.resolve(GoldenStoreFiles.CHECKED_FIXED), GoldenStoreFiles::fixedKey, GoldenStoreFiles::fixedValue, true);
    for (String sample : new String[] {GoldenStoreFiles.CHECKED_VARIABLE, GoldenStoreFiles.CHECKED_FIXED}) {
      try (Store store = Store.open(GOLDEN.resolve(sample))) {
        assertTrue(store.meta().recordChecksums(), sample);
        assertEquals(4, store.stats().formatVersion(), sample);
      }
    }
  }

  /**
   * The checksums of the fixed-size checked sample, computed here from docs/FORMAT.md alone: XXH3-64
   * of the record's 24 bytes, XOR its payload offset times 0x9E3779B97F4A7C15, low 32 bits, little-endian.
   */
  @Test
  void checkedSampleFollowsTheSpec() throws IOException {
    byte[] file = Files.readAllBytes(GOLDEN.resolve(GoldenStoreFiles.CHECKED_FIXED).resolve(StoreFile.DATA.fileName()));
    net.openhft.hashing.LongHashFunction xxh3 = net.openhft.hashing.LongHashFunction.xx3();
    java.nio.ByteBuffer payload =
        java.nio.ByteBuffer.wrap(file, StoreFile.DATA.payloadOffset(), file.length - (int) StoreFile.DATA.envelopeLength())
            .slice()
            .order(java.nio.ByteOrder.LITTLE_ENDIAN);
    for (int i = 0; i < GoldenStoreFiles.RECORDS; i++) {
      int start = (i / (4096 / 28)) * 4096 + (i % (4096 / 28)) * 28;
      byte[] record = new byte[24];
      payload.get(start, record);
      int expected = (int) (xxh3.hashBytes(record) ^ start * 0x9E3779B97F4A7C15L);
      assertEquals(expected, payload.getInt(start + 24), "checksum of record " + i);
    }
  }

  @Test
  void readsPagedSample() throws IOException {
    Path dir = GOLDEN.resolve(GoldenStoreFiles.PAGED);
    check(dir, GoldenStoreFiles::variableKey, GoldenStoreFiles::pagedValue, false);
    try (Store store = Store.open(dir)) {
      assertTrue(store.meta().isPaged());
      assertEquals(5, store.stats().formatVersion());
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
  @Test
  void pagedSampleFollowsTheSpec() throws IOException {
    Path dir = GOLDEN.resolve(GoldenStoreFiles.PAGED);
    byte[] dataFile = Files.readAllBytes(dir.resolve(StoreFile.DATA.fileName()));
    byte[] pagesFile = Files.readAllBytes(dir.resolve(StoreFile.PAGES.fileName()));
    net.openhft.hashing.LongHashFunction xxh3 = net.openhft.hashing.LongHashFunction.xx3();
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
      assertEquals((int) (xxh3.hashBytes(entries) ^ head * 0x9E3779B97F4A7C15L), data.getInt(head), "head check of frame " + f);
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
        assertEquals((int) (xxh3.hashBytes(record) ^ position * 0x9E3779B97F4A7C15L), data.getInt(position + length), "check of a record");
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

  @Test
  void samplesCarryTheVersionsTheyNeed() throws IOException {
    String[][] expected = {
      {GoldenStoreFiles.VARIABLE, "1", "1"}, {GoldenStoreFiles.FIXED, "1", "1"}, {GoldenStoreFiles.SPARSE, "2", "1"},
      {GoldenStoreFiles.SIGNATURE, "2", "1"}, {GoldenStoreFiles.BLOCKED, "3", "1"},
      {GoldenStoreFiles.CHECKED_VARIABLE, "4", "2"}, {GoldenStoreFiles.CHECKED_FIXED, "4", "2"}, {GoldenStoreFiles.PAGED, "5", "3"}
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
    GoldenStoreFiles.writeCheckedVariable(temp.resolve("checked-variable"));
    GoldenStoreFiles.writeCheckedFixed(temp.resolve("checked-fixed"));
    GoldenStoreFiles.writePaged(temp.resolve("paged"));
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
