package io.varve.reader;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.varve.builder.StoreBuilder;
import io.varve.core.blocked.BlockedIndexParameters;
import io.varve.core.ect.EctParameters;
import io.varve.core.index.IndexParameters;
import java.io.IOException;
import java.nio.file.Path;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A lookup reads the guessed record's lines ahead only where the guess lands near the record:
 * short records, fixed or of steady length; for long or wildly varying variable-size records it
 * reads only the offsets' words, for long fixed-size records nothing. Lookups are right whatever
 * is chosen.
 */
class ReadAheadChoiceTest {
  private static final long SEED = 0x4EADL;

  @TempDir Path temp;

  private Store build(String name, int records, int keyLength, int minValue, int maxValue, IndexParameters index)
      throws IOException {
    Path dir = temp.resolve(name);
    SplittableRandom random = new SplittableRandom(SEED);
    byte[][] values = new byte[records][];
    try (StoreBuilder builder = StoreBuilder.create(dir).indexParameters(index)) {
      for (int i = 0; i < records; i++) {
        values[i] = new byte[minValue + random.nextInt(maxValue - minValue + 1)];
        random.nextBytes(values[i]);
        builder.put(key(i, keyLength), values[i]);
      }
      builder.build();
    }
    Store store = Store.open(dir);
    for (int i = 0; i < records; i++) {
      assertArrayEquals(values[i], store.get(key(i, keyLength)), name + ": record " + i);
    }
    return store;
  }

  private static byte[] key(long i, int length) {
    byte[] key = new byte[length];
    long mixed = i * 0x9E3779B97F4A7C15L;
    for (int j = 0; j < length; j++) {
      key[j] = (byte) (mixed >>> (8 * (j % 8)) ^ j);
    }
    return key;
  }

  @Test
  void choosesByHowFarTheGuessLandsFromTheRecord() throws IOException {
    EctParameters g64 = new EctParameters(64, 64, 3);
    System.out.println("ReadAheadChoiceTest seed=" + SEED);
    try (Store fixedShort = build("fixed16", 20_000, 8, 8, 8, g64);
        Store fixedLong = build("fixed120", 20_000, 20, 100, 100, g64);
        Store variableShort = build("var20", 20_000, 8, 4, 16, g64);
        Store variableLong = build("var70", 20_000, 10, 0, 120, g64);
        Store fixedShortWideBuckets = build("fixed16g1024", 20_000, 8, 8, 8, new EctParameters(1024, 64, 0));
        Store fixedLongG4096 = build("fixed120g4096", 20_000, 20, 100, 100, new EctParameters(4096, 64, 0));
        Store variableMiddle = build("var30", 20_000, 8, 4, 36, g64)) {
      assertEquals(ReadAhead.OFFSETS, variableMiddle.readAhead(), "about 30-byte records: 120 bytes off, plus the estimate's error");
      assertEquals(ReadAhead.RECORD_LINES, fixedShort.readAhead(), "16-byte records at g = 64: 4 records = 64 bytes off");
      // Farther than 256 bytes, the guessed line is on another page than the record too often: a
      // cold store would read that page from disk as well.
      assertEquals(ReadAhead.NONE, fixedLong.readAhead(), "120-byte records: 480 bytes off");
      assertEquals(ReadAhead.RECORD_LINES, variableShort.readAhead(), "about 20-byte records");
      assertEquals(ReadAhead.OFFSETS, variableLong.readAhead(), "about 70-byte records of 10 to 130 bytes");
      assertEquals(ReadAhead.NONE, fixedShortWideBuckets.readAhead(), "g = 1024: 16 records of 20 bytes = 320 bytes off");
      assertEquals(ReadAhead.NONE, fixedLongG4096.readAhead(), "g = 4096: 32 records of 120 bytes = 3840 bytes off");
    }
  }

  /**
   * A fixed-size record guessed within the guess's error of a memory page's edge is not read ahead:
   * the record is then too often on the neighbouring page, which a cold store would read from disk
   * for nothing (1.008 reads per cold lookup before, 0.987 after, on 10^8 records of 8 + 8 bytes).
   */
  @Test
  void aGuessNearAPageEdgeIsNotReadAhead() {
    long margin = 174; // 8.66 ranks of 20-byte records: the blocked index's default guess error
    for (long page : new long[] {0, 4096, 123 * 4096L}) {
      assertEquals(false, ReadAhead.awayFromPageEdges(page, margin), "at a page's start");
      assertEquals(false, ReadAhead.awayFromPageEdges(page + margin - 1, margin), "just inside the margin");
      assertEquals(true, ReadAhead.awayFromPageEdges(page + margin, margin), "at the margin");
      assertEquals(true, ReadAhead.awayFromPageEdges(page + 2048, margin), "mid-page");
      assertEquals(true, ReadAhead.awayFromPageEdges(page + 4096 - margin, margin), "at the far margin");
      assertEquals(false, ReadAhead.awayFromPageEdges(page + 4096 - margin + 1, margin), "past the far margin");
      assertEquals(false, ReadAhead.awayFromPageEdges(page + 4095, margin), "at a page's end");
    }
    assertEquals(true, ReadAhead.awayFromPageEdges(0, 0), "no margin: every guess is read ahead");
  }

  @Test
  void blockedIndexGuessesWithinABlock() throws IOException {
    try (Store fixedShort = build("blocked16", 20_000, 8, 8, 8, BlockedIndexParameters.DEFAULT);
        Store fixedLong = build("blocked120", 20_000, 20, 100, 100, BlockedIndexParameters.DEFAULT);
        Store fixedTiny = build("blocked8", 20_000, 4, 4, 4, new BlockedIndexParameters(16));
        Store variableShort = build("blockedVar20", 20_000, 8, 4, 16, BlockedIndexParameters.DEFAULT)) {
      assertEquals(ReadAhead.RECORD_PAGE, fixedShort.readAhead(), "16-byte records: about 9 records = 139 bytes off");
      assertEquals(ReadAhead.NONE, fixedLong.readAhead(), "120-byte records: 1,039 bytes off");
      assertEquals(ReadAhead.RECORD_LINES, fixedTiny.readAhead(), "8-byte records, 16 keys per block: 16 bytes off");
      assertEquals(ReadAhead.OFFSETS, variableShort.readAhead(), "about 20-byte records: 170 bytes off and more");
    }
  }
}
