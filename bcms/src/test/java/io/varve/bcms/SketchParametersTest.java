package io.varve.bcms;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Sketch parameters: sizing by error, validation, value semantics, and the sizes they give. */
class SketchParametersTest {
  @TempDir Path dir;

  @ParameterizedTest
  @CsvSource({
      // epsilon, delta, ceil(e / epsilon), ceil(ln(1 / delta)) (computed independently)
      "0.01, 0.01, 272, 5",
      "0.001, 0.001, 2719, 7",
      "1e-5, 0.5, 271829, 1",
      "0.5, 0.9, 6, 1",
      "1e-7, 0.01, 27182819, 5",
      "9.5367431640625e-07, 1e-6, 2850326, 14", // epsilon 2^-20
      "1.4901161193847656e-08, 0.1, 182420806, 3", // epsilon 2^-26
      "0.5, 1e-27, 6, 63",
  })
  void forErrorGivesTheTextbookDimensions(double epsilon, double delta, long width, int depth) {
    SketchParameters p = SketchParameters.forError(epsilon, delta);
    assertEquals(width, p.width());
    assertEquals(depth, p.depth());
    assertEquals(64, p.counterBits());
    assertEquals(8, p.counterBytes());
    assertEquals(0, p.seed());
    assertFalse(p.conservativeUpdate());
    assertEquals(SketchParameters.DEFAULT_PAGE_SIZE, p.pageSize());
    assertTrue(p.epsilon() <= epsilon, "epsilon " + p.epsilon());
    assertTrue(p.delta() <= delta, "delta " + p.delta());
    assertEquals(p, SketchParameters.ofDimensions(width, depth));
  }

  @Test
  void theTableOneSketchHasTheDocumentedSize() throws IOException {
    // 3,355,444 columns x 5 rows x 8 bytes = 134,217,760 bytes (128 MiB and 32 bytes)
    SketchParameters p = SketchParameters.ofDimensions(3_355_444, 5);
    Path path = dir.resolve("table1.cms");
    try (CountMinSketch s = CountMinSketch.create(path, p)) {
      assertEquals(134_217_760L, s.sizeBytes());
      assertEquals(0, s.ramBytesUsed());
      s.update(7L);
      assertEquals(1, s.estimate(7L));
    }
    assertEquals(SketchFile.SLOTS_END + 134_217_760L, Files.size(path));
    Files.delete(path);
    try (CountMinSketch s = CountMinSketch.inMemory(p.withCounterBits(32))) {
      assertEquals(67_108_880L, s.sizeBytes());
      assertEquals(67_108_880L, s.ramBytesUsed());
    }
    // the buffered sketch rounds the width up to whole pages of floor(4096 / 40) = 102 columns
    Path buffered = dir.resolve("table1.bcms");
    try (BufferedCountMinSketch s = BufferedCountMinSketch.create(buffered, p, 1 << 20)) {
      assertEquals(102, s.columnsPerPage());
      assertEquals(32_897, s.pageCount());
      assertEquals(32_897L * 4096, s.sizeBytes());
    }
    assertEquals(SketchFile.SLOTS_END + 32_897L * 4096, Files.size(buffered));
  }

  @Test
  void invalidArgumentsAreRejected() {
    for (double epsilon : new double[] {0, 1, -0.1, 1.5, Double.NaN, Double.POSITIVE_INFINITY, 1e-300}) {
      assertThrows(IllegalArgumentException.class, () -> SketchParameters.forError(epsilon, 0.01), "eps " + epsilon);
    }
    for (double delta : new double[] {0, 1, -0.5, 2, Double.NaN, 1e-30}) {
      assertThrows(IllegalArgumentException.class, () -> SketchParameters.forError(0.01, delta), "delta " + delta);
    }
    for (long width : new long[] {0, -1, Long.MIN_VALUE}) {
      assertThrows(IllegalArgumentException.class, () -> SketchParameters.ofDimensions(width, 3), "width " + width);
    }
    for (int depth : new int[] {0, -1, 65, Integer.MAX_VALUE}) {
      assertThrows(IllegalArgumentException.class, () -> SketchParameters.ofDimensions(100, depth), "depth " + depth);
    }
    SketchParameters p = SketchParameters.ofDimensions(100, 3);
    for (int bits : new int[] {0, 8, 16, 31, 33, 63, 128}) {
      assertThrows(IllegalArgumentException.class, () -> p.withCounterBits(bits), "bits " + bits);
    }
    for (int page : new int[] {0, -4096, 256, 511, 1000, 4095, 3 << 10, 2 << 20, Integer.MIN_VALUE}) {
      assertThrows(IllegalArgumentException.class, () -> p.withPageSize(page), "page " + page);
    }
    // the edges that are allowed
    assertEquals(64, SketchParameters.ofDimensions(1, 64).depth());
    assertEquals(512, p.withPageSize(512).pageSize());
    assertEquals(1 << 20, p.withPageSize(1 << 20).pageSize());
    assertEquals(1, SketchParameters.ofDimensions(1, 1).width());
  }

  @Test
  void tooLargeSketchesAreRejected() {
    assertThrows(IllegalArgumentException.class, () -> SketchParameters.ofDimensions(Long.MAX_VALUE, 1));
    assertThrows(IllegalArgumentException.class, () -> SketchParameters.ofDimensions(Long.MAX_VALUE / 8, 64));
    assertThrows(IllegalArgumentException.class, () -> SketchParameters.ofDimensions(1L << 62, 1).withCounterBits(32));
    // at most Long.MAX_VALUE / 2 bytes of counters: 2^61 bytes is fine
    assertEquals(1L << 58, SketchParameters.ofDimensions(1L << 58, 1).width());
  }

