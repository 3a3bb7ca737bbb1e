package io.varve.bcms;

import static io.varve.bcms.SketchChecks.random;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.varve.bcms.SketchChecks.LongModel;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Sketch files past 2 GiB (2.8 GB; a buffered sketch's file is created sparse, a plain one's written
 * whole): counters beyond
 * the 2^31-byte mark are written where the format says and read back after reopening. Skipped on a
 * temp file system with less than 4 GB free, or with {@code -Dvarve.test.large=false}.
 */
class LargeSketchTest {
  private static final long TWO_GIB = 1L << 31;
  private static final SketchParameters PARAMETERS = SketchParameters.ofDimensions(70_000_000, 5).withSeed(31);
  /** Where the body starts: the same for both layouts with 4 KiB pages. */
  private static final long HEADER = SketchFile.headerLength(SketchFile.VERSION, SketchFile.Layout.ROWS, PARAMETERS);

  @TempDir Path dir;

  @BeforeEach
  void enoughDisk() throws IOException {
    assumeFalse("false".equals(System.getProperty("varve.test.large")), "large tests disabled");
    long free = Files.getFileStore(dir).getUsableSpace();
    assumeTrue(free >= 4_000_000_000L, "only " + free + " bytes free in " + dir);
  }

  /** The counter at {@code offset} of the file, read directly. */
  private static long counterAt(FileChannel channel, long offset) throws IOException {
    ByteBuffer b = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
    while (b.hasRemaining()) {
      if (channel.read(b, offset + b.position()) < 0) {
        throw new IOException("end of file at " + offset);
      }
    }
    return b.getLong(0);
  }

  @Test
  void aPlainSketchPastTwoGibibytes() throws IOException {
    Random r = random(40_000);
    long width = PARAMETERS.width();
    Path path = dir.resolve("large.cms");
    LongModel model = new LongModel();
    long[] items = new long[3000];
    for (int i = 0; i < items.length; i++) {
      items[i] = r.nextLong();
    }
    long[] estimates = new long[items.length];
    try (CountMinSketch s = CountMinSketch.create(path, PARAMETERS)) {
      assertEquals(2_800_000_000L, s.sizeBytes());
      for (int i = 0; i < 10_000; i++) {
        long item = items[r.nextInt(items.length)];
        long w = 1 + r.nextInt(100);
        s.update(item, w);
        model.add(item, w);
      }
      for (int i = 0; i < items.length; i++) {
        estimates[i] = s.estimate(items[i]);
      }
      SketchChecks.assertNoUnderestimate(AnySketch.of(s), model);
      SketchChecks.assertMostlyExact(AnySketch.of(s), model, 0.99);
    }
    assertEquals(HEADER + 2_800_000_000L, Files.size(path));

    // rows 3 (from column 58.4M) and 4 lie past 2 GiB: their counters are where the format puts them
    ItemHash hash = new ItemHash(PARAMETERS.seed());
    int pastTwoGib = 0;
    try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
      for (Map.Entry<Long, Long> e : model.exact.entrySet()) {
        long h = hash.ofLong(e.getKey());
        for (int row = 3; row < 5; row++) {
          long offset = HEADER + (row * width + ItemHash.rowColumn(h, row, width)) * 8;
          if (offset - HEADER >= TWO_GIB) {
            pastTwoGib++;
            long counter = counterAt(channel, offset);
            assertTrue(counter >= e.getValue(), "row " + row + " counter " + counter + " of item " + e.getKey()
                + " at byte " + offset + " below its count " + e.getValue());
          }
        }
      }
    }
    assertTrue(pastTwoGib >= model.exact.size(), "every item has its row 4 counter past 2 GiB");

