package io.varve.benchmarks;

import io.varve.builder.BuildSummary;
import io.varve.builder.DuplicatePolicy;
import io.varve.builder.StoreBuilder;
import io.varve.reader.Store;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.Stream;

/**
 * The store's large round trip: {@code N} random records with key and value lengths uniform in
 * 0..64 bytes, built in a small memory budget (so that it spills), then every key looked up and
 * checked, and a million absent keys (65 to 80 bytes: no stored key is that long) checked to be
 * absent. Short keys repeat by chance (there are only 256 one-byte keys), so the build keeps the
 * last value; the check knows the last value of every key of at most 5 bytes from a map and
 * regenerates the others (longer keys repeat with negligible probability, and a repeat would show
 * as a mismatch, not pass unnoticed).
 *
 * <pre>
 * java -Xmx2g --add-opens=java.base/java.lang.reflect=ALL-UNNAMED --add-exports=java.base/sun.nio.ch=ALL-UNNAMED \
 *     --add-exports=java.base/jdk.internal.ref=ALL-UNNAMED -cp benchmarks/target/benchmarks.jar \
 *     io.varve.benchmarks.RoundTripScale 10000000 64 /tmp/varve-roundtrip
 * </pre>
 */
public final class RoundTripScale {
  private static final long SEED = 0xC0FFEE;
  private static final int SHORT_KEY = 5;

  private RoundTripScale() {}

  /** Generates record {@code i}'s key and value into the arrays (returns them, resized). */
  private static byte[][] record(SplittableRandom random) {
    byte[] key = new byte[random.nextInt(65)];
    random.nextBytes(key);
    byte[] value = new byte[random.nextInt(65)];
    random.nextBytes(value);
    return new byte[][] {key, value};
  }

  public static void main(String[] args) throws IOException {
    long n = Long.parseLong(args[0]);
    long budget = Long.parseLong(args[1]) << 20;
    Path dir = Path.of(args[2]);
    if (Files.exists(dir)) {
      throw new IllegalArgumentException(dir + " exists");
    }
    Map<ByteBuffer, byte[]> shortKeys = new HashMap<>();
    long start = System.nanoTime();
    BuildSummary summary;
    try (StoreBuilder builder = StoreBuilder.create(dir).memoryBudget(budget).duplicates(DuplicatePolicy.LAST_WINS)) {
      SplittableRandom random = new SplittableRandom(SEED);
      for (long i = 0; i < n; i++) {
        byte[][] r = record(random);
        builder.put(r[0], r[1]);
        if (r[0].length <= SHORT_KEY) {
          shortKeys.put(ByteBuffer.wrap(r[0]), r[1]);
        }
      }
      summary = builder.build();
    }
    System.out.printf("built %,d records (%,d put, %,d duplicates dropped, %d spills) in %.1f s with a %d MiB budget%n",
        summary.meta().recordCount(), summary.recordsPut(), summary.duplicatesDropped(), summary.spills(),
        (System.nanoTime() - start) / 1e9, budget >> 20);
    long wrong = 0;
    long checked = 0;
    long falseHits = 0;
    try (Store store = Store.open(dir)) {
      SplittableRandom random = new SplittableRandom(SEED);
      start = System.nanoTime();
      for (long i = 0; i < n; i++) {
        byte[][] r = record(random);
        byte[] expected = r[0].length <= SHORT_KEY ? shortKeys.get(ByteBuffer.wrap(r[0])) : r[1];
        if (!Arrays.equals(expected, store.get(r[0]))) {
          wrong++;
        }
        checked++;
      }
      System.out.printf("checked %,d puts' keys in %.1f s: %,d wrong values%n", checked, (System.nanoTime() - start) / 1e9, wrong);
      SplittableRandom absent = new SplittableRandom(SEED + 1);
      for (int i = 0; i < 1_000_000; i++) {
        byte[] key = new byte[65 + absent.nextInt(16)];
        absent.nextBytes(key);
        if (store.get(key) != null || store.indexOf(key) != -1) {
          falseHits++;
        }
      }
      System.out.printf("absent keys: 1,000,000 looked up, %,d found%n", falseHits);
      if (store.size() != summary.meta().recordCount()) {
        wrong++;
      }
    } finally {
      try (Stream<Path> files = Files.walk(dir)) {
        for (Path p : (Iterable<Path>) files.sorted(Comparator.reverseOrder())::iterator) {
          Files.delete(p);
        }
      }
    }
    if (wrong != 0 || falseHits != 0) {
      System.out.println("FAILED");
      System.exit(1);
    }
    System.out.println("OK");
  }
}
