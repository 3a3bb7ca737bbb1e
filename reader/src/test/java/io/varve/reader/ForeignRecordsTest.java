package io.varve.reader;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.builder.StoreBuilder;
import io.varve.core.format.CorruptStoreException;
import io.varve.core.store.StoreFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * Records of another build of the same layout, copied over a store's data file (a copy of a newer
 * build interrupted and resumed, a block device that mixed two versions): each is intact and at
 * the same place as the record it replaces. Found by the hostile serving campaign: the record
 * checks mixed in only the record's offset, so the copied records passed them and lookups served
 * the other build's values, and since a record followed by its own CRC32C adds nothing to a CRC32C
 * over both, the data file's checksum did not change either and {@code verify()} passed. Each
 * data file's checks now mix in a salt of its own (meta version 7).
 */
class ForeignRecordsTest {
  private static final int RECORDS = 5_000;

  @TempDir Path temp;

  /** Variable-size records (a paged store) and fixed-size ones (a blocked index). */
  @ParameterizedTest(name = "fixed sizes: {0}")
  @ValueSource(booleans = {false, true})
  void recordsOfAnotherBuildAreRefusedNotServed(boolean fixed) throws IOException {
    Path a = build(temp.resolve("a"), "A", fixed);
    Path b = build(temp.resolve("b"), "B", fixed);
    Path dataA = a.resolve(StoreFile.DATA.fileName());
    Path dataB = b.resolve(StoreFile.DATA.fileName());
    try (FileChannel from = FileChannel.open(dataB, StandardOpenOption.READ);
        FileChannel to = FileChannel.open(dataA, StandardOpenOption.WRITE)) {
      ByteBuffer page = ByteBuffer.allocate(4096);
      from.read(page, 4096);
      page.flip();
      to.write(page, 4096);
    }
    int refused = 0;
    try (Store store = Store.open(a)) {
      for (int i = 0; i < RECORDS; i++) {
        byte[] key = key(i, fixed);
        try {
          byte[] value = store.get(key);
          assertArrayEquals(value(i, "A"), value, "record " + i + ": another build's value served");
        } catch (CorruptStoreException e) {
          refused++;
        }
      }
      assertTrue(refused > 0, "no record of the copied page was refused");
      assertThrows(CorruptStoreException.class, store::verify);
    }
  }

  @ParameterizedTest(name = "fixed sizes: {0}")
  @ValueSource(booleans = {false, true})
  void eachBuildDrawsItsOwnSaltUnlessOneIsSet(boolean fixed) throws IOException {
    try (Store one = Store.open(build(temp.resolve("one"), "A", fixed));
        Store two = Store.open(build(temp.resolve("two"), "A", fixed))) {
      assertNotEquals(0, one.meta().recordCheckSalt());
      assertNotEquals(one.meta().recordCheckSalt(), two.meta().recordCheckSalt());
      assertEquals(7, one.stats().formatVersion());
    }
    Path set = temp.resolve("set");
    try (StoreBuilder builder = StoreBuilder.create(set).recordCheckSalt(0x5A17L)) {
      builder.put(key(1, fixed), value(1, "A"));
      builder.build();
    }
    try (Store store = Store.open(set)) {
      assertEquals(0x5A17L, store.meta().recordCheckSalt());
      assertArrayEquals(value(1, "A"), store.get(key(1, fixed)));
    }
  }

  private static Path build(Path dir, String version, boolean fixed) throws IOException {
    try (StoreBuilder builder = StoreBuilder.create(dir)) {
      for (int i = 0; i < RECORDS; i++) {
        builder.put(key(i, fixed), value(i, version));
      }
      builder.build();
    }
    return dir;
  }

  private static byte[] key(int i, boolean fixed) {
    return (fixed ? String.format("user:%011d", i) : "user:" + i).getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] value(int i, String version) {
    return String.format("%s-%06d", version, i).getBytes(StandardCharsets.UTF_8);
  }
}
