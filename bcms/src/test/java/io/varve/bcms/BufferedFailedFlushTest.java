package io.varve.bcms;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.core.format.CorruptStoreException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Regression: a buffered sketch whose page flush failed on the page's read (here the file cut under
 * it; an I/O error does the same) left that page's update buffer full, and the next update of the
 * page was written past the buffer's end: into the next page's buffer, over one of its pending
 * updates (an estimate below the truth once the file was whole again), or, for the last page, an
 * {@link ArrayIndexOutOfBoundsException}. Such an update now retries the flush first, and is
 * refused with its error when it fails again.
 */
class BufferedFailedFlushTest {
  private static final long SEED = 0xB0FF_E4L;

  @TempDir Path dir;

  @Test
  void anUpdateAfterAFailedFlushNeverOverwritesAnotherPagesBuffer() throws IOException {
    System.out.println("BufferedFailedFlushTest: seed " + Long.toHexString(SEED));
    SketchParameters parameters = SketchParameters.ofDimensions(1 << 14, 4).withSeed(SEED);
    Path path = dir.resolve("buffered.cms");
    try (BufferedCountMinSketch sketch = BufferedCountMinSketch.create(path, parameters, 2 * 4096 + 128 * 64)) {
      int capacity = sketch.bufferCapacityPerPage();
      long pages = sketch.pageCount();
      assertTrue(capacity > 1 && pages > 8, capacity + " per page, " + pages + " pages");
      int page = (int) pages - 8; // its next page's buffer follows its own
      List<Long> onPage = itemsOn(page, pages, capacity + 1);
      long neighbour = itemsOn(page + 1, pages, 1).get(0);
      sketch.flush();
      byte[] whole = Files.readAllBytes(path);

      sketch.update(neighbour, 1); // pending in the next page's buffer
      try (FileChannel channel = FileChannel.open(path, StandardOpenOption.WRITE)) {
        channel.truncate(SketchFile.headerLength(SketchFile.VERSION, SketchFile.Layout.PAGES, parameters) + 4096L * page); // cuts the page and the ones after it
      }
      for (int i = 0; i < capacity - 1; i++) {
        sketch.update(onPage.get(i), 1);
      }
      // Fills the page's buffer; its flush reads the page, which is past the cut.
      assertThrows(CorruptStoreException.class, () -> sketch.update(onPage.get(capacity - 1), 1));
      // Before: written past the full buffer, over the neighbour's pending update, and returned.
      assertThrows(CorruptStoreException.class, () -> sketch.update(onPage.get(capacity), 1));

      try (FileChannel channel = FileChannel.open(path, StandardOpenOption.WRITE)) {
        channel.write(ByteBuffer.wrap(whole), 0); // whole again
      }
      // At least the truth: before, the neighbour's update was lost (0).
      assertTrue(sketch.estimate(neighbour) >= 1, "the next page's pending update was lost");
      for (int i = 0; i < capacity; i++) {
        assertTrue(sketch.estimate(onPage.get(i)) >= 1, "item " + i + " of the page whose flush failed");
      }
    }
  }

  /** {@code count} distinct items whose counters are on page {@code page}, found from the seed. */
  private static List<Long> itemsOn(int page, long pages, int count) {
    ItemHash hash = new ItemHash(SEED);
    List<Long> items = new ArrayList<>();
    for (long item = 0; items.size() < count; item++) {
      if (ItemHash.page(hash.ofLong(item), pages) == page) {
        items.add(item);
      }
    }
    return items;
  }
}
