package io.varve.core.codes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.core.bits.BitWriter;
import io.varve.core.bits.LongBigArray;
import io.varve.core.format.CorruptStoreException;
import java.util.SplittableRandom;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class TrieCodesTest {

  @ParameterizedTest(name = "hmax = {0}")
  @ValueSource(ints = {1, 2, 3, 16, 64, 128, 256})
  void everySymbolRoundTripsAndCodesAreComplete(int hmax) {
    TrieCodes codes = TrieCodes.forHuffmanMax(hmax);
    for (int c = 2; c <= hmax; c++) {
      double kraft = 0;
      BitWriter out = new BitWriter();
      for (int s = 0; s < c; s++) {
        int length = codes.length(c, s);
        assertTrue(length >= 1 && length <= TrieCodes.MAX_CODE_LENGTH, "length " + length);
        kraft += Math.pow(2, -length);
        codes.write(out, c, s);
      }
      assertEquals(1.0, kraft, 1e-9, "Kraft sum for context " + c);
      assertDecodesInOrder(codes, c, out, 0, c);
    }
  }

  @Test
  void expGolombContextsRoundTrip() {
    TrieCodes codes = TrieCodes.forHuffmanMax(64);
    SplittableRandom random = new SplittableRandom(42);
    int[] contexts = {65, 66, 100, 255, 256, 257, 1000, 65536, 1 << 24, Integer.MAX_VALUE};
    for (int c : contexts) {
      BitWriter out = new BitWriter();
      int[] symbols = new int[2000];
      for (int i = 0; i < symbols.length; i++) {
        int s =
            i < 4
                ? new int[] {0, 1, c - 1, c / 2}[i]
                : (int) Math.max(0, Math.min(c - 1, c / 2 + random.nextGaussian() * Math.sqrt(c)));
        symbols[i] = s;
        codes.write(out, c, s);
      }
      LongBigArray words = out.toWords();
      long pos = 0;
      for (int s : symbols) {
        long decoded = codes.decode(c, words.peekMsbFirst(pos));
        assertEquals(s, decoded >>> 8, "context " + c);
        assertEquals(codes.length(c, s), decoded & 0xFF);
        pos += decoded & 0xFF;
      }
      assertEquals(out.bitLength(), pos);
    }
  }

  @Test
  void invalidCodesAreReportedAsCorrupt() {
    TrieCodes codes = TrieCodes.forHuffmanMax(64);
    assertThrows(CorruptStoreException.class, () -> codes.decode(1000, 0L));
    // A valid-looking Exp-Golomb code whose symbol falls outside the context.
    BitWriter out = new BitWriter();
    codes.write(out, 1 << 20, (1 << 20) - 1);
    long peek = out.toWords().peekMsbFirst(0);
    assertThrows(CorruptStoreException.class, () -> codes.decode(70, peek));
  }

  /**
   * The codes are part of the index format: this fingerprint of every code length and code word
   * for hmax = 256 (which contains every smaller hmax) must never change within format version 1.
   */
  @Test
  void codesOfFormatVersion1AreStable() {
    TrieCodes codes = TrieCodes.forHuffmanMax(256);
    CRC32C crc = new CRC32C();
    for (int c = 2; c <= 256; c++) {
      BitWriter out = new BitWriter();
      for (int s = 0; s < c; s++) {
        crc.update(codes.length(c, s));
        codes.write(out, c, s);
      }
      LongBigArray words = out.toWords();
      for (long i = 0; i < words.length(); i++) {
        long w = words.get(i);
        for (int b = 0; b < 8; b++) {
          crc.update((int) (w >>> (8 * b)));
        }
      }
    }
    assertEquals(GOLDEN_CODES_CRC, crc.getValue(), "the trie codes changed: this breaks format v1");
  }

  static final long GOLDEN_CODES_CRC = 1827564038L;

  private static void assertDecodesInOrder(TrieCodes codes, int c, BitWriter out, int from, int to) {
    LongBigArray words = out.toWords();
    long pos = 0;
    for (int s = from; s < to; s++) {
      long decoded = codes.decode(c, words.peekMsbFirst(pos));
      assertEquals(s, decoded >>> 8, "symbol in context " + c);
      assertEquals(codes.length(c, s), decoded & 0xFF, "length in context " + c);
      pos += decoded & 0xFF;
    }
  }
}
