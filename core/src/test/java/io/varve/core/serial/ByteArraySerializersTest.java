package io.varve.core.serial;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.varve.core.testing.TestRecords;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ByteArraySerializersTest {
  private static final Serializer<byte[]> BYTES = Serializers.bytes();

  @Test
  void bytesRoundTripRandomArraysFromSlices() {
    long seed = 0xB7E5L;
    SplittableRandom random = TestRecords.seeded("ByteArraySerializersTest.bytesRoundTripRandomArraysFromSlices", seed);
    for (int i = 0; i < 10_000; i++) {
      byte[] value = randomBytes(random, random.nextInt(i % 100 == 0 ? 1000 : 40));
      byte[] bytes = BYTES.toBytes(value);
      assertArrayEquals(value, bytes);
      assertArrayEquals(value, BYTES.fromBytes(bytes));

      int before = random.nextInt(8);
      byte[] padded = randomBytes(random, before + bytes.length + random.nextInt(8));
      System.arraycopy(bytes, 0, padded, before, bytes.length);
      assertArrayEquals(value, BYTES.fromBytes(padded, before, bytes.length));
    }
    assertArrayEquals(new byte[0], BYTES.fromBytes(new byte[0]));
    assertArrayEquals(new byte[0], BYTES.fromBytes(new byte[] {1, 2, 3}, 3, 0));
  }

  @Test
  void bytesCopiesInBothDirections() {
    byte[] value = {1, 2, 3};
    byte[] bytes = BYTES.toBytes(value);
    assertNotSame(value, bytes);
    value[0] = 9;
    assertArrayEquals(new byte[] {1, 2, 3}, bytes, "caller's later writes must not reach the stored key");

    byte[] buffer = {7, 8, 9, 10};
    byte[] read = BYTES.fromBytes(buffer, 1, 2);
    byte[] whole = BYTES.fromBytes(buffer);
    assertNotSame(buffer, whole);
    buffer[1] = 0;
    buffer[0] = 0;
    assertArrayEquals(new byte[] {8, 9}, read, "a reused store buffer must not change a read value");
    assertArrayEquals(new byte[] {7, 8, 9, 10}, whole);
  }

  @ParameterizedTest(name = "width {0}")
  @ValueSource(ints = {0, 1, 16, 32, 1000})
  void fixedBytesRoundTripFromSlices(int width) {
    long seed = 0xF1DL + width;
    SplittableRandom random = TestRecords.seeded("ByteArraySerializersTest.fixedBytesRoundTripFromSlices", seed);
    Serializer<byte[]> fixed = Serializers.fixedBytes(width);
    for (int i = 0; i < 1000; i++) {
      byte[] value = randomBytes(random, width);
      byte[] bytes = fixed.toBytes(value);
      assertEquals(width, bytes.length);
      assertArrayEquals(value, bytes);
      assertArrayEquals(value, fixed.fromBytes(bytes));

      int before = random.nextInt(8);
      byte[] padded = randomBytes(random, before + width + random.nextInt(8));
      System.arraycopy(bytes, 0, padded, before, width);
      assertArrayEquals(value, fixed.fromBytes(padded, before, width));
    }
  }

  @Test
  void fixedBytesCopiesInBothDirections() {
    Serializer<byte[]> fixed = Serializers.fixedBytes(2);
    byte[] value = {1, 2};
    byte[] bytes = fixed.toBytes(value);
    value[0] = 9;
    assertArrayEquals(new byte[] {1, 2}, bytes);
    byte[] buffer = {5, 6, 7};
    byte[] read = fixed.fromBytes(buffer, 1, 2);
    buffer[1] = 0;
    assertArrayEquals(new byte[] {6, 7}, read);
  }

  @ParameterizedTest(name = "length {0}")
  @ValueSource(ints = {0, 1, 15, 17, 32})
  void fixedBytesRejectsOtherLengthsBothWays(int length) {
    Serializer<byte[]> fixed = Serializers.fixedBytes(16);
    String expected = "fixed-bytes:16: expected exactly 16 bytes but got " + length;

    SerializationException onWrite =
        assertThrows(SerializationException.class, () -> fixed.toBytes(new byte[length]));
    assertEquals(expected, onWrite.getMessage());

    SerializationException onRead =
        assertThrows(SerializationException.class, () -> fixed.fromBytes(new byte[length]));
    assertEquals(expected, onRead.getMessage());
    assertThrows(SerializationException.class, () -> fixed.fromBytes(new byte[40], 3, length));
  }

  @Test
  void zeroWidthAcceptsOnlyEmptyArrays() {
    Serializer<byte[]> empty = Serializers.fixedBytes(0);
    assertArrayEquals(new byte[0], empty.toBytes(new byte[0]));
    assertArrayEquals(new byte[0], empty.fromBytes(new byte[4], 4, 0));
    assertThrows(SerializationException.class, () -> empty.toBytes(new byte[1]));
    assertThrows(SerializationException.class, () -> empty.fromBytes(new byte[1]));
  }

  private static byte[] randomBytes(SplittableRandom random, int length) {
    byte[] bytes = new byte[length];
    for (int i = 0; i < length; i++) {
      bytes[i] = (byte) random.nextInt(256);
    }
    return bytes;
  }

  @Test
  void randomBytesHelperCoversEveryByteValue() {
    // Guards the round-trip tests against a generator that never produces high bytes.
    byte[] sample = randomBytes(new SplittableRandom(1), 100_000);
    boolean[] seen = new boolean[256];
    for (byte b : sample) {
      seen[b & 0xFF] = true;
    }
    boolean[] all = new boolean[256];
    Arrays.fill(all, true);
    assertArrayEquals(all, seen);
  }
}
