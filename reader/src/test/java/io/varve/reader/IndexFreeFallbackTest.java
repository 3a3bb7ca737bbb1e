package io.varve.reader;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.builder.StoreBuilder;
import io.varve.core.format.CorruptStoreException;
import io.varve.core.store.KeyMode;
import io.varve.core.testing.TestRecords;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** A store opened without its index answers exactly as with it. */
class IndexFreeFallbackTest {
  @TempDir Path temp;

  private Path build(Map<ByteBuffer, byte[]> records) throws IOException {
    Path dir = temp.resolve("store");
    // A rank index, which the fallback does without (a paged store's table is always loaded).
    try (StoreBuilder builder = StoreBuilder.create(dir).indexParameters(StoreBuilder.DEFAULT_INDEX)) {
      for (Map.Entry<ByteBuffer, byte[]> e : records.entrySet()) {
        builder.put(e.getKey().array(), e.getValue());
      }
      builder.build();
    }
    return dir;
  }

  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void answersExactlyAsTheIndexedReader(boolean fixedSize) throws IOException {
    long seed = 0xFA11BAC4L + (fixedSize ? 1 : 0);
    System.out.println("IndexFreeFallbackTest fixedSize=" + fixedSize + " seed=" + seed);
    Map<ByteBuffer, byte[]> records =
        fixedSize ? TestRecords.fixed(3_000, seed, 16, 8) : TestRecords.variable(3_000, seed, 24, 24);
    Path dir = build(records);
    try (Store indexed = Store.open(dir);
        Store fallback = Store.openWithoutIndex(dir)) {
      assertTrue(indexed.hasIndex());
      assertFalse(fallback.hasIndex());
      StoreRoundTripTest.checkAgainst(fallback, records, seed + 1, 2_000);
      SplittableRandom random = new SplittableRandom(seed + 2);
      for (int i = 0; i < 5_000; i++) {
        byte[] key = random.nextBoolean() ? indexed.keyAt(random.nextLong(indexed.size())) : TestRecords.upTo(random, 30);
        assertEquals(indexed.indexOf(key), fallback.indexOf(key));
        assertArrayEquals(indexed.get(key), fallback.get(key));
      }
      assertEquals(0, fallback.stats().indexBits());
      fallback.verify();
    }
  }

  @Test
  void servesWhenTheIndexIsMissingOrDamaged() throws IOException {
    Map<ByteBuffer, byte[]> records = TestRecords.variable(500, 0xDA3A6EL, 16, 16);
    Path dir = build(records);
    Path index = dir.resolve("index");
    byte[] bytes = Files.readAllBytes(index);
    bytes[bytes.length / 2] ^= 0x10;
    Files.write(index, bytes);
    assertThrows(CorruptStoreException.class, () -> Store.open(dir));
    try (Store fallback = Store.openWithoutIndex(dir)) {
      StoreRoundTripTest.checkAgainst(fallback, records, 7, 500);
    }
    Files.delete(index);
    assertThrows(CorruptStoreException.class, () -> Store.open(dir), "the meta file lists the index");
    try (Store fallback = Store.openWithoutIndex(dir)) {
      StoreRoundTripTest.checkAgainst(fallback, records, 8, 500);
    }
  }

  @Test
  void emptyStoreWithoutIndex() throws IOException {
    Path dir = build(Map.of());
    try (Store fallback = Store.openWithoutIndex(dir)) {
      assertEquals(0, fallback.size());
      assertEquals(-1, fallback.indexOf(new byte[] {1}));
    }
  }

  /**
   * A meta file of another store (here one without full keys) is a damaged store, found by the
   * file sizes before anything else: before issue 19's fix the key mode was checked first and the
   * caller got UnsupportedOperationException, as if the store were intact.
   */
  @Test
  void aForeignMetaIsDamageNotAnUnsupportedStore() throws IOException {
    Path dir = build(TestRecords.variable(300, 0xF0E1L, 12, 20));
    Path other = temp.resolve("signature-store");
    try (StoreBuilder builder = StoreBuilder.create(other).keyMode(io.varve.core.store.KeyMode.signature(16))) {
      for (Map.Entry<ByteBuffer, byte[]> e : TestRecords.variable(40, 0xF0E2L, 12, 20).entrySet()) {
        builder.put(e.getKey().array(), e.getValue());
      }
      builder.build();
    }
    Files.copy(other.resolve("meta"), dir.resolve("meta"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    Files.copy(other.resolve("hashes"), dir.resolve("hashes"));
    CorruptStoreException e = assertThrows(CorruptStoreException.class, () -> Store.openWithoutIndex(dir));
    assertTrue(e.getMessage().contains("the meta file says"), e.getMessage());
    assertThrows(CorruptStoreException.class, () -> Store.open(dir));
  }

  /** A file the meta lists but the directory lacks is damage (exit 1 in the command), not a wrong path. */
  @Test
  void aMissingListedFileIsDamage() throws IOException {
    Path dir = build(TestRecords.variable(300, 0xF0E3L, 12, 20));
    Files.delete(dir.resolve("offsets"));
    CorruptStoreException e = assertThrows(CorruptStoreException.class, () -> Store.open(dir));
    assertTrue(e.getMessage().contains("missing, but the meta file lists it"), e.getMessage());
    assertThrows(CorruptStoreException.class, () -> Store.openWithoutIndex(dir));
    Files.delete(dir.resolve("meta"));
    assertThrows(NoSuchFileException.class, () -> Store.open(dir), "no meta file: not a store");
  }
}
