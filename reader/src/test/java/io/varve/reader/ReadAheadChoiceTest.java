package io.varve.reader;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.varve.builder.StoreBuilder;
import io.varve.core.ect.EctParameters;
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

  private Store build(String name, int records, int keyLength, int minValue, int maxValue, EctParameters index)
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
        Store fixedShortWideBuckets = build("fixed16g1024", 20_000, 8, 8, 8, new EctParameters(1024, 64, 0))) {
      assertEquals(Store.ReadAhead.RECORD_LINES, fixedShort.readAhead(), "16-byte records at g = 64: 4 records = 64 bytes off");
      assertEquals(Store.ReadAhead.NONE, fixedLong.readAhead(), "120-byte records: 480 bytes off");
      assertEquals(Store.ReadAhead.RECORD_LINES, variableShort.readAhead(), "about 20-byte records");
      assertEquals(Store.ReadAhead.OFFSETS, variableLong.readAhead(), "about 70-byte records of 10 to 130 bytes");
      assertEquals(Store.ReadAhead.NONE, fixedShortWideBuckets.readAhead(), "g = 1024: 16 records = 256 bytes off");
    }
  }
}
