package io.varve.core.serial;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.core.testing.TestRecords;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CharsetEncoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class Utf8SerializerTest {
  private static final Serializer<String> UTF8 = Serializers.utf8();

  @Test
  void knownStringsRoundTrip() {
    String[] strings = {
      "",
      "a",
      "hello, world",
      "\u0000",
      "\u007F\u0080",
      "caf\u00E9",
      "\u00FF\u0100",
      "\u07FF\u0800",
      "\u65E5\u672C\u8A9E",
      "\uD7FF\uE000\uFFFD\uFFFF",
      "\uD83D\uDE00", // U+1F600 grinning face, a surrogate pair
      "\uD83D\uDC68\u200D\uD83D\uDC69\u200D\uD83D\uDC67", // family: ZWJ sequence of three emoji
      "\uD800\uDC00", // U+10000, the first supplementary code point
      "\uDBFF\uDFFF", // U+10FFFF, the last code point
      "mixed \uD83C\uDF89 caf\u00E9 \u4E2D\u6587 end"
    };
    for (String s : strings) {
      assertRoundTrips(s);
    }
    assertArrayEquals(new byte[0], UTF8.toBytes(""));
    assertArrayEquals(
        new byte[] {(byte) 0xF0, (byte) 0x9F, (byte) 0x98, (byte) 0x80}, UTF8.toBytes("\uD83D\uDE00"));
  }

  @Test
  void randomStringsRoundTrip() {
    long seed = 0x07F8L;
    SplittableRandom random = TestRecords.seeded("Utf8SerializerTest.randomStringsRoundTrip", seed);
    for (int i = 0; i < 20_000; i++) {
      assertRoundTrips(randomString(random, random.nextInt(i % 100 == 0 ? 500 : 20)));
    }
  }

  @Test
  void readsOnlyTheSlice() {
    long seed = 0x511CEL;
    SplittableRandom random = TestRecords.seeded("Utf8SerializerTest.readsOnlyTheSlice", seed);
    for (int i = 0; i < 5_000; i++) {
      String s = randomString(random, random.nextInt(20));
      byte[] bytes = UTF8.toBytes(s);
      // Padding with continuation and lead bytes: a reader that strays outside the slice fails.
      int before = random.nextInt(5);
      int after = random.nextInt(5);
      byte[] padded = new byte[before + bytes.length + after];
      for (int j = 0; j < padded.length; j++) {
        padded[j] = (byte) (random.nextBoolean() ? 0x80 : 0xF0);
      }
      System.arraycopy(bytes, 0, padded, before, bytes.length);
      assertEquals(s, UTF8.fromBytes(padded, before, bytes.length));
    }
  }

  @Test
  void randomBytesAreAcceptedExactlyWhenAStrictJdkDecoderAcceptsThem() {
    long seed = 0xDEC0DEL;
    SplittableRandom random = TestRecords.seeded("Utf8SerializerTest.randomBytesAreAccepted...", seed);
    int accepted = 0;
    int rejected = 0;
    for (int i = 0; i < 200_000; i++) {
      byte[] bytes = nearlyUtf8(random);
      String expected = strictDecode(bytes);
      if (expected == null) {
        rejected++;
        SerializationException e =
            assertThrows(SerializationException.class, () -> UTF8.fromBytes(bytes), () -> hex(bytes));
        assertTrue(e.getMessage().startsWith("utf8-string: malformed UTF-8 at byte "), e.getMessage());
      } else {
        accepted++;
        assertEquals(expected, UTF8.fromBytes(bytes), () -> hex(bytes));
      }
    }
    // Both outcomes must be common, or the comparison says little.
    assertTrue(accepted > 20_000 && rejected > 20_000, accepted + " accepted, " + rejected + " rejected");
  }

  static Stream<Arguments> malformedInputs() {
    return Stream.of(
        Arguments.of(bytes(0x80), "at byte 0 of a 1-byte value: expected a lead byte in 0x00-0x7F or 0xC2-0xF4 but found 0x80"),
        Arguments.of(bytes('a', 0xBF), "at byte 1 of a 2-byte value: expected a lead byte in 0x00-0x7F or 0xC2-0xF4 but found 0xBF"),
        Arguments.of(bytes(0xC0, 0x80), "at byte 0 of a 2-byte value: expected a lead byte in 0x00-0x7F or 0xC2-0xF4 but found 0xC0"),
        Arguments.of(bytes(0xC1, 0xBF), "found 0xC1"),
        Arguments.of(bytes(0xF5, 0x80, 0x80, 0x80), "found 0xF5"),
        Arguments.of(bytes(0xF8, 0x88, 0x80, 0x80, 0x80), "found 0xF8"),
        Arguments.of(bytes(0xFF), "found 0xFF"),
        Arguments.of(bytes(0xC3), "at byte 0 of a 1-byte value: expected 2 bytes for the sequence starting with 0xC3 but found only 1 before the end of the value"),
        Arguments.of(bytes('x', 0xE2, 0x82), "at byte 1 of a 3-byte value: expected 3 bytes for the sequence starting with 0xE2 but found only 2"),
        Arguments.of(bytes(0xF0, 0x9F, 0x98), "expected 4 bytes for the sequence starting with 0xF0 but found only 3"),
        Arguments.of(bytes(0xC3, 'a'), "at byte 1 of a 2-byte value: expected byte 2 of the sequence starting with 0xC3 to be in 0x80-0xBF but found 0x61"),
        Arguments.of(bytes(0xE2, 0x82, 0x41), "at byte 2 of a 3-byte value: expected byte 3 of the sequence starting with 0xE2 to be in 0x80-0xBF but found 0x41"),
        Arguments.of(bytes(0xE0, 0x80, 0x80), "expected byte 2 of the sequence starting with 0xE0 to be in 0xA0-0xBF but found 0x80"), // overlong U+0000
        Arguments.of(bytes(0xE0, 0x9F, 0xBF), "to be in 0xA0-0xBF but found 0x9F"), // overlong U+07FF
        Arguments.of(bytes(0xED, 0xA0, 0x80), "expected byte 2 of the sequence starting with 0xED to be in 0x80-0x9F but found 0xA0"), // U+D800
        Arguments.of(bytes(0xED, 0xBF, 0xBF), "to be in 0x80-0x9F but found 0xBF"), // U+DFFF
        Arguments.of(bytes(0xF0, 0x80, 0x80, 0x80), "expected byte 2 of the sequence starting with 0xF0 to be in 0x90-0xBF but found 0x80"), // overlong
        Arguments.of(bytes(0xF4, 0x90, 0x80, 0x80), "expected byte 2 of the sequence starting with 0xF4 to be in 0x80-0x8F but found 0x90"), // U+110000
        Arguments.of(bytes(0xF1, 0x80, 0x80, 0xC0), "at byte 3 of a 4-byte value: expected byte 4 of the sequence starting with 0xF1 to be in 0x80-0xBF but found 0xC0"),
        // CESU-8 / "modified UTF-8" pair for U+1F600: surrogates encoded separately.
        Arguments.of(bytes(0xED, 0xA0, 0xBD, 0xED, 0xB8, 0x80), "at byte 1 of a 6-byte value"));
  }

  @ParameterizedTest(name = "{1}")
  @MethodSource("malformedInputs")
  void malformedInputIsRejectedSayingWhatWasExpected(byte[] bytes, String messagePart) {
    assertEquals(null, strictDecode(bytes), "the test input must be malformed for the JDK too");
    SerializationException e = assertThrows(SerializationException.class, () -> UTF8.fromBytes(bytes));
    assertTrue(e.getMessage().startsWith("utf8-string: malformed UTF-8 "), e.getMessage());
    assertTrue(e.getMessage().contains("expected"), e.getMessage());
    assertTrue(e.getMessage().contains(messagePart), e.getMessage());

    // Positions are relative to the slice, which is what a caller can relate to the stored value.
    byte[] padded = new byte[bytes.length + 4];
    padded[0] = 'p';
    padded[1] = 'p';
    System.arraycopy(bytes, 0, padded, 2, bytes.length);
    padded[bytes.length + 2] = 'q';
    padded[bytes.length + 3] = 'q';
    SerializationException sliced =
        assertThrows(SerializationException.class, () -> UTF8.fromBytes(padded, 2, bytes.length));
    assertEquals(e.getMessage(), sliced.getMessage());
  }

  @Test
  void truncationBySliceIsDetectedEvenWhenTheArrayContinues() {
    byte[] bytes = UTF8.toBytes("\uD83D\uDE00");
    for (int length = 1; length < 4; length++) {
      int n = length;
      SerializationException e =
          assertThrows(SerializationException.class, () -> UTF8.fromBytes(bytes, 0, n));
      assertTrue(e.getMessage().contains("found only " + n + " before the end"), e.getMessage());
    }
  }

  static Stream<Arguments> unpairedSurrogates() {
    return Stream.of(
        Arguments.of("\uD800", "high surrogate U+D800 at char 0 at the end of the string"),
        Arguments.of("ab\uD83D", "high surrogate U+D83D at char 2 at the end of the string"),
        Arguments.of("\uD83Dx", "high surrogate U+D83D at char 0 followed by U+0078"),
        Arguments.of("\uD83D\uD83D\uDE00", "high surrogate U+D83D at char 0 followed by U+D83D"),
        Arguments.of("\uDC00", "low surrogate U+DC00 at char 0 without a high surrogate before it"),
        Arguments.of("ok\uD83D\uDE00\uDE00", "low surrogate U+DE00 at char 4 without"),
        Arguments.of("\uDE00\uD83D", "low surrogate U+DE00 at char 0 without"));
  }

  @ParameterizedTest(name = "{1}")
  @MethodSource("unpairedSurrogates")
  void unpairedSurrogatesAreRejectedInsteadOfReplaced(String value, String messagePart) {
    SerializationException e = assertThrows(SerializationException.class, () -> UTF8.toBytes(value));
    assertTrue(e.getMessage().startsWith("utf8-string: cannot encode a string of length "), e.getMessage());
    assertTrue(
        e.getMessage().contains("expected every high surrogate to be followed by a low surrogate"),
        e.getMessage());
    assertTrue(e.getMessage().contains(messagePart), e.getMessage());
  }

  private static void assertRoundTrips(String s) {
    byte[] bytes = UTF8.toBytes(s);
    assertArrayEquals(strictEncode(s), bytes, () -> "bytes of " + codePoints(s));
    assertEquals(s, UTF8.fromBytes(bytes), () -> "round trip of " + codePoints(s));
  }

  /**
   * A string of code points from every UTF-8 length class, weighted towards ASCII and emoji; never
   * an unpaired surrogate.
   */
  private static String randomString(SplittableRandom random, int codePoints) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < codePoints; i++) {
      int kind = random.nextInt(10);
      int cp;
      if (kind < 3) {
        cp = random.nextInt(0x80);
      } else if (kind < 5) {
        cp = 0x80 + random.nextInt(0x800 - 0x80);
      } else if (kind < 7) {
        do {
          cp = 0x800 + random.nextInt(0x10000 - 0x800);
        } while (Character.isSurrogate((char) cp));
      } else if (kind < 9) {
        cp = 0x1F300 + random.nextInt(0x1FAFF - 0x1F300); // emoji blocks
      } else {
        cp = 0x10000 + random.nextInt(Character.MAX_CODE_POINT + 1 - 0x10000);
      }
      sb.appendCodePoint(cp);
    }
    return sb.toString();
  }

  /** Short byte strings made mostly of UTF-8 pieces, so that both valid and invalid ones are common. */
  private static byte[] nearlyUtf8(SplittableRandom random) {
    ByteBuffer out = ByteBuffer.allocate(64);
    int pieces = random.nextInt(5);
    for (int p = 0; p < pieces; p++) {
      int kind = random.nextInt(4);
      if (kind == 0) {
        out.put((byte) random.nextInt(256)); // any byte, including stray continuation bytes
      } else if (kind == 1) {
        // A lead byte from the interesting region and a random-ish tail.
        out.put((byte) (0xC0 + random.nextInt(0x40)));
        int tail = random.nextInt(4);
        for (int t = 0; t < tail; t++) {
          out.put((byte) (random.nextInt(8) == 0 ? random.nextInt(256) : 0x80 + random.nextInt(0x40)));
        }
      } else {
        out.put(randomString(random, 1).getBytes(StandardCharsets.UTF_8));
      }
    }
    byte[] bytes = new byte[out.position()];
    out.flip().get(bytes);
    return bytes;
  }

  /** The JDK's verdict with errors reported, not replaced: the decoded string, or null. */
  private static String strictDecode(byte[] bytes) {
    CharsetDecoder decoder =
        StandardCharsets.UTF_8
            .newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT);
    try {
      return decoder.decode(ByteBuffer.wrap(bytes)).toString();
    } catch (CharacterCodingException e) {
      return null;
    }
  }

  private static byte[] strictEncode(String s) {
    CharsetEncoder encoder =
        StandardCharsets.UTF_8
            .newEncoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT);
    try {
      ByteBuffer buffer = encoder.encode(CharBuffer.wrap(s));
      byte[] bytes = new byte[buffer.remaining()];
      buffer.get(bytes);
      return bytes;
    } catch (CharacterCodingException e) {
      throw new AssertionError("test string is not encodable: " + codePoints(s), e);
    }
  }

  private static byte[] bytes(int... values) {
    byte[] bytes = new byte[values.length];
    for (int i = 0; i < values.length; i++) {
      bytes[i] = (byte) values[i];
    }
    return bytes;
  }

  private static String hex(byte[] bytes) {
    StringBuilder sb = new StringBuilder();
    for (byte b : bytes) {
      sb.append(String.format("%02X ", b & 0xFF));
    }
    return sb.toString().trim();
  }

  private static String codePoints(String s) {
    StringBuilder sb = new StringBuilder();
    s.codePoints().forEach(cp -> sb.append(String.format("U+%04X ", cp)));
    return sb.toString().trim();
  }
}
