package io.varve.bcms;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.params.provider.Arguments;

/** Shared stream generators, reference models and property checks for the sketch tests. */
final class SketchChecks {
  private SketchChecks() {}

  /** A random generator with a fixed, printed seed. */
  static Random random(long seed) {
    System.out.println("seed " + seed);
    return new Random(seed);
  }

  /** Test arguments: each of {@code firsts} with 32- and 64-bit counters, plain and conservative update. */
  static Stream<Arguments> withBitsAndUpdateRules(Object... firsts) {
    List<Arguments> out = new ArrayList<>();
    for (Object first : firsts) {
      for (int bits : new int[] {32, 64}) {
        for (boolean conservative : new boolean[] {false, true}) {
          out.add(Arguments.of(first, bits, conservative));
        }
      }
    }
    return out.stream();
  }

  /**
   * The seed of one case of a parameterized test: the test's {@code base} plus a number of its own
   * for each case, so that every case draws another stream.
   */
  static long seed(long base, int caseNumber, int bits, boolean conservative) {
    return base + caseNumber * 10L + bits + (conservative ? 1 : 0);
  }

  /** Sketch parameters of the given dimensions, counter width, update rule and seed. */
  static SketchParameters parameters(long width, int depth, int bits, boolean conservative, long seed) {
    return SketchParameters.ofDimensions(width, depth).withCounterBits(bits).withConservativeUpdate(conservative)
        .withSeed(seed);
  }

  // ---------------------------------------------------------------- streams

  /**
   * A weight: mostly small, some 0, some near and past the 32-bit boundary (0xFFFFFFFF is the largest
   * weight a buffer entry carries, 2^32 and up go to the page at once).
   */
  static long randomWeight(Random r) {
    int k = r.nextInt(100);
    if (k < 10) {
      return 0;
    }
    if (k < 80) {
      return 1 + r.nextInt(1000);
    }
    if (k < 94) {
      return 1 + (r.nextLong() >>> 34); // up to 2^30
    }
    if (k < 97) {
      return 0xFFFF_FFFFL - 1 + r.nextInt(3); // 2^32 - 2, 2^32 - 1, 2^32
    }
    return (1L << 32) + (r.nextLong() >>> 24); // past 2^32, up to 2^40 + 2^32
  }

  /** {@code n} long items drawn from {@code distinct} distinct values, including edge values. */
  static long[] randomLongItems(Random r, int distinct, int n) {
    long[] values = new long[distinct];
    long[] edges = {0, -1, 1, Long.MIN_VALUE, Long.MAX_VALUE};
    for (int i = 0; i < distinct; i++) {
      values[i] = i < edges.length ? edges[i] : r.nextLong();
    }
    long[] items = new long[n];
    for (int i = 0; i < n; i++) {
      items[i] = values[r.nextInt(distinct)];
    }
    return items;
  }

  /**
   * {@code distinct} distinct byte-array items: the empty array, non-ASCII UTF-8 strings, short
   * random bytes and longer random arrays (past the hash's 16- and 128-byte branches).
   */
  static List<byte[]> distinctByteItems(Random r, int distinct) {
    Set<String> seen = new HashSet<>();
    List<byte[]> out = new ArrayList<>();
    String[] fixed = {"", "a", "äöü", "€", "日本語", "\uD83D\uDE00", "naïve café", "\u0000"};
    int i = 0;
    while (out.size() < distinct) {
      byte[] b;
      if (i < fixed.length) {
        b = fixed[i].getBytes(UTF_8);
      } else if (i % 3 == 0) {
        b = ("ключ-" + i + "-ß-" + r.nextInt(1000)).getBytes(UTF_8);
      } else {
        int len = i % 7 == 0 ? 17 + r.nextInt(200) : r.nextInt(16);
        b = new byte[len];
        r.nextBytes(b);
      }
      i++;
      if (seen.add(key(b))) {
        out.add(b);
      }
    }
    return out;
  }

