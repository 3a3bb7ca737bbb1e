package io.varve.core.serial;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Properties every built-in serializer shares; the format-specific tests are in sibling classes. */
class SerializersTest {
  static List<Serializer<?>> builtIns() {
    return List.of(
        Serializers.bytes(),
        Serializers.utf8(),
        Serializers.int32(),
        Serializers.int64(),
        Serializers.fixedBytes(0),
        Serializers.fixedBytes(1),
        Serializers.fixedBytes(16),
        Serializers.fixedBytes(Integer.MAX_VALUE));
  }

  @Test
  void namesAndFixedLengthsArePinned() {
    // Pinned: names are recorded in store metadata, so changing one breaks existing stores.
    assertEquals("bytes", Serializers.bytes().name());
    assertEquals("utf8-string", Serializers.utf8().name());
    assertEquals("int32-be", Serializers.int32().name());
    assertEquals("int64-be", Serializers.int64().name());
    assertEquals("fixed-bytes:16", Serializers.fixedBytes(16).name());
    assertEquals("fixed-bytes:0", Serializers.fixedBytes(0).name());

    assertEquals(-1, Serializers.bytes().fixedLength());
    assertEquals(-1, Serializers.utf8().fixedLength());
    assertEquals(4, Serializers.int32().fixedLength());
    assertEquals(8, Serializers.int64().fixedLength());
    assertEquals(16, Serializers.fixedBytes(16).fixedLength());
    assertEquals(0, Serializers.fixedBytes(0).fixedLength());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("builtIns")
  void byNameFindsEveryBuiltInByItsName(Serializer<?> serializer) {
    Serializer<?> found = Serializers.byName(serializer.name());
    assertEquals(serializer.name(), found.name());
    assertEquals(serializer.fixedLength(), found.fixedLength());
    assertEquals(serializer, found);
    assertEquals(serializer.name(), serializer.toString());
  }

  @Test
  void singletonsAreReturnedByFactoriesAndByName() {
    assertSame(Serializers.bytes(), Serializers.byName("bytes"));
    assertSame(Serializers.utf8(), Serializers.byName("utf8-string"));
    assertSame(Serializers.int32(), Serializers.byName("int32-be"));
    assertSame(Serializers.int64(), Serializers.byName("int64-be"));
    assertEquals(Serializers.fixedBytes(16).hashCode(), Serializers.byName("fixed-bytes:16").hashCode());
  }

  @ParameterizedTest(name = "\"{0}\"")
  @ValueSource(
      strings = {
        "",
        "Bytes",
        "UTF8-STRING",
        "utf8",
        "utf-8",
        "int32",
        "int64",
        "int32-le",
        " bytes",
        "bytes ",
        "fixed-bytes",
        "fixed-bytes:",
        "fixed-bytes:-1",
        "fixed-bytes:+16",
        "fixed-bytes:016",
        "fixed-bytes:00",
        "fixed-bytes:16 ",
        "fixed-bytes: 16",
        "fixed-bytes:1.5",
        "fixed-bytes:0x10",
        "fixed-bytes:abc",
        "fixed-bytes:2147483648",
        "fixed-bytes:99999999999999999999",
        "fixed-bytes:\u0661\u0666", // Arabic-Indic digits: Character.isDigit would accept them
        "FIXED-BYTES:16",
        "fixed-bytes:16:16"
      })
  void byNameRejectsUnknownNames(String name) {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> Serializers.byName(name));
    assertTrue(e.getMessage().contains("\"" + name + "\""), e.getMessage());
    assertTrue(e.getMessage().contains("expected"), e.getMessage());
  }

  @Test
  void byNameRejectsNull() {
    assertThrows(NullPointerException.class, () -> Serializers.byName(null));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("builtIns")
  @SuppressWarnings("unchecked")
  void nullValuesAreRejectedNamingTheSerializer(Serializer<?> serializer) {
    Serializer<Object> raw = (Serializer<Object>) serializer;
    NullPointerException e = assertThrows(NullPointerException.class, () -> raw.toBytes(null));
    assertTrue(e.getMessage().contains(serializer.name()), e.getMessage());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("builtIns")
  void nullByteArraysAreRejected(Serializer<?> serializer) {
    assertThrows(NullPointerException.class, () -> serializer.fromBytes(null));
    assertThrows(NullPointerException.class, () -> serializer.fromBytes(null, 0, 0));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("builtIns")
  void slicesOutsideTheArrayAreCallerBugsNotMalformedData(Serializer<?> serializer) {
    byte[] bytes = new byte[10];
    assertThrows(IndexOutOfBoundsException.class, () -> serializer.fromBytes(bytes, -1, 4));
    assertThrows(IndexOutOfBoundsException.class, () -> serializer.fromBytes(bytes, 0, -1));
    assertThrows(IndexOutOfBoundsException.class, () -> serializer.fromBytes(bytes, 7, 4));
    assertThrows(IndexOutOfBoundsException.class, () -> serializer.fromBytes(bytes, 11, 0));
    assertThrows(
        IndexOutOfBoundsException.class, () -> serializer.fromBytes(bytes, 8, Integer.MAX_VALUE));
  }

  @Test
  void negativeFixedWidthIsRejected() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> Serializers.fixedBytes(-1));
    assertTrue(e.getMessage().contains("-1"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> Serializers.fixedBytes(Integer.MIN_VALUE));
  }

  @Test
  void customSerializerGetsWholeArrayReadAndVariableLengthByDefault() {
    Serializer<Integer> length =
        new Serializer<>() {
          @Override
          public byte[] toBytes(Integer value) {
            return new byte[value];
          }

          @Override
          public Integer fromBytes(byte[] bytes, int offset, int length) {
            return length;
          }

          @Override
          public String name() {
            return "test-length";
          }
        };
    assertEquals(5, length.fromBytes(new byte[5]));
    assertEquals(-1, length.fixedLength());
    assertThrows(NullPointerException.class, () -> length.fromBytes(null));
  }

  @Test
  void exceptionKeepsMessageAndCause() {
    IllegalStateException cause = new IllegalStateException("low level");
    SerializationException e = new SerializationException("what", cause);
    assertEquals("what", e.getMessage());
    assertSame(cause, e.getCause());
    assertEquals("only", new SerializationException("only").getMessage());
  }
}
