package io.varve.examples.input;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Strict UTF-8 decoding with the exact line and byte offset of a bad byte, whatever the buffer size. */
class StrictUtf8ReaderTest {
  private static final String[] PIECES = {"a", "\t", "\n", "ключ", "キー", "😀", "\r\n", "z9", "é"};

  private static String randomText(SplittableRandom random, int pieces) {
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < pieces; i++) {
      text.append(PIECES[random.nextInt(PIECES.length)]);
    }
    return text.toString();
  }

  private static String readAll(Reader reader, int chunk) throws IOException {
    StringBuilder text = new StringBuilder();
    char[] buffer = new char[chunk];
    for (int n; (n = reader.read(buffer, 0, chunk)) >= 0; ) {
      text.append(buffer, 0, n);
    }
    return text.toString();
  }

  @Test
  void decodesValidTextWhateverTheBufferSize() throws IOException {
    long seed = 0x07F8L;
    System.out.println("StrictUtf8ReaderTest seed " + Long.toHexString(seed));
    SplittableRandom random = new SplittableRandom(seed);
    for (int trial = 0; trial < 300; trial++) {
      String text = randomText(random, random.nextInt(400));
      int buffer = 4 + random.nextInt(40);
      int chunk = 1 + random.nextInt(50);
      try (Reader reader = new StrictUtf8Reader(new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)), buffer)) {
        assertEquals(text, readAll(reader, chunk), "buffer " + buffer + ", chunk " + chunk);
      }
    }
  }

  @Test
  void aBadByteIsReportedAtItsLineAndOffset() throws IOException {
    long seed = 0x07F9L;
    SplittableRandom random = new SplittableRandom(seed);
    for (int trial = 0; trial < 300; trial++) {
      byte[] before = randomText(random, random.nextInt(300)).getBytes(StandardCharsets.UTF_8);
      byte[] after = randomText(random, random.nextInt(50)).getBytes(StandardCharsets.UTF_8);
      byte bad = (byte) (0x80 + random.nextInt(2) * 0x7F); // a lone continuation byte, or 0xFF
      byte[] input = new byte[before.length + 1 + after.length];
      System.arraycopy(before, 0, input, 0, before.length);
      input[before.length] = bad;
      System.arraycopy(after, 0, input, before.length + 1, after.length);
      long line = 1;
      for (byte b : before) {
        line += b == '\n' ? 1 : 0;
      }
      int buffer = 4 + random.nextInt(40);
      try (Reader reader = new StrictUtf8Reader(new ByteArrayInputStream(input), buffer)) {
        InputFormatException e = assertThrows(InputFormatException.class, () -> readAll(reader, 7));
        assertEquals(line, e.lineNumber(), e.getMessage());
        assertTrue(e.getMessage().contains("at byte " + before.length + " of the input"), e.getMessage());
        assertTrue(e.getMessage().contains(String.format("0x%02X", bad & 0xFF)), e.getMessage());
      }
    }
  }

  @Test
  void aSequenceCutByTheEndOfTheInputIsReported() throws IOException {
    byte[] input = {'a', '\n', 'b', (byte) 0xE3, (byte) 0x82};
    try (Reader reader = new StrictUtf8Reader(new ByteArrayInputStream(input), 4)) {
      InputFormatException e = assertThrows(InputFormatException.class, () -> readAll(reader, 3));
      assertEquals(2, e.lineNumber(), e.getMessage());
    }
  }
}