  /** A content key for a byte array (ISO-8859-1 maps bytes to chars one to one). */
  static String key(byte[] item) {
    return new String(item, ISO_8859_1);
  }

  static byte[] bytesOf(String key) {
    return key.getBytes(ISO_8859_1);
  }

  /** {@code n} indices into {@code [0, distinct)} drawn from a Zipf distribution with exponent {@code s}. */
  static int[] zipfIndices(Random r, int distinct, double s, int n) {
    double[] cdf = new double[distinct];
    double sum = 0;
    for (int i = 0; i < distinct; i++) {
      sum += 1 / Math.pow(i + 1, s);
      cdf[i] = sum;
    }
    int[] out = new int[n];
    for (int i = 0; i < n; i++) {
      double u = r.nextDouble() * sum;
      int at = Arrays.binarySearch(cdf, u);
      out[i] = Math.min(distinct - 1, at >= 0 ? at : -at - 1);
    }
    return out;
  }

  // ---------------------------------------------------------------- reference models

  /** Exact counts of long items, the reference every estimate is checked against. */
  static final class LongModel {
    final Map<Long, Long> exact = new HashMap<>();
    long total;

    void add(long item, long weight) {
      exact.merge(item, weight, Math::addExact);
      total = Math.addExact(total, weight);
    }

    long count(long item) {
      return exact.getOrDefault(item, 0L);
    }
  }

  /** Exact counts of byte-array items. */
  static final class BytesModel {
    final Map<String, Long> exact = new HashMap<>();
    long total;

    void add(byte[] item, long weight) {
      exact.merge(key(item), weight, Math::addExact);
      total = Math.addExact(total, weight);
    }
  }

  // ---------------------------------------------------------------- checks

  /** Every estimate is at least the true count (capped at the counter maximum) and at most that maximum. */
  static void assertNoUnderestimate(AnySketch s, LongModel model) {
    long max = s.parameters().counterMax();
    for (Map.Entry<Long, Long> e : model.exact.entrySet()) {
      long estimate = s.estimate(e.getKey());
      long truth = Math.min(e.getValue(), max);
      if (estimate < truth || estimate > max) {
        fail(s + ": item " + e.getKey() + " estimated " + estimate + ", true count " + e.getValue()
            + ", counter max " + max);
      }
    }
    assertEquals(model.total, s.totalWeight(), "total weight");
  }

  static void assertNoUnderestimate(AnySketch s, BytesModel model) {
    long max = s.parameters().counterMax();
    for (Map.Entry<String, Long> e : model.exact.entrySet()) {
      long estimate = s.estimate(bytesOf(e.getKey()));
      long truth = Math.min(e.getValue(), max);
      if (estimate < truth || estimate > max) {
        fail(s + ": item " + Arrays.toString(bytesOf(e.getKey())) + " estimated " + estimate + ", true count "
            + e.getValue() + ", counter max " + max);
      }
    }
    assertEquals(model.total, s.totalWeight(), "total weight");
  }

  /** At least {@code minFraction} of the items are estimated exactly (capped at the counter maximum). */
  static void assertMostlyExact(AnySketch s, LongModel model, double minFraction) {
    long max = s.parameters().counterMax();
    int exact = 0;
    for (Map.Entry<Long, Long> e : model.exact.entrySet()) {
      if (s.estimate(e.getKey()) == Math.min(e.getValue(), max)) {
        exact++;
      }
    }
    int n = model.exact.size();
    assertTrue(exact >= minFraction * n, s + ": only " + exact + " of " + n + " items estimated exactly");
  }

  static void assertMostlyExact(AnySketch s, BytesModel model, double minFraction) {
    long max = s.parameters().counterMax();
    int exact = 0;
    for (Map.Entry<String, Long> e : model.exact.entrySet()) {
      if (s.estimate(bytesOf(e.getKey())) == Math.min(e.getValue(), max)) {
        exact++;
      }
    }
    int n = model.exact.size();
    assertTrue(exact >= minFraction * n, s + ": only " + exact + " of " + n + " items estimated exactly");
  }

