package io.varve.silt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SiltTuningTest {
  @TempDir Path temp;

  @Test
  void theModelFollowsThePaper() {
    SiltTuning tuning = new SiltTuning(100_000_000, 1024, 3.5);
    SiltOptions paper = SiltOptions.builder().logStoreEntries(1 << 17).hashStoresPerMerge(31).build();
    // 31 hash stores of 0.95 × 2^17 entries: d = 3.86 M, N / d = 25.9, plus the log and the conversion.
    assertEquals(1 + 1 + 100e6 / (0.95 * (1 << 17) * 31), tuning.writeAmplification(paper), 0.01);
    // Equation (6) with 16.5 stores searched on average: 1 + 16.5 × 8 × 0.95 / 2^15; at the peak, 4
    // log stores and 2 × 31 + 2 hash stores (a merge's, as many queued behind it, and two).
    assertEquals(1 + 16.5 * 8 * 0.95 / 32768, tuning.averageReadAmplification(paper), 1e-9);
    assertEquals(1 + 68 * 8 * 0.95 / 32768, tuning.readAmplification(paper), 1e-9);
    // (4 × 6 + 2.25 × 64) × 2^17 bytes over 10^8 keys, plus 3.5 bits.
    assertEquals((4 * 6 + 2.25 * 64) * (1 << 17) / 1e8 + 3.5 / 8, tuning.memoryBytesPerEntry(paper), 1e-9);
  }

  /**
   * Log stores whose tables, at the peak, the heap cannot hold are refused before anything is
   * created. Before, 2^28 entries (1.5 GiB a table, four at the peak) opened on the tests' 3 GiB heap,
   * its first table allocated, the next ones left to fail with an OutOfMemoryError at a freeze (on
   * a 1 GiB heap the open itself failed so, in CuckooTagTable's constructor).
   */
  @Test
  void logStoresLargerThanTheHeapAreRefused() {
    long heap = Runtime.getRuntime().maxMemory();
    SiltOptions options = SiltOptions.builder().logStoreEntries(1 << 28).build();
    assertEquals(4L * 6 * (1 << 28), SiltTuning.peakLogTableBytes(options));
    assertTrue(SiltTuning.peakLogTableBytes(options) > heap, "a heap of " + heap + " bytes holds even the largest tables (the pom gives -Xmx3g)");
    Path dir = temp.resolve("too-large");
    IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () -> SiltStore.open(dir, options).close());
    assertTrue(refused.getMessage().contains("logStoreEntries 268435456 is more than the heap can hold")
        && refused.getMessage().contains(Long.toString(heap)), refused.getMessage());
    assertTrue(!java.nio.file.Files.exists(dir), "nothing is created");
  }

  /**
   * The tuner weighs thousands of candidate options; it once built each candidate's log table to
   * count its buckets (2^26 slots at the top), so a YCSB client with a 160 MiB heap ran out of it.
   */
  @Test
  void pickingOptionsAllocatesNoTables() {
    com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
    long before = threads.getCurrentThreadAllocatedBytes();
    new SiltTuning(1_000_000, 1103, 2.0).optionsFor(1_000_000, 1.02, SiltOptions.DEFAULTS);
    long allocated = threads.getCurrentThreadAllocatedBytes() - before;
    assertTrue(allocated < 16L << 20, "optionsFor allocated " + allocated + " bytes");
  }

  @Test
  void itPicksTheFewestWritesThatFitTheBudget() {
    SiltTuning tuning = new SiltTuning(100_000_000, 1024, 3.5);
    SiltOptions chosen = tuning.optionsFor(100_000_000L, 1.02, SiltOptions.DEFAULTS);
    assertTrue(tuning.memoryBytesPerEntry(chosen) <= 1.0, "one byte per entry: " + chosen);
    assertTrue(tuning.readAmplification(chosen) <= 1.02);
    SiltOptions roomier = tuning.optionsFor(400_000_000L, 1.02, SiltOptions.DEFAULTS);
    assertTrue(tuning.writeAmplification(roomier) < tuning.writeAmplification(chosen), "more memory, fewer rewrites");
    System.out.printf("10^8 keys of 1 KiB: 1 byte/entry -> %s, WA %.2f, RA %.4f; 4 bytes/entry -> WA %.2f%n", chosen,
        tuning.writeAmplification(chosen), tuning.readAmplification(chosen), tuning.writeAmplification(roomier));
    assertThrows(IllegalArgumentException.class, () -> tuning.optionsFor(40_000_000L, 1.02, SiltOptions.DEFAULTS),
        "the sorted store alone needs 44 MB");
  }

  /** Conversions and merges exactly when the model has them: its write amplification, measured. */
  @Test
  void writeAmplificationAsModelled() throws IOException {
    SiltOptions options = SiltOptions.builder().logStoreEntries(1024).maxLogBytes(8 << 20).hashStoresPerMerge(4)
        .backgroundMerges(false).build();
    Measured measured = updateUniformly(options, (store, stats) -> {
      if (stats.logStores() > 1) {
        store.convertNow();
      }
      if (store.stats().hashStores() >= options.hashStoresPerMerge()) {
        store.mergeNow();
      }
    });
    double model = measured.tuning.writeAmplification(options);
    System.out.printf("driven: write amplification %.3f measured, %.3f modelled%n", measured.writes.writeAmplification(), model);
    assertEquals(model, measured.writes.writeAmplification(), 0.08 * model);
  }

  /**
   * In the background, a merge takes every hash store converted meanwhile: no more writes than the
   * model, and memory within its peak and what lagging conversions may add.
   */
  @Test
  void backgroundWorkStaysWithinTheModel() throws IOException {
    SiltOptions options = SiltOptions.builder().logStoreEntries(1024).maxLogBytes(8 << 20).hashStoresPerMerge(4).build();
    long[] peak = {0};
    int[] calls = {0};
    Measured measured = updateUniformly(options, (store, stats) -> {
      if (calls[0]++ % 256 == 0) {
        peak[0] = Math.max(peak[0], store.stats().memoryBytes());
      }
    });
    double modelWrites = measured.tuning.writeAmplification(options);
    double modelMemory = measured.tuning.memoryBytesPerEntry(options) * measured.keys;
    System.out.printf("background: write amplification %.3f measured, %.3f modelled; peak memory %,d bytes measured, %,.0f modelled%n",
        measured.writes.writeAmplification(), modelWrites, peak[0], modelMemory);
    assertTrue(measured.writes.writeAmplification() < 1.05 * modelWrites && measured.writes.writeAmplification() > 0.4 * modelWrites);
    // The model's peak counts every store that writers let wait: no more, and (in a run this
    // short) at least a fifth of it.
    assertTrue(peak[0] > 0.2 * modelMemory && peak[0] <= modelMemory, peak[0] + " against " + modelMemory);
  }

  private interface AfterPut {
    void after(SiltStore store, SiltStats stats) throws IOException;
  }

  private record Measured(SiltTuning tuning, SiltWriteStats writes, int keys) {}

  /** 20,000 keys merged into the sorted store, then 200,000 updates of random ones (after a reopen, which resets the counts). */
  private Measured updateUniformly(SiltOptions options, AfterPut after) throws IOException {
    long seed = 0x7A11;
    System.out.println("SiltTuningTest seed " + seed);
    Random random = new Random(seed);
    int keys = 20_000;
    Path dir = temp.resolve("store-" + options.backgroundMerges());
    try (SiltStore store = SiltStore.open(dir, options)) {
      for (int k = 0; k < keys; k++) {
        store.put(key(k), value(random));
      }
      store.freezeLog();
      store.mergeNow();
    }
    try (SiltStore store = SiltStore.open(dir, options)) {
      double sortedBits = 8.0 * store.stats().memoryBytes() / keys;
      for (int i = 0; i < 200_000; i++) {
        store.put(key(random.nextInt(keys)), value(random));
        after.after(store, options.backgroundMerges() ? null : store.stats());
      }
      SiltWriteStats writes = store.writeStats();
      assertEquals(200_000, writes.operations());
      return new Measured(new SiltTuning(keys, 120, sortedBits), writes, keys);
    }
  }

  private static byte[] key(int k) {
    return ByteBuffer.allocate(8).putLong(0, k * 0x9E3779B97F4A7C15L).array();
  }

  private static byte[] value(Random random) {
    byte[] v = new byte[100];
    random.nextBytes(v);
    return v;
  }
}
