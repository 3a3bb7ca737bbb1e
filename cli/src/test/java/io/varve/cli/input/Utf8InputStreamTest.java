package io.varve.cli.input;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link Utf8InputStream} against {@link Utf8Reader}, the strict decoder it stands in for: the same
 * bytes pass, and an invalid sequence put anywhere (after text of every width, in lines of every
 * length, across read and buffer boundaries) is reported at the same offset, line and column with
 * the same bytes. Random texts, read sizes and input chunks, with a fixed seed.
 */
class Utf8InputStreamTest {
  private static final long SEED = Utf8ReaderTest.SEED + 7;

  /** More kinds of invalid input than the decoder's test: each is invalid where it stands. */
  private static final byte[][] INVALID = {
    {(byte) 0xFF},
    {(byte) 0x80},
    {(byte) 0xBF, 'a'},
    {(byte) 0xC0, (byte) 0x80}, // overlong NUL
    {(byte) 0xC1, (byte) 0xBF}, // overlong
    {(byte) 0xE0, (byte) 0x80, (byte) 0x80}, // overlong 3 bytes
    {(byte) 0xF0, (byte) 0x80, (byte) 0x80, (byte) 0x80}, // overlong 4 bytes
    {(byte) 0xED, (byte) 0xA0, (byte) 0x80}, // an encoded surrogate
    {(byte) 0xED, (byte) 0xBF, (byte) 0xBF}, // the last encoded surrogate
    {(byte) 0xF4, (byte) 0x90, (byte) 0x80, (byte) 0x80}, // past U+10FFFF
    {(byte) 0xF5, (byte) 0x80, (byte) 0x80, (byte) 0x80},
    {(byte) 0xE2, (byte) 0x82, 'x'}, // cut short, then ASCII
    {(byte) 0xF0, (byte) 0x9F, (byte) 0x98, '\n'}, // cut short, then a line feed
    {(byte) 0xC3, (byte) 0xC3, (byte) 0xA9},
  };

  @Test
  void validTextPassesUnchanged() throws IOException {
    System.out.println("Utf8InputStreamTest seed " + SEED + " (replay with -Dvarve.test.seed=" + Utf8ReaderTest.SEED + ")");
    Random random = new Random(SEED);
    for (int round = 0; round < 200; round++) {
      String text = Utf8ReaderTest.randomText(random, random.nextInt(round < 5 ? 2 : 200_000 >> random.nextInt(10)));
      byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      try (Utf8InputStream in = new Utf8InputStream(source(bytes, random))) {
        assertNull(readAll(in, random, out), "round " + round);
        assertEquals(-1, in.read(new byte[4], 0, 4));
        assertEquals(-1, in.read());
      }
      assertArrayEquals(bytes, out.toByteArray(), "round " + round);
    }
  }

  @Test
  void anInvalidSequenceIsReportedWhereTheDecoderReportsIt() throws IOException {
    Random random = new Random(SEED + 1);
    for (int round = 0; round < 1500; round++) {
      String before = Utf8ReaderTest.randomText(random, random.nextInt(round < 40 ? 3 : 200_000 >> random.nextInt(12)));
      if (random.nextInt(4) == 0) {
        // A long line, so that the column carries over buffer refills.
        before += "x".repeat(random.nextInt(150_000));
      }
      byte[] invalid = INVALID[round % INVALID.length];
      ByteArrayOutputStream input = new ByteArrayOutputStream();
      input.writeBytes(before.getBytes(StandardCharsets.UTF_8));
      int offset = input.size();
      input.writeBytes(invalid);
      if (random.nextBoolean()) {
        input.writeBytes(Utf8ReaderTest.randomText(random, random.nextInt(50)).getBytes(StandardCharsets.UTF_8));
      }
      byte[] bytes = input.toByteArray();
      String context = "round " + round + ", invalid " + java.util.HexFormat.of().formatHex(invalid) + " at " + offset;

      InvalidUtf8Exception expected = decoderError(bytes);
      assertNotNull(expected, context);
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      try (Utf8InputStream in = new Utf8InputStream(source(bytes, random))) {
        InvalidUtf8Exception e = readAll(in, random, out);
        assertNotNull(e, context);
        assertArrayEquals(java.util.Arrays.copyOf(bytes, (int) expected.byteOffset()), out.toByteArray(), context);
        assertEquals(expected.getMessage(), e.getMessage(), context);
        assertEquals(expected.line(), e.line(), context);
        assertEquals(expected.column(), e.column(), context);
        assertSame(e, assertThrows(InvalidUtf8Exception.class, () -> in.read(new byte[8], 0, 8)), "it stays failed");
      }
    }
  }

  @Test
  void aSequenceCutShortByTheEndOfTheInput() throws IOException {
    byte[] bytes = {'a', '\n', 'b', (byte) 0xF0, (byte) 0x9F, (byte) 0x98};
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (Utf8InputStream in = new Utf8InputStream(new ByteArrayInputStream(bytes))) {
      InvalidUtf8Exception e = readAll(in, new Random(SEED), out);
      assertEquals("a\nb", out.toString(StandardCharsets.UTF_8));
      assertEquals("bytes 0xF0 0x9F 0x98 at byte offset 3 are not valid UTF-8", e.getMessage());
      assertEquals(2, e.line());
      assertEquals(2, e.column());
    }
  }

  @Test
  void emptyInputAndEmptyReads() throws IOException {
    try (Utf8InputStream in = new Utf8InputStream(new ByteArrayInputStream(new byte[0]))) {
      assertEquals(0, in.read(new byte[4], 0, 0));
      assertEquals(-1, in.read(new byte[4], 1, 3));
      assertEquals(-1, in.read());
    }
    assertThrows(IndexOutOfBoundsException.class, () -> new Utf8InputStream(new ByteArrayInputStream(new byte[1])).read(new byte[4], 2, 3));
  }

  private static InputStream source(byte[] bytes, Random random) {
    return random.nextBoolean() ? new Utf8ReaderTest.Trickle(bytes, random) : new ByteArrayInputStream(bytes);
  }

  /** What the strict decoder reports for {@code bytes}, or null if they are valid. */
  private static InvalidUtf8Exception decoderError(byte[] bytes) throws IOException {
    try (Utf8Reader reader = new Utf8Reader(new ByteArrayInputStream(bytes))) {
      char[] buf = new char[8192];
      while (reader.read(buf, 0, buf.length) >= 0) {
        // Read to the end or the error.
      }
      return null;
    } catch (InvalidUtf8Exception e) {
      return e;
    }
  }

  /** Reads everything it can into {@code out}; returns the exception that ended it, or null. */
  private static InvalidUtf8Exception readAll(InputStream in, Random random, ByteArrayOutputStream out) throws IOException {
    byte[] buf = new byte[1 << 14];
    for (;;) {
      int n;
      try {
        n = random.nextInt(50) == 0 ? oneByte(in, buf) : in.read(buf, 0, 1 + random.nextInt(buf.length));
      } catch (InvalidUtf8Exception e) {
        return e;
      }
      if (n < 0) {
        return null;
      }
      out.write(buf, 0, n);
    }
  }

  private static int oneByte(InputStream in, byte[] buf) throws IOException {
    int b = in.read();
    if (b < 0) {
      return -1;
    }
    buf[0] = (byte) b;
    return 1;
  }
}
