package io.varve.core.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.varve.core.format.CorruptStoreException;
import java.util.SplittableRandom;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

class RecordChecksumTest {
  private static final long SEED = 0xC5C3L;

  /** The functions against plain computations of docs/FORMAT.md's definition, on every length to 300 and a few large ones. */
  @Test
  void checksAreTheHashOfTheBytesMixedWithTheirPlace() {
    System.out.println("RecordChecksumTest seed=" + SEED);
    SplittableRandom random = new SplittableRandom(SEED);
    byte[] bytes = new byte[70_000];
    random.nextBytes(bytes);
    for (int length : lengths()) {
      int offset = random.nextInt(8);
      long payloadOffset = random.nextLong(1L << 40);
      CRC32C crc = new CRC32C();
      crc.update(bytes, offset, length);
      long mix = payloadOffset * 0x9E3779B97F4A7C15L;
      assertEquals((int) (crc.getValue() ^ mix), RecordChecksum.CRC32C.of(bytes, offset, length, payloadOffset), "CRC32C, length " + length);
      long xxh3 = net.openhft.hashing.LongHashFunction.xx3().hashBytes(bytes, offset, length);
      assertEquals((int) (xxh3 ^ mix), RecordChecksum.XXH3.of(bytes, offset, length, payloadOffset), "XXH3, length " + length);
    }
  }

  /** A check streamed in pieces of any sizes equals the check of the whole. */
  @Test
  void aStreamedCheckEqualsTheWholeOne() {
    SplittableRandom random = new SplittableRandom(SEED + 1);
    byte[] bytes = new byte[70_000];
    random.nextBytes(bytes);
    for (int length : lengths()) {
      RecordChecksum.Stream stream = RecordChecksum.CRC32C.stream();
      for (int done = 0; done < length; ) {
        int piece = Math.min(length - done, random.nextInt(1, 5_000));
        stream.update(bytes, done, piece);
        done += piece;
      }
      assertEquals(RecordChecksum.CRC32C.of(bytes, 0, length, 77), stream.check(77), "length " + length);
    }
    assertThrows(UnsupportedOperationException.class, RecordChecksum.XXH3::stream);
  }

  @Test
  void aRecordMovedElsewhereFailsItsCheck() {
    byte[] record = "key and value".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    for (RecordChecksum function : new RecordChecksum[] {RecordChecksum.XXH3, RecordChecksum.CRC32C}) {
      assertNotEquals(function.of(record, 0, record.length, 4096), function.of(record, 0, record.length, 8192), function.name());
    }
  }

  @Test
  void codesNameTheFunctions() {
    for (RecordChecksum function : RecordChecksum.values()) {
      assertEquals(function, RecordChecksum.ofCode(function.code()));
    }
    assertEquals(0, RecordChecksum.NONE.bytes());
    assertEquals(RecordChecksum.BYTES, RecordChecksum.CRC32C.bytes());
    assertThrows(CorruptStoreException.class, () -> RecordChecksum.ofCode(3));
    assertThrows(IllegalStateException.class, () -> RecordChecksum.NONE.of(new byte[1], 0, 1, 0));
  }

  private static int[] lengths() {
    int[] lengths = new int[305];
    for (int i = 0; i <= 300; i++) {
      lengths[i] = i;
    }
    lengths[301] = 1_024;
    lengths[302] = 4_099;
    lengths[303] = 65_536;
    lengths[304] = 69_990;
    return lengths;
  }
}
