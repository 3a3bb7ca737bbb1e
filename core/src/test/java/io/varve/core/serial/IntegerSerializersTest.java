package io.varve.core.serial;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.core.testing.TestRecords;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class IntegerSerializersTest {
  private static final Serializer<Integer> INT32 = Serializers.int32();
  private static final Serializer<Long> INT64 = Serializers.int64();

  private static final int[] INT_BOUNDARIES = {
    0, 1, -1, 2, 127, 128, -128, -129, 255, 256, 0xFFFF, 0x10000, 0x7FFFFF, 0x800000, 0xFFFFFF,
    0x1000000, Integer.MAX_VALUE, Integer.MAX_VALUE - 1, Integer.MIN_VALUE, Integer.MIN_VALUE + 1
  };

  private static final long[] LONG_BOUNDARIES = {
    0, 1, -1, 127, 128, -128, -129, 255, 256, Integer.MAX_VALUE, Integer.MAX_VALUE + 1L,
    Integer.MIN_VALUE, Integer.MIN_VALUE - 1L, 0xFFFFFFFFL, 0x100000000L, 1L << 56, (1L << 56) - 1,
    Long.MAX_VALUE, Long.MAX_VALUE - 1, Long.MIN_VALUE, Long.MIN_VALUE + 1
  };

  @Test
  void int32BoundariesRoundTripAsBigEndian() {
    for (int v : INT_BOUNDARIES) {
      byte[] bytes = INT32.toBytes(v);
      assertArrayEquals(ByteBuffer.allocate(4).putInt(v).array(), bytes, "bytes of " + v);
      assertEquals(v, INT32.fromBytes(bytes), "round trip of " + v);
    }
    assertArrayEquals(new byte[] {0x12, 0x34, 0x56, 0x78}, INT32.toBytes(0x12345678));
  }

  @Test
  void int64BoundariesRoundTripAsBigEndian() {
    for (long v : LONG_BOUNDARIES) {
      byte[] bytes = INT64.toBytes(v);
      assertArrayEquals(ByteBuffer.allocate(8).putLong(v).array(), bytes, "bytes of " + v);
      assertEquals(v, INT64.fromBytes(bytes), "round trip of " + v);
    }
    assertArrayEquals(
        new byte[] {0x01, 0x23, 0x45, 0x67, (byte) 0x89, (byte) 0xAB, (byte) 0xCD, (byte) 0xEF},
        INT64.toBytes(0x0123456789ABCDEFL));
  }

  @Test
  void randomValuesRoundTrip() {
    long seed = 0x1E7L;
    SplittableRandom random = TestRecords.seeded("IntegerSerializersTest.randomValuesRoundTrip", seed);
    for (int i = 0; i < 100_000; i++) {
      int v = random.nextInt();
      assertEquals(v, INT32.fromBytes(INT32.toBytes(v)));
      long w = random.nextLong();
      assertEquals(w, INT64.fromBytes(INT64.toBytes(w)));
    }
  }

  @Test
  void byteOrderIsNumericOrderForNonNegativeValues() {
    long seed = 0x50127L;
    SplittableRandom random = TestRecords.seeded("IntegerSerializersTest.byteOrderIsNumericOrderForNonNegativeValues", seed);
    for (int i = 0; i < 100_000; i++) {
      // Half the pairs share high bytes so that later bytes decide the order.
      int a = random.nextInt(Integer.MAX_VALUE) + (random.nextBoolean() ? 1 : 0);
      int b = random.nextBoolean() ? a ^ random.nextInt(256) : random.nextInt(Integer.MAX_VALUE);
      assertEquals(
          Integer.signum(Integer.compare(a, b)),
          Integer.signum(Arrays.compareUnsigned(INT32.toBytes(a), INT32.toBytes(b))),
          a + " vs " + b);
      long c = random.nextLong(Long.MAX_VALUE) + (random.nextBoolean() ? 1 : 0);
      long d = random.nextBoolean() ? c ^ random.nextLong(1 << 16) : random.nextLong(Long.MAX_VALUE);
      assertEquals(
          Integer.signum(Long.compare(c, d)),
          Integer.signum(Arrays.compareUnsigned(INT64.toBytes(c), INT64.toBytes(d))),
          c + " vs " + d);
    }
    int[] ints = Arrays.stream(INT_BOUNDARIES).filter(v -> v >= 0).sorted().toArray();
    for (int i = 1; i < ints.length; i++) {
      assertTrue(Arrays.compareUnsigned(INT32.toBytes(ints[i - 1]), INT32.toBytes(ints[i])) < 0);
    }
    long[] longs = Arrays.stream(LONG_BOUNDARIES).filter(v -> v >= 0).sorted().toArray();
    for (int i = 1; i < longs.length; i++) {
      assertTrue(Arrays.compareUnsigned(INT64.toBytes(longs[i - 1]), INT64.toBytes(longs[i])) < 0);
    }
  }

  @Test
  void negativeValuesSortAfterNonNegativeOnesAsDocumented() {
    assertTrue(Arrays.compareUnsigned(INT32.toBytes(Integer.MAX_VALUE), INT32.toBytes(-1)) < 0);
    assertTrue(Arrays.compareUnsigned(INT32.toBytes(Integer.MIN_VALUE), INT32.toBytes(-1)) < 0);
    assertTrue(Arrays.compareUnsigned(INT64.toBytes(Long.MAX_VALUE), INT64.toBytes(Long.MIN_VALUE)) < 0);
  }

  @Test
  void readsOnlyTheSlice() {
    byte[] buffer = new byte[20];
    Arrays.fill(buffer, (byte) 0x5A);
    System.arraycopy(INT32.toBytes(-123456789), 0, buffer, 3, 4);
    assertEquals(-123456789, INT32.fromBytes(buffer, 3, 4));
    System.arraycopy(INT64.toBytes(Long.MIN_VALUE + 99), 0, buffer, 11, 8);
    assertEquals(Long.MIN_VALUE + 99, INT64.fromBytes(buffer, 11, 8));
    // At the very end of the array, too.
    System.arraycopy(INT32.toBytes(7), 0, buffer, 16, 4);
    assertEquals(7, INT32.fromBytes(buffer, 16, 4));
  }

  @ParameterizedTest(name = "length {0}")
  @ValueSource(ints = {0, 1, 3, 5, 8})
  void int32RejectsOtherLengths(int length) {
    SerializationException e =
        assertThrows(SerializationException.class, () -> INT32.fromBytes(new byte[length]));
    assertEquals("int32-be: expected exactly 4 bytes but got " + length, e.getMessage());
    // Sliced from a larger array the same length is still wrong.
    assertThrows(SerializationException.class, () -> INT32.fromBytes(new byte[16], 2, length));
  }

  @ParameterizedTest(name = "length {0}")
  @ValueSource(ints = {0, 1, 4, 7, 9, 16})
  void int64RejectsOtherLengths(int length) {
    SerializationException e =
        assertThrows(SerializationException.class, () -> INT64.fromBytes(new byte[length]));
    assertEquals("int64-be: expected exactly 8 bytes but got " + length, e.getMessage());
    assertThrows(SerializationException.class, () -> INT64.fromBytes(new byte[20], 2, length));
  }
}
