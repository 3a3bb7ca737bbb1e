package io.varve.spark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.varve.core.store.RecordFormat;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** A record's array keeps its key and value apart at every varint length of the key's. */
class ShuffleRecordTest {
  @Test
  void keysOfEveryVarintLengthComeBack() {
    for (int keyLength : new int[] {0, 1, 127, 128, 16_383, 16_384, 2_097_151, 2_097_152}) {
      byte[] key = new byte[keyLength];
      Arrays.fill(key, (byte) 0x80);
      byte[] value = {(byte) 0xFF, 0, 7};
      byte[] record = ShuffleRecord.of(key, value);
      int keyOffset = ShuffleRecord.keyOffset(record);
      assertEquals(RecordFormat.varintLength(keyLength), keyOffset, "header of a key of " + keyLength);
      assertEquals(keyLength, ShuffleRecord.keyLength(record, keyOffset));
      assertArrayEquals(key, Arrays.copyOfRange(record, keyOffset, keyOffset + keyLength));
      assertArrayEquals(value, Arrays.copyOfRange(record, keyOffset + keyLength, record.length));
    }
  }

  @Test
  void varintLengthsMatchWhatIsWritten() {
    byte[] target = new byte[ShuffleRecord.MAX_VARINT_BYTES];
    for (int value : new int[] {0, 127, 128, 1 << 14, (1 << 21) - 1, 1 << 28, Integer.MAX_VALUE}) {
      assertEquals(RecordFormat.varintLength(value), RecordFormat.writeVarint(target, 0, value), "varint of " + value);
    }
  }
}