  /**
   * Sizes whose byte count lies in [2^63, 2^64): the 128-bit product's high half is 0, so only the
   * 64-bit product guards them, and it has wrapped negative.
   */
  @Test
  void sizesOfTwoToTheSixtyThreeBytesAreRejected() {
    // 2^60 counters x 8 bytes = 2^63 bytes; 2^59 x 2 rows x 8 bytes; 2^57 x 8 rows x 8 bytes; 3 * 2^62 bytes
    assertThrows(IllegalArgumentException.class, () -> SketchParameters.ofDimensions(1L << 60, 1),
        "a sketch of 2^63 bytes");
    assertThrows(IllegalArgumentException.class, () -> SketchParameters.ofDimensions(1L << 59, 2));
    assertThrows(IllegalArgumentException.class, () -> SketchParameters.ofDimensions(1L << 57, 8));
    assertThrows(IllegalArgumentException.class, () -> SketchParameters.ofDimensions(3L << 59, 1));
  }

  @Test
  void equalsAndHashCodeCoverEveryField() {
    SketchParameters p = SketchParameters.ofDimensions(1000, 4).withSeed(7).withCounterBits(32)
        .withConservativeUpdate(true).withPageSize(8192);
    SketchParameters same = SketchParameters.ofDimensions(1000, 4).withPageSize(8192).withConservativeUpdate(true)
        .withCounterBits(32).withSeed(7);
    assertEquals(p, same);
    assertEquals(p.hashCode(), same.hashCode());
    assertEquals(p.toString(), same.toString());
    assertEquals(p, p);
    assertNotEquals(p, null);
    assertNotEquals(p, "width 1000");
    for (SketchParameters other : List.of(
        SketchParameters.ofDimensions(1001, 4).withSeed(7).withCounterBits(32).withConservativeUpdate(true)
            .withPageSize(8192),
        SketchParameters.ofDimensions(1000, 5).withSeed(7).withCounterBits(32).withConservativeUpdate(true)
            .withPageSize(8192),
        p.withSeed(8), p.withSeed(-7), p.withCounterBits(64), p.withConservativeUpdate(false), p.withPageSize(4096))) {
      assertNotEquals(p, other, other.toString());
      assertNotEquals(other, p, other.toString());
    }
  }

  @Test
  void withMethodsReturnNewInstancesAndLeaveTheOriginal() {
    SketchParameters p = SketchParameters.ofDimensions(1000, 4);
    SketchParameters q = p.withSeed(3).withCounterBits(32).withConservativeUpdate(true).withPageSize(1024);
    assertEquals(0, p.seed());
    assertEquals(64, p.counterBits());
    assertEquals(Long.MAX_VALUE, p.counterMax());
    assertFalse(p.conservativeUpdate());
    assertEquals(4096, p.pageSize());
    assertEquals(3, q.seed());
    assertEquals(32, q.counterBits());
    assertEquals(4, q.counterBytes());
    assertEquals(0xFFFF_FFFFL, q.counterMax());
    assertTrue(q.conservativeUpdate());
    assertEquals(1024, q.pageSize());
    assertEquals(1000, q.width());
    assertEquals(4, q.depth());
    assertEquals(Math.E / 1000, q.epsilon(), 1e-15);
    assertEquals(Math.exp(-4), q.delta(), 1e-15);
  }

  @Test
  void theLargestColumnFitsTheSmallestPage() throws IOException {
    // 64 rows x 8 bytes = 512 bytes: exactly one column per 512-byte page
    SketchParameters p = SketchParameters.ofDimensions(100, 64).withPageSize(512);
    Path path = dir.resolve("narrow.bcms");
    try (BufferedCountMinSketch s = BufferedCountMinSketch.create(path, p, 1 << 16)) {
      assertEquals(1, s.columnsPerPage());
      assertEquals(100, s.pageCount());
      for (long i = 0; i < 300; i++) {
        s.update(i, i % 5);
      }
      for (long i = 0; i < 300; i++) {
        assertTrue(s.estimate(i) >= i % 5);
      }
    }
    try (BufferedCountMinSketch s = BufferedCountMinSketch.open(path, 0)) {
      assertEquals(p, s.parameters());
    }
    // with 32-bit counters, 64 rows fill 256 bytes: two columns per page
    try (BufferedCountMinSketch s = BufferedCountMinSketch.create(dir.resolve("two.bcms"), p.withCounterBits(32), 0)) {
      assertEquals(2, s.columnsPerPage());
      assertEquals(50, s.pageCount());
    }
  }

  /**
   * A buffered sketch indexes at most {@code Integer.MAX_VALUE} pages. Parameters that need more
   * (here 2^31 pages of 512 bytes: a 1 TiB file, created sparse) must be refused before a file is
   * made, so that the path is still free afterwards.
   */
  @Test
  void aBufferedSketchWithTooManyPagesIsRefusedWithoutLeavingAFile() {
    SketchParameters p = SketchParameters.ofDimensions(1L << 37, 1).withPageSize(512); // 64 columns per page
    assertEquals(1L << 31, SketchChecks.pageCount(p));
    Path path = dir.resolve("too-many-pages.bcms");
    try {
      assertThrows(IllegalArgumentException.class, () -> BufferedCountMinSketch.create(path, p, 0).close());
      assertFalse(Files.exists(path), "a failed create left " + path + " behind");
    } finally {
      try {
        Files.deleteIfExists(path);
      } catch (IOException e) {
        throw new AssertionError(e);
      }
    }
  }
}
