package io.varve.bufferhash;

import io.varve.core.hash.KeyHasher;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * A harness run by hand, not a test: what a lookup spends on one unit read from the log, split into
 * copying the page and checking its CRC32C, and scanning its entries for the key (what a layout of
 * fixed-size entries could make cheaper). One full incarnation of 20-byte keys and 8-byte values,
 * 31 pages of 135-136 entries; each round looks up 200,000 of its keys.
 *
 * <pre>
 * ./mvnw -q -B -o test-compile -pl bufferhash -am
 * java -cp bufferhash/target/test-classes:bufferhash/target/classes:core/target/classes:$(find ~/.m2 -name 'zero-allocation-hashing-*.jar' | head -1) \
 *     io.varve.bufferhash.UnitScanCost
 * </pre>
 */
public final class UnitScanCost {
  private static final int ENTRIES = 4215;
  private static final int LOOKUPS = 200_000;

  private UnitScanCost() {}

  public static void main(String[] args) {
    KeyHasher hasher = KeyHasher.withSeed(1);
    WriteBuffer buffer = new WriteBuffer(ENTRIES * 30, ENTRIES);
    SplittableRandom random = new SplittableRandom(7);
    byte[][] keys = new byte[ENTRIES][20];
    long[] hash = new long[2];
    for (int i = 0; i < ENTRIES; i++) {
      random.nextBytes(keys[i]);
      hasher.hash(keys[i], hash);
      if (!buffer.put(keys[i], new byte[8], false, hash[0], hash[1])) {
        throw new AssertionError("the buffer refused entry " + i);
      }
    }
    IncarnationCodec.Encoded encoded = IncarnationCodec.encode(buffer, 0, 1, hasher, 0);
    Incarnation incarnation = encoded.at(0);
    System.out.println(incarnation.units() + " units of " + incarnation.pages + " pages");
    int[] unitOf = new int[ENTRIES];
    for (int i = 0; i < ENTRIES; i++) {
      hasher.hash(keys[i], hash);
      unitOf[i] = incarnation.lastUnitAtMost((int) (hash[1] >>> 32));
    }
    byte[] page = new byte[4096];
    long sink = 0;
    for (int round = 0; round < 8; round++) {
      long start = System.nanoTime();
      for (int r = 0; r < LOOKUPS; r++) {
        int unit = unitOf[r % ENTRIES];
        int length = copy(encoded, incarnation, unit, page);
        sink += IncarnationCodec.checkUnit(page, length, 0, 1, incarnation.unitFirstPage(unit), "unit");
      }
      long checked = System.nanoTime();
      for (int r = 0; r < LOOKUPS; r++) {
        int unit = unitOf[r % ENTRIES];
        int length = copy(encoded, incarnation, unit, page);
        int at = IncarnationCodec.findInUnit(page, length, 0, 1, incarnation.unitFirstPage(unit), keys[r % ENTRIES], "unit");
        if (at < 0) {
          throw new AssertionError("key " + (r % ENTRIES) + " not found in its unit");
        }
        sink += at;
      }
      long found = System.nanoTime();
      System.out.printf(Locale.ROOT, "copy and check %.0f ns, copy, check and scan %.0f ns: scan %.0f ns per lookup%n",
          (checked - start) / (double) LOOKUPS, (found - checked) / (double) LOOKUPS, ((found - checked) - (checked - start)) / (double) LOOKUPS);
    }
    System.out.println("(" + sink + ")");
  }

  private static int copy(IncarnationCodec.Encoded encoded, Incarnation incarnation, int unit, byte[] page) {
    int length = incarnation.unitEnd(unit) - incarnation.unitStart(unit);
    System.arraycopy(encoded.bytes, incarnation.unitStart(unit), page, 0, length);
    return length;
  }
}
