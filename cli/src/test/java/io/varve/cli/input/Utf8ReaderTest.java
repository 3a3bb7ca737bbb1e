package io.varve.cli.input;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
 * {@link Utf8Reader} against the JDK's own decoding of valid input, and against where an invalid
 * sequence was put into otherwise valid input: every char before it comes out, then the exception
 * gives its offset. Random texts, read sizes and input chunk sizes (so that sequences split between
 * reads), with a fixed seed.
 */
class Utf8ReaderTest {
  static final long SEED = Long.getLong("varve.test.seed", 0x0FF_BEEFL);

  /** Invalid sequences of every kind the decoder knows, and the bytes it reports as the bad ones. */
  static final byte[][] INVALID = {
    {(byte) 0xFF},
    {(byte) 0x80},
    {(byte) 0xC0, (byte) 0x80}, // overlong NUL
    {(byte) 0xED, (byte) 0xA0, (byte) 0x80}, // an encoded surrogate
    {(byte) 0xF4, (byte) 0x90, (byte) 0x80, (byte) 0x80}, // past U+10FFFF
    {(byte) 0xE2, (byte) 0x82, 'x'}, // cut short, then ASCII
  };

  /** Gives its bytes a few at a time, as a pipe might. */
  static final class Trickle extends InputStream {
    private final byte[] bytes;
    private final Random random;
    private int pos;

    Trickle(byte[] bytes, Random random) {
      this.bytes = bytes;
      this.random = random;
    }

    @Override
    public int read() {
      return pos < bytes.length ? bytes[pos++] & 0xFF : -1;
    }

    @Override
    public int read(byte[] b, int off, int len) {
      if (pos == bytes.length) {
        return -1;
      }
      int n = Math.min(Math.min(len, bytes.length - pos), 1 + random.nextInt(7));
      System.arraycopy(bytes, pos, b, off, n);
      pos += n;
      return n;
    }
  }

  static String randomText(Random random, int chars) {
    StringBuilder text = new StringBuilder();
    while (text.length() < chars) {
      switch (random.nextInt(5)) {
        case 0 -> text.append('\n');
        case 1 -> text.append((char) (0xA0 + random.nextInt(0x700))); // 2 bytes
        case 2 -> text.append((char) (0x800 + random.nextInt(0xD000 - 0x800))); // 3 bytes
        case 3 -> text.appendCodePoint(0x10000 + random.nextInt(0x100000)); // 4 bytes, a surrogate pair
        default -> text.append((char) ('a' + random.nextInt(26)));
      }
    }
    return text.toString();
  }

  /** Reads everything it can; returns the chars, and the exception that ended it, or null. */
  private static InvalidUtf8Exception readAll(Utf8Reader reader, Random random, StringBuilder chars) throws IOException {
    char[] buf = new char[64];
    for (;;) {
      int n;
      try {
        n = reader.read(buf, 0, 1 + random.nextInt(buf.length));
      } catch (InvalidUtf8Exception e) {
        return e;
      }
      if (n < 0) {
        return null;
      }
      chars.append(buf, 0, n);
    }
  }

  @Test
  void validTextDecodesAsTheJdkDecodesIt() throws IOException {
    System.out.println("Utf8ReaderTest seed " + SEED);
    Random random = new Random(SEED);
    for (int round = 0; round < 200; round++) {
      String text = randomText(random, random.nextInt(round < 5 ? 2 : 3000));
      byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
      InputStream in = random.nextBoolean() ? new Trickle(bytes, random) : new ByteArrayInputStream(bytes);
      StringBuilder chars = new StringBuilder();
      try (Utf8Reader reader = new Utf8Reader(in)) {
        assertEquals(null, readAll(reader, random, chars), "round " + round);
        assertEquals(-1, reader.read(new char[4], 0, 4));
      }
      assertEquals(text, chars.toString(), "round " + round);
    }
  }

