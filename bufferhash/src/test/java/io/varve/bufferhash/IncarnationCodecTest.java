package io.varve.bufferhash;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.core.format.CorruptStoreException;
import io.varve.core.hash.KeyHasher;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class IncarnationCodecTest {
  private static final KeyHasher HASHER = KeyHasher.withSeed(11);

  /** Small entries, empty ones and entries of several pages: every key is found in the unit its prefix names. */
  @Test
  void everyEntryIsFoundThroughItsUnitAndTheWholeDecodes() {
    long seed = 0x1C0DE;
    System.out.println("IncarnationCodecTest seed " + seed);
    Random random = new Random(seed);
    WriteBuffer buffer = new WriteBuffer(1 << 20, 2000);
    Map<ByteBuffer, byte[]> written = new HashMap<>();
    List<byte[]> keys = BufferHashModelTest.keyUniverse(random, 1500);
    long[] hash = new long[2];
    for (byte[] key : keys) {
      byte[] value = random.nextInt(100) == 0 ? new byte[5000 + random.nextInt(10_000)] : new byte[random.nextInt(30)];
      random.nextBytes(value);
      boolean tombstone = random.nextInt(20) == 0;
      HASHER.hash(key, hash);
      assertTrue(buffer.put(key, value, tombstone, hash[0], hash[1]));
      written.put(ByteBuffer.wrap(key), tombstone ? null : value);
    }
    IncarnationCodec.Encoded encoded = IncarnationCodec.encode(buffer, 3, 42, HASHER, 0);
    Incarnation incarnation = encoded.at(0);
    assertTrue(incarnation.units() > 10);
    for (byte[] key : keys) {
      HASHER.hash(key, hash);
      int prefix = (int) (hash[1] >>> 32);
      int unit = incarnation.lastUnitAtMost(prefix);
      boolean found = false;
      while (unit >= 0 && !found) {
        byte[] bytes = Arrays.copyOfRange(encoded.bytes, incarnation.unitStart(unit), incarnation.unitEnd(unit));
        int at = IncarnationCodec.findInUnit(bytes, bytes.length, 0, 42, incarnation.unitFirstPage(unit), key, "test");
        if (at >= 0) {
          assertArrayEquals(written.get(ByteBuffer.wrap(key)), WriteBuffer.value(bytes, at));
          found = true;
        } else if (unit > 0 && incarnation.fence(unit) == prefix) {
          unit--;
        } else {
          break;
        }
      }
      assertTrue(found, "key not found through its unit");
    }
    IncarnationCodec.Header header = IncarnationCodec.readHeader(encoded.bytes, 0, "test");
    int[] visited = {0};
    Incarnation decoded =
        IncarnationCodec.decode(encoded.bytes, header, 0, HASHER, new long[2][], (bytes, at, size) -> visited[0]++, "test");
    assertEquals(keys.size(), visited[0]);
    assertEquals(incarnation.units(), decoded.units());
    for (int u = 0; u < decoded.units(); u++) {
      assertEquals(incarnation.fence(u), decoded.fence(u));
      assertEquals(incarnation.unitStart(u), decoded.unitStart(u));
    }
  }

  @Test
  void aUnitOfAnotherIncarnationOrPlaceFailsItsChecksum() {
    WriteBuffer buffer = new WriteBuffer(4096, 10);
    long[] hash = new long[2];
    byte[] key = {1, 2, 3};
    HASHER.hash(key, hash);
    buffer.put(key, new byte[] {4}, false, hash[0], hash[1]);
    IncarnationCodec.Encoded encoded = IncarnationCodec.encode(buffer, 0, 7, HASHER, 0);
    byte[] unit = Arrays.copyOfRange(encoded.bytes, LogFormat.HEADER_BYTES, LogFormat.PAGE_BYTES);
    assertTrue(IncarnationCodec.findInUnit(unit, unit.length, 0, 7, 0, key, "test") >= 0);
    assertThrows(CorruptStoreException.class, () -> IncarnationCodec.findInUnit(unit, unit.length, 0, 8, 0, key, "test"));
    assertThrows(CorruptStoreException.class, () -> IncarnationCodec.findInUnit(unit, unit.length, 0, 7, 1, key, "test"));
    unit[10] ^= 1;
    assertThrows(CorruptStoreException.class, () -> IncarnationCodec.findInUnit(unit, unit.length, 0, 7, 0, key, "test"));
  }

  /** A unit salted with one table id fails the check of another, and of an unsalted table (id 0), and the other way round. */
  @Test
  void aUnitOfAnotherTableFailsItsChecksum() {
    WriteBuffer buffer = new WriteBuffer(4096, 10);
    long[] hash = new long[2];
    byte[] key = {1, 2, 3};
    HASHER.hash(key, hash);
    buffer.put(key, new byte[] {4}, false, hash[0], hash[1]);
    IncarnationCodec.Encoded encoded = IncarnationCodec.encode(buffer, 0, 7, HASHER, 0xA1);
    byte[] unit = Arrays.copyOfRange(encoded.bytes, LogFormat.HEADER_BYTES, LogFormat.PAGE_BYTES);
    assertTrue(IncarnationCodec.findInUnit(unit, unit.length, 0xA1, 7, 0, key, "test") >= 0);
    assertThrows(CorruptStoreException.class, () -> IncarnationCodec.findInUnit(unit, unit.length, 0xA2, 7, 0, key, "test"));
    assertThrows(CorruptStoreException.class, () -> IncarnationCodec.findInUnit(unit, unit.length, 0, 7, 0, key, "test"));
    assertEquals(0xA1, IncarnationCodec.readHeader(encoded.bytes, 0xA1, "test").tableId);
    assertEquals(LogFormat.SALTED_VERSION, encoded.bytes[4]);
    assertThrows(CorruptStoreException.class, () -> IncarnationCodec.readHeader(encoded.bytes, 0xA2, "test"));
    assertThrows(CorruptStoreException.class, () -> IncarnationCodec.readHeader(encoded.bytes, 0, "test"));
    IncarnationCodec.Encoded unsalted = IncarnationCodec.encode(buffer, 0, 7, HASHER, 0);
    assertEquals(LogFormat.VERSION, unsalted.bytes[4]);
    assertThrows(CorruptStoreException.class, () -> IncarnationCodec.readHeader(unsalted.bytes, 0xA1, "test"));
  }
}
