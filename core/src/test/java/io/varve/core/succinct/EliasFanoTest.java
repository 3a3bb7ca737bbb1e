package io.varve.core.succinct;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.varve.core.format.CorruptStoreException;
import io.varve.core.testing.TestRecords;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

class EliasFanoTest {
  private static final long SEED = 0xEF0011L;

  @ParameterizedTest(name = "{0} values below {1}")
  @CsvSource({
    "0, 0", "0, 1000000", "1, 0", "1, 5", "2, 1", "3, 100", "100, 100", "100, 1000000000000",
    "10000, 10", "10000, 20000", "100000, 4611686018427387903", "1000000, 2500000", "1000000, 64000000"
  })
  void agreesWithPlainArray(int count, long maxValue) throws IOException {
    long seed = SEED ^ count ^ maxValue;
    SplittableRandom random = TestRecords.seeded("EliasFanoTest", seed);
    long[] values = new long[count];
    for (int i = 0; i < count; i++) {
      values[i] = maxValue == 0 ? 0 : random.nextLong(maxValue + 1);
    }
    Arrays.sort(values);
    EliasFano ef = EliasFano.builder(count, maxValue).addAll(values).build();
    check(values, ef, random, maxValue);
    check(values, roundTrip(ef), random, maxValue);
  }

  @Test
  void clusteredValuesWithLongRunsAndGaps() {
    SplittableRandom random = new SplittableRandom(SEED);
    long[] values = new long[50_000];
    long v = 0;
    for (int i = 0; i < values.length; i++) {
      v += random.nextInt(100) < 90 ? 0 : random.nextLong(1L << random.nextInt(30));
      values[i] = v;
    }
    EliasFano ef = EliasFano.builder(values.length, v).addAll(values).build();
    check(values, ef, random, v);
  }

  /**
   * estimate() is exact in its upper bits at every 256th element, lies in [0, upperBound] and, in
   * between, between the values at the samples around it (their upper bits).
   */
  private static void checkEstimates(long[] values, EliasFano ef) {
    int lowerWidth = EliasFano.lowerWidth(values.length, ef.upperBound());
    for (int i = 0; i < values.length; i++) {
      long estimate = ef.estimate(i);
      if (estimate < 0 || estimate > ef.upperBound()) {
        fail("estimate(" + i + ") = " + estimate + " outside [0, " + ef.upperBound() + "]");
      }
      if (i % 256 == 0) {
        assertEquals(values[i] >>> lowerWidth << lowerWidth, estimate, "estimate at sample " + i);
      } else {
        long below = values[i - i % 256] >>> lowerWidth << lowerWidth;
        long above = i - i % 256 + 256 < values.length ? values[i - i % 256 + 256] : ef.upperBound();
        if (estimate < below || estimate > above) {
          fail("estimate(" + i + ") = " + estimate + " outside the samples' [" + below + ", " + above + "]");
        }
      }
    }
  }

  @Test
  void estimatesOfEvenlySpacedValuesAreCloseAndOfUnevenOnesStayBetweenTheirSamples() {
    long[] even = new long[10_000];
    for (int i = 0; i < even.length; i++) {
      even[i] = 100L * i + (i % 7);
    }
    EliasFano ef = EliasFano.of(even);
    checkEstimates(even, ef);
    for (int i = 0; i < even.length; i++) {
      assertTrue(Math.abs(ef.estimate(i) - even[i]) < 200, "estimate(" + i + ") = " + ef.estimate(i) + " for " + even[i]);
    }
  }

  private static void check(long[] values, EliasFano ef, SplittableRandom random, long maxValue) {
    assertEquals(values.length, ef.size());
    // touch() reads ahead for get(): every index must be safe, whatever the shape of the sequence.
    for (int i = 0; i < values.length; i++) {
      ef.touch(i);
    }
    checkEstimates(values, ef);
    for (int i = 0; i < values.length; i++) {
      if (values[i] != ef.get(i)) {
        fail("get(" + i + ") = " + ef.get(i) + ", expected " + values[i]);
      }
    }
    int probes = Math.min(200_000, 10 * values.length + 20);
    for (int t = 0; t < probes; t++) {
      long x;
      if (values.length > 0 && t % 2 == 0) {
        x = values[random.nextInt(values.length)] + random.nextInt(3) - 1;
      } else {
        x = random.nextLong(Math.max(1, maxValue + 2)) - 1;
      }
      assertEquals(successor(values, x), ef.successorIndex(x), "successorIndex(" + x + ")");
      assertEquals(successor(values, x + 1) - 1, ef.predecessorIndex(x), "predecessorIndex(" + x + ")");
    }
    assertEquals(0, ef.successorIndex(Long.MIN_VALUE));
    assertEquals(values.length, ef.successorIndex(Long.MAX_VALUE));
    assertEquals(values.length - 1, ef.predecessorIndex(Long.MAX_VALUE));
    assertEquals(-1, ef.predecessorIndex(-1));
    assertThrows(IndexOutOfBoundsException.class, () -> ef.get(values.length));
    assertThrows(IndexOutOfBoundsException.class, () -> ef.get(-1));
  }