    try (CountMinSketch s = CountMinSketch.openUnverified(path)) {
      assertEquals(PARAMETERS, s.parameters());
      assertEquals(model.total, s.totalWeight());
      for (int i = 0; i < items.length; i++) {
        assertEquals(estimates[i], s.estimate(items[i]));
      }
      s.update(items[0], 5);
      model.add(items[0], 5);
      estimates[0] = s.estimate(items[0]);
    }
    try (CountMinSketch s = CountMinSketch.openUnverified(path)) {
      assertEquals(model.total, s.totalWeight());
      for (int i = 0; i < items.length; i++) {
        assertEquals(estimates[i], s.estimate(items[i]));
      }
    }
    if (SketchChecks.procAvailable()) {
      assertFalse(SketchChecks.isMapped(path));
    }
    Files.delete(path);
  }

  @Test
  void aBufferedSketchPastTwoGibibytes() throws IOException {
    Random r = random(41_000);
    Path path = dir.resolve("large.bcms");
    long pageCount = SketchChecks.pageCount(PARAMETERS);
    int columnsPerPage = 4096 / (5 * 8);
    long firstPageBeyond = TWO_GIB / 4096;
    ItemHash hash = new ItemHash(PARAMETERS.seed());
    // half the items in pages past 2 GiB, the others anywhere; and one in the very last page
    List<Long> chosen = new ArrayList<>();
    boolean lastPage = false;
    while (chosen.size() < 3000 || !lastPage) {
      long item = r.nextLong();
      long page = ItemHash.page(hash.ofLong(item), pageCount);
      if (page == pageCount - 1 && !lastPage) {
        lastPage = true;
        chosen.add(item);
      } else if (chosen.size() < 3000 && (chosen.size() % 2 == 0 || page >= firstPageBeyond)) {
        chosen.add(item);
      }
    }
    long[] items = chosen.stream().mapToLong(Long::longValue).toArray();
    LongModel model = new LongModel();
    long[] estimates = new long[items.length];
    try (BufferedCountMinSketch s = BufferedCountMinSketch.create(path, PARAMETERS, 16 << 20)) {
      assertEquals(pageCount, s.pageCount());
      assertEquals(columnsPerPage, s.columnsPerPage());
      assertTrue(s.sizeBytes() > 2_800_000_000L);
      assertTrue(s.bufferCapacityPerPage() > 0);
      for (int i = 0; i < 10_000; i++) {
        long item = items[i < items.length ? i : r.nextInt(items.length)];
        long w = i % 100 == 0 ? (1L << 32) + r.nextInt(1000) : 1 + r.nextInt(100);
        s.update(item, w);
        model.add(item, w);
      }
      assertTrue(s.pendingUpdates() > 0);
      SketchChecks.assertNoUnderestimate(AnySketch.of(s), model);
      SketchChecks.assertMostlyExact(AnySketch.of(s), model, 0.99);
      for (int i = 0; i < items.length; i++) {
        estimates[i] = s.estimate(items[i]);
      }
    }
    assertEquals(HEADER + pageCount * 4096, Files.size(path));

    // the counters of items in pages past 2 GiB are where the format puts them
    int checked = 0;
    try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
      for (Map.Entry<Long, Long> e : model.exact.entrySet()) {
        long h = hash.ofLong(e.getKey());
        long page = ItemHash.page(h, pageCount);
        if (page < firstPageBeyond) {
          continue;
        }
        int inPage = ItemHash.inPageHash(h);
        for (int row = 0; row < 5; row++) {
          int column = ItemHash.pageColumn(inPage, row, columnsPerPage);
          long offset = HEADER + page * 4096 + (column * 5L + row) * 8;
          assertTrue(offset > TWO_GIB);
          long counter = counterAt(channel, offset);
          assertTrue(counter >= e.getValue(), "row " + row + " counter " + counter + " of item " + e.getKey()
              + " at byte " + offset + " below its count " + e.getValue());
        }
        checked++;
      }
    }
    assertTrue(checked >= 1000, "only " + checked + " items past 2 GiB");

    for (long budget : new long[] {0, 4 << 20}) {
      try (BufferedCountMinSketch s = BufferedCountMinSketch.openUnverified(path, budget)) {
        assertEquals(PARAMETERS, s.parameters());
        assertEquals(model.total, s.totalWeight());
        for (int i = 0; i < items.length; i++) {
          assertEquals(estimates[i], s.estimate(items[i]));
        }
      }
    }
    try (BufferedCountMinSketch s = BufferedCountMinSketch.openUnverified(path, 4 << 20)) {
      for (int i = 0; i < 100; i++) {
        s.update(items[i], 2);
        model.add(items[i], 2);
      }
      SketchChecks.assertNoUnderestimate(AnySketch.of(s), model);
      for (int i = 0; i < items.length; i++) {
        estimates[i] = s.estimate(items[i]);
      }
    }
    try (BufferedCountMinSketch s = BufferedCountMinSketch.openUnverified(path, 0)) {
      for (int i = 0; i < items.length; i++) {
        assertEquals(estimates[i], s.estimate(items[i]));
      }
    }
    Files.delete(path);
  }
}
