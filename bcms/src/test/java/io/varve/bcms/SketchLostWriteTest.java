package io.varve.bcms;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.core.format.CorruptStoreException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A plain sketch's counters are written through a memory mapping, and a write there that the file
 * system cannot take (a full disk under a sparse file, seen on an 8 MiB ext4) is dropped, its
 * {@code InternalError} surfacing later, even in the caller's code. Before {@link RowSums}, the
 * close that followed marked the file clean: it opened without complaint and underestimated the
 * items whose writes were lost (22 of 428 in that run). A lost write is simulated here by
 * lowering counters in the file behind the mapping's back.
 */
class SketchLostWriteTest {
  private static final long SEED = 0x1057_C0DEL;
  private static final int ITEMS = 500;

  @TempDir Path dir;

  private static SketchParameters parameters(boolean conservative) {
    return SketchParameters.ofDimensions(4096, 4).withSeed(7).withConservativeUpdate(conservative);
  }

  /** Updates {@code ITEMS} items, flushes, updates them again; returns each item's true count. */
  private static Map<Long, Long> updateTwice(CountMinSketch sketch, SplittableRandom random) {
    Map<Long, Long> counts = new HashMap<>();
    for (int round = 0; round < 2; round++) {
      for (long item = 0; item < ITEMS; item++) {
        long weight = 1 + random.nextInt(3);
        sketch.update(item, weight);
        counts.merge(item, weight, Long::sum);
      }
      if (round == 0) {
        sketch.flush();
      }
    }
    return counts;
  }

  /** Zeroes {@code bytes} bytes of the body from {@code offset}, as lost writes leave them. */
  private static void loseWrites(Path file, long offset, int bytes) throws IOException {
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
      channel.write(ByteBuffer.allocate(bytes), SketchFile.SLOTS_END + offset);
    }
  }

  @ParameterizedTest(name = "conservative={0}")
  @ValueSource(booleans = {false, true})
  void lostCountsLeaveTheFileUncleanInsteadOfUnderestimating(boolean conservative) throws IOException {
    System.out.println("SketchLostWriteTest seed=" + SEED);
    Path file = dir.resolve("lost.cms");
    CountMinSketch sketch = CountMinSketch.create(file, parameters(conservative));
    Map<Long, Long> counts = updateTwice(sketch, new SplittableRandom(SEED));
    // A conservative sketch's counters sum to far more than its weight: only a page's loss shows.
    int lost = conservative ? (int) sketch.sizeBytes() : 4096;
    loseWrites(file, 0, lost);
    UncheckedIOException failed = assertThrows(UncheckedIOException.class, sketch::close);
    assertTrue(failed.getCause().getMessage().contains("counts were lost"), failed.getCause().getMessage());
    CorruptStoreException refused = assertThrows(CorruptStoreException.class, () -> CountMinSketch.open(file));
    assertTrue(refused.getMessage().contains("not closed cleanly"), refused.getMessage());
    try (CountMinSketch recovered = CountMinSketch.openAfterCrash(file)) {
      assertTrue(recovered.totalWeight() < counts.values().stream().mapToLong(Long::longValue).sum(),
          "the weight of the flush before the loss");
    }
  }

  @Test
  void aSketchThatLostNothingClosesCleanly() throws IOException {
    Path file = dir.resolve("whole.cms");
    Map<Long, Long> counts;
    try (CountMinSketch sketch = CountMinSketch.create(file, parameters(false))) {
      counts = updateTwice(sketch, new SplittableRandom(SEED + 1));
    }
    try (CountMinSketch reopened = CountMinSketch.open(file)) {
      for (Map.Entry<Long, Long> e : counts.entrySet()) {
        assertTrue(reopened.estimate(e.getKey()) >= e.getValue(), "item " + e.getKey());
      }
      assertEquals(counts.values().stream().mapToLong(Long::longValue).sum(), reopened.totalWeight());
    }
  }

  /** A saturated counter holds less than the weight added to it: no loss is claimed for its row. */
  @Test
  void saturatedCountersAreNotTakenForLostOnes() throws IOException {
    Path file = dir.resolve("saturated.cms");
    try (CountMinSketch sketch = CountMinSketch.create(file, parameters(false).withCounterBits(32))) {
      sketch.update(1L, (1L << 32) + 5); // 32-bit counters saturate at 2^32 - 1
      sketch.update(2L, 3);
    }
    try (CountMinSketch reopened = CountMinSketch.open(file)) {
      assertEquals((1L << 32) - 1, reopened.estimate(1L));
      assertEquals((1L << 32) + 8, reopened.totalWeight());
    }
  }

  /**
   * The body of a plain sketch is written at creation (it was a hole), so that no counter's write
   * needs a block the disk may not have: {@code stat} counts the blocks the file holds.
   */
  @Test
  void aPlainSketchsBodyIsAllocatedAtCreation() throws Exception {
    Path file = dir.resolve("dense.cms");
    long size;
    try (CountMinSketch sketch = CountMinSketch.create(file, SketchParameters.ofDimensions(1 << 20, 4))) {
      size = SketchFile.SLOTS_END + sketch.sizeBytes();
    }
    Process stat;
    try {
      stat = new ProcessBuilder("stat", "-c", "%b %B", file.toString()).redirectErrorStream(true).start();
    } catch (IOException noStat) {
      org.junit.jupiter.api.Assumptions.abort("no stat command: " + noStat.getMessage());
      return;
    }
    String[] blocks = new String(stat.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).strip().split(" ");
    assertEquals(0, stat.waitFor(), String.join(" ", blocks));
    long allocated = Long.parseLong(blocks[0]) * Long.parseLong(blocks[1]);
    assertTrue(allocated >= size, "allocated " + allocated + " of " + size + " bytes");
  }
}