  @Test
  void everyCharBeforeAnInvalidSequenceComesOutThenItsOffset() throws IOException {
    Random random = new Random(SEED + 1);
    for (int round = 0; round < 600; round++) {
      String before = randomText(random, random.nextInt(round < 20 ? 3 : 200_000 >> random.nextInt(12)));
      String after = randomText(random, random.nextInt(50));
      byte[] invalid = INVALID[round % INVALID.length];
      ByteArrayOutputStream input = new ByteArrayOutputStream();
      input.writeBytes(before.getBytes(StandardCharsets.UTF_8));
      int offset = input.size();
      input.writeBytes(invalid);
      input.writeBytes(after.getBytes(StandardCharsets.UTF_8));
      byte[] bytes = input.toByteArray();
      InputStream in = random.nextBoolean() ? new Trickle(bytes, random) : new ByteArrayInputStream(bytes);
      StringBuilder chars = new StringBuilder();
      try (Utf8Reader reader = new Utf8Reader(in)) {
        InvalidUtf8Exception e = readAll(reader, random, chars);
        String context = "round " + round + ", invalid " + java.util.HexFormat.of().formatHex(invalid);
        assertEquals(before, chars.toString(), context);
        assertEquals(offset, e.byteOffset(), context);
        assertEquals(String.format("0x%02X", invalid[0] & 0xFF), e.bytesShown().substring(0, 4), context);
        // It stays failed.
        assertSame(e, assertThrows(InvalidUtf8Exception.class, () -> reader.read(new char[8], 0, 8)));
      }
    }
  }

  @Test
  void aSequenceCutShortByTheEndOfTheInput() throws IOException {
    byte[] bytes = {'a', 'b', (byte) 0xF0, (byte) 0x9F, (byte) 0x98};
    StringBuilder chars = new StringBuilder();
    try (Utf8Reader reader = new Utf8Reader(new ByteArrayInputStream(bytes))) {
      InvalidUtf8Exception e = readAll(reader, new Random(SEED), chars);
      assertEquals("ab", chars.toString());
      assertEquals(2, e.byteOffset());
      assertEquals("bytes 0xF0 0x9F 0x98 at byte offset 2 are not valid UTF-8", e.getMessage());
    }
  }

  @Test
  void emptyInputAndEmptyReads() throws IOException {
    try (Utf8Reader reader = new Utf8Reader(new ByteArrayInputStream(new byte[0]))) {
      assertEquals(0, reader.read(new char[4], 0, 0));
      assertEquals(-1, reader.read(new char[4], 1, 3));
      assertEquals(-1, reader.read(new char[4], 1, 3));
    }
    assertThrows(IndexOutOfBoundsException.class, () -> new Utf8Reader(new ByteArrayInputStream(new byte[1])).read(new char[4], 2, 3));
  }

  /** Through the parsers, with buffers small enough to refill inside every field: the place is exact. */
  @Test
  void theParsersReportTheLineAndColumnOfTheBadByte() {
    String[][] cases = {
      // format, text before the bad byte, expected "line, column"
      {"TSV", "a\tb\nc\td\\", "line 2, column 5"},
      {"TSV", "a\tb\r\nc\td", "line 2, column 4"},
      {"TSV", "a\tb\nc\td\te\tf\tg", "line 2, column 10"}, // in a column that is skipped
      {"CSV", "a,b\n\"x\ny\ny", "line 4, column 2"}, // in a quoted field that spans lines
      {"CSV", "a,\"b\"\"", "line 1, column 7"},
      {"JSON_LINES", "{\"key\":\"a\",\"value\":\"b\"}\n{\"key\":\"\u00e9\u00e9", "line 2, column 11"},
      {"JSON_LINES", "{\"key\":\"a\",\"value\":\"b\",\"skipped\":[1,{\"x\":\"", "line 1, column 43"},
    };
    for (String[] c : cases) {
      for (int bufferSize : Records.BUFFER_SIZES) {
        ByteArrayOutputStream input = new ByteArrayOutputStream();
        input.writeBytes(c[1].getBytes(StandardCharsets.UTF_8));
        input.write(0xFF);
        input.writeBytes("z\n".getBytes(StandardCharsets.UTF_8));
        InputFormat format = InputFormat.valueOf(c[0]);
        boolean json = format == InputFormat.JSON_LINES;
        InputFormatException e;
        try (RecordReader reader =
            RecordReader.open(
                Records.chunked(new Utf8Reader(new ByteArrayInputStream(input.toByteArray())), bufferSize), format, json ? "key" : "0",
                json ? "value" : "1", false)) {
          e = assertThrows(InputFormatException.class, () -> {
            while (reader.next()) {
              // read to the error
            }
          });
        }
        String context = c[0] + " " + c[1] + " buffer " + bufferSize + ": " + e.getMessage();
        int offset = c[1].getBytes(StandardCharsets.UTF_8).length;
        assertEquals(c[2] + ": byte 0xFF at byte offset " + offset + " is not valid UTF-8; " + RecordReader.CONVERT, e.getMessage(), context);
      }
    }
  }
}