  /** Feeds {@code items}, each with a {@link #randomWeight}, to the sketch and the model. */
  static void feedRandomWeights(FrequencySketch s, LongModel model, long[] items, Random r) {
    for (long item : items) {
      long w = randomWeight(r);
      s.update(item, w);
      model.add(item, w);
    }
  }

  /** Feeds {@code n} updates of items drawn from {@code items}, with {@link #randomWeight}s. */
  static void feedRandomItems(FrequencySketch s, LongModel model, long[] items, int n, Random r) {
    for (int i = 0; i < n; i++) {
      long item = items[r.nextInt(items.length)];
      long w = randomWeight(r);
      s.update(item, w);
      model.add(item, w);
    }
  }

  /** The sketch's estimates of {@code items}, in order. */
  static long[] estimates(FrequencySketch s, long[] items) {
    long[] estimates = new long[items.length];
    for (int i = 0; i < items.length; i++) {
      estimates[i] = s.estimate(items[i]);
    }
    return estimates;
  }

  /** Feeds {@code items} with {@code weights} to the sketch and the model. */
  static void feed(AnySketch s, LongModel model, long[] items, long[] weights) {
    for (int i = 0; i < items.length; i++) {
      s.update(items[i], weights[i]);
      model.add(items[i], weights[i]);
    }
  }

  /** The sum over all items of estimate minus true count. */
  static long overestimateSum(AnySketch s, LongModel model) {
    long sum = 0;
    for (Map.Entry<Long, Long> e : model.exact.entrySet()) {
      sum += s.estimate(e.getKey()) - e.getValue();
    }
    return sum;
  }

  // ---------------------------------------------------------------- files and processes

  /** Pages of a buffered sketch, by the file format's formula. */
  static long pageCount(SketchParameters p) {
    long columnsPerPage = p.pageSize() / ((long) p.depth() * p.counterBytes());
    return (p.width() + columnsPerPage - 1) / columnsPerPage;
  }

  /**
   * The RAM budget that gives a buffered sketch {@code capacity} buffered updates per page: two page
   * images, then per page a 4-byte fill count and 8 bytes per entry.
   */
  static long budgetForCapacity(SketchParameters p, int capacity) {
    return 2L * p.pageSize() + pageCount(p) * (4 + 8L * capacity);
  }

  static boolean procAvailable() {
    return Files.isDirectory(Path.of("/proc/self/fd")) && Files.isReadable(Path.of("/proc/self/maps"));
  }

  /** Number of open file descriptors of this process. */
  static int openFdCount() throws IOException {
    try (Stream<Path> s = Files.list(Path.of("/proc/self/fd"))) {
      return (int) s.count();
    }
  }

  /** Open file descriptors of this process that refer to {@code file}. */
  static List<String> fdsOn(Path file) throws IOException {
    String target = file.toAbsolutePath().toString();
    List<String> out = new ArrayList<>();
    try (Stream<Path> s = Files.list(Path.of("/proc/self/fd"))) {
      for (Path fd : (Iterable<Path>) s::iterator) {
        try {
          String link = Files.readSymbolicLink(fd).toString();
          if (link.startsWith(target)) {
            out.add(fd + " -> " + link);
          }
        } catch (IOException e) {
          // closed meanwhile (the listing's own descriptor, or another thread's)
        }
      }
    }
    return out;
  }

  /** Whether {@code file} is memory-mapped in this process. */
  static boolean isMapped(Path file) throws IOException {
    String target = file.toAbsolutePath().toString();
    for (String line : Files.readAllLines(Path.of("/proc/self/maps"))) {
      if (line.endsWith(target) || line.contains(target + " ")) {
        return true;
      }
    }
    return false;
  }
}