  /** The first index whose value is >= x. */
  private static long successor(long[] values, long x) {
    int low = 0;
    int high = values.length;
    while (low < high) {
      int mid = (low + high) >>> 1;
      if (values[mid] < x) {
        low = mid + 1;
      } else {
        high = mid;
      }
    }
    return low;
  }

  /**
   * More than 2^31 elements and more than 2^32 bits of upper bits: no int index anywhere. Needs
   * about 1.2 GiB of heap; run with {@code -Dvarve.test.large=true}.
   */
  @Test
  @EnabledIfSystemProperty(named = "varve.test.large", matches = "true")
  void moreThanTwoToTheThirtyOneElements() {
    long n = (1L << 31) + 1000;
    long seed = 0xB16L;
    System.out.println("EliasFanoTest large seed " + seed);
    // Values 3i + (0, 1 or 2): the upper bits hold ~2n + n/... bits, beyond 2^32.
    EliasFano.Builder builder = EliasFano.builder(n, 3 * n + 2);
    for (long i = 0; i < n; i++) {
      builder.add(3 * i + (mix(seed + i) & 1));
    }
    EliasFano ef = builder.build();
    assertTrue(ef.encodedBits() > 1L << 32, "upper bits " + ef.encodedBits());
    SplittableRandom random = new SplittableRandom(seed);
    for (int t = 0; t < 1_000_000; t++) {
      long i = t < 1000 ? n - 1 - t : random.nextLong(n);
      long expected = 3 * i + (mix(seed + i) & 1);
      assertEquals(expected, ef.get(i), "get(" + i + ")");
      assertEquals(i, ef.successorIndex(expected));
      assertEquals(i, ef.predecessorIndex(expected + 1));
    }
  }

  private static long mix(long z) {
    z = (z ^ (z >>> 33)) * 0xFF51AFD7ED558CCDL;
    return z ^ (z >>> 33);
  }

  @Test
  void sizeIsCloseToTheBound() {
    int n = 1_000_000;
    long u = 1L << 30;
    SplittableRandom random = new SplittableRandom(SEED);
    long[] values = random.longs(n, 0, u).sorted().toArray();
    EliasFano ef = EliasFano.builder(n, u).addAll(values).build();
    double bitsPerElement = (double) ef.encodedBits() / n;
    double bound = 2 + Math.ceil(Math.log((double) u / n) / Math.log(2));
    assertTrue(bitsPerElement <= bound + 0.01, "bits per element " + bitsPerElement);
  }

  @Test
  void builderChecksItsOrderOfUse() {
    EliasFano.Builder b = EliasFano.builder(2, 10);
    b.add(5);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> b.add(4));
    assertTrue(e.getMessage().contains("values do not come in order"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> b.add(11));
    assertThrows(IllegalStateException.class, b::build);
    b.add(10);
    assertThrows(IllegalStateException.class, () -> b.add(10));
    b.build();
    assertThrows(IllegalStateException.class, b::build);
    assertThrows(IllegalArgumentException.class, () -> EliasFano.builder(-1, 10));
    assertThrows(IllegalArgumentException.class, () -> EliasFano.builder(1, -1));
  }

  @Test
  void damagedInputIsReportedAsCorrupt() throws IOException {
    SplittableRandom random = new SplittableRandom(SEED);
    long[] values = random.longs(3000, 0, 1 << 20).sorted().toArray();
    byte[] bytes = serialize(EliasFano.builder(values.length, 1 << 20).addAll(values).build());
    for (int cut = 0; cut < bytes.length; cut += 7) {
      byte[] truncated = Arrays.copyOf(bytes, cut);
      assertThrows(CorruptStoreException.class, () -> read(truncated), "truncated at " + cut);
    }
    // Header fields and the upper bits are validated; flips in lower bits change values only.
    int headerBytes = 8 + 8 + 4;
    for (int bit = 0; bit < headerBytes * 8; bit++) {
      byte[] flipped = bytes.clone();
      flipped[bit >>> 3] ^= (byte) (1 << (bit & 7));
      try {
        EliasFano ef = read(flipped);
        assertTrue(ef.size() <= 3000 && ef.size() >= 0);
      } catch (CorruptStoreException expected) {
        // fine
      }
    }
  }

  private static byte[] serialize(EliasFano ef) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    ef.writeTo(new DataOutputStream(bytes));
    return bytes.toByteArray();
  }

  private static EliasFano read(byte[] bytes) throws IOException {
    return EliasFano.readFrom(new DataInputStream(new ByteArrayInputStream(bytes)), 1 << 20);
  }

  private static EliasFano roundTrip(EliasFano ef) throws IOException {
    return EliasFano.readFrom(
        new DataInputStream(new ByteArrayInputStream(serialize(ef))), Long.MAX_VALUE);
  }
}
