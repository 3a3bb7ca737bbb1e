package io.varve.bufferhash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class BufferHashTuningTest {
  @TempDir Path temp;

  @Test
  void followsThePapersOptimumForTheBuffers() {
    // 32 GiB of log, 30-byte entries taking 43.5 bytes buffered (with their cuckoo slots): a table
    // keeps k = 8 s (ln 2)^2 = 167 incarnations, rounded to fill three words of filter columns
    // with 6 spare: 186, so the buffers hold about F / 186 bytes of entries in all.
    BufferHashTuning tuning = BufferHashTuning.forBudgets(32L << 30, 2L << 30, 28);
    double optimal = (32L << 30) / 186.0;
    double buffers = (double) tuning.superTables() * tuning.bufferBytes();
    assertTrue(Math.abs(buffers / optimal - 1) < 0.05, tuning + " against " + optimal);
    assertEquals(192, tuning.filterColumns());
    assertTrue(tuning.bufferBytes() <= BufferHashTuning.DEFAULT_BUFFER_BYTES && tuning.bufferBytes() > 0.95 * BufferHashTuning.DEFAULT_BUFFER_BYTES, tuning.toString());
    assertTrue(tuning.incarnationsPerTable() >= 180 && tuning.incarnationsPerTable() <= 186, tuning.toString());
  }

  /**
   * Regression: super tables were counted by rounding after the incarnations per table had been
   * fitted to whole filter words, so a table could keep 127 incarnations in 192 columns and a third
   * of the filter RAM held nothing (the benchmark's run D: 11.2 bits per key where 16.9 were paid).
   */
  @Test
  void incarnationsFillTheFilterColumnsAtEveryLogSize() {
    for (long records = 1_000_000; records <= 200_000_000; records = records * 11 / 10) {
      long logBytes = (long) (1.2 * records * 30);
      BufferHashTuning tuning = BufferHashTuning.forBudgets(logBytes, 2 * records, 28);
      assertTrue(tuning.incarnationsPerTable() >= 0.9 * tuning.filterColumns(), records + " records: " + tuning);
      assertTrue(tuning.bufferBytes() <= BufferHashTuning.DEFAULT_BUFFER_BYTES, tuning.toString());
    }
  }

  /**
   * Regression: buffers were sized in bytes, not in whole pages of entries, so that a buffer of 4096
   * bytes became an incarnation of two pages, and a log tuned to hold 34,816 entries evicted after
   * about 17,000.
   */
  @ParameterizedTest
  @CsvSource({"1048576, 160000, 28", "4194304, 400000, 28", "8388608, 1000000, 100", "2097152, 400000, 5000"})
  void theLogHoldsTheEntriesItsTuningPromises(long logBytes, long memoryBytes, int entryBytes) throws Exception {
    try (BufferHash table = BufferHash.builder(temp.resolve("t")).logBytes(logBytes).memoryBytes(memoryBytes).entryBytes(entryBytes).open()) {
      long promised = table.tuning().capacityEntries();
      int keyBytes = Math.min(16, entryBytes);
      for (long i = 0; i < promised; i++) {
        table.put(key(i, keyBytes), new byte[entryBytes - keyBytes]);
      }
      assertEquals(0, table.stats().evictedIncarnations(), table.tuning().toString());
      for (long i = 0; i < promised; i++) {
        assertTrue(table.containsKey(key(i, keyBytes)), "entry " + i + " of " + promised + ": " + table.tuning());
      }
    }
  }

  private static byte[] key(long i, int bytes) {
    byte[] key = new byte[bytes];
    for (int b = 0; b < Math.min(8, bytes); b++) {
      key[b] = (byte) ((i * 0x9E3779B97F4A7C15L) >>> (8 * b));
    }
    for (int b = 8; b < bytes; b++) {
      key[b] = (byte) (i >>> (8 * (b - 8)));
    }
    return key;
  }

  @Test
  void entriesOfAboutTwoGigabytesAreRefusedByName() {
    // entryBytes + 2 overflowed: a tuning of "-2147483647-byte buffers" and 16,777,216 entries.
    for (int entryBytes : new int[] {Integer.MAX_VALUE, BufferHashTuning.MAX_ENTRY_BYTES - 1}) {
      IllegalArgumentException refused =
          assertThrows(IllegalArgumentException.class, () -> BufferHashTuning.forBudgets(64L << 30, 1L << 30, entryBytes));
      assertTrue(refused.getMessage().contains("entryBytes must be at most"), refused.getMessage());
    }
    // A key and a value of 1 GiB and 1.5 GiB: their sum overflowed the int sizes of the buffer
    // that holds them; a log of 8 TiB has room for them, an incarnation does not.
    IllegalArgumentException tooLarge =
        assertThrows(IllegalArgumentException.class, () -> BufferHashTuning.checkEntryFits(1 << 30, 3 << 29, false, Integer.MAX_VALUE));
    assertTrue(tooLarge.getMessage().contains("more than an incarnation holds"), tooLarge.getMessage());
    BufferHashTuning.checkEntryFits(1 << 30, (1 << 30) - (1 << 16), false, Integer.MAX_VALUE);
    BufferHashTuning.checkEntryFits(1 << 30, 3 << 29, true, Integer.MAX_VALUE); // a tombstone has no value
    IllegalArgumentException quarter =
        assertThrows(IllegalArgumentException.class, () -> BufferHashTuning.checkEntryFits(16, 4096, false, 4));
    assertTrue(quarter.getMessage().contains("a quarter of the log"), quarter.getMessage());
  }

  @Test
  void moreMemoryMeansFewerWastedReads() {
    double previous = Double.MAX_VALUE;
    for (long memory = 96L << 20; memory <= 1L << 30; memory *= 2) {
      BufferHashTuning tuning = BufferHashTuning.forBudgets(4L << 30, memory, 28);
      assertTrue(tuning.expectedWastedReads() < previous, tuning.toString());
      previous = tuning.expectedWastedReads();
    }
    assertTrue(previous < 0.001, "1 GiB for 4 GiB of log: " + previous);
  }

  @Test
  void memoryForMeetsItsTarget() {
    for (double target : new double[] {0.5, 0.1, 0.01}) {
      long memory = BufferHashTuning.memoryFor(8L << 30, 28, target);
      assertTrue(BufferHashTuning.forBudgets(8L << 30, memory, 28).expectedWastedReads() <= target);
      assertTrue(BufferHashTuning.forBudgets(8L << 30, memory - 64 * 1024, 28).expectedWastedReads() > target * 0.95);
    }
  }

  @Test
  void budgetsThatCannotWorkNameTheKnob() {
    IllegalArgumentException tooLittle = assertThrows(IllegalArgumentException.class, () -> BufferHashTuning.forBudgets(1L << 30, 1 << 20, 28));
    assertTrue(tooLittle.getMessage().contains("raise memoryBytes"), tooLittle.getMessage());
    IllegalArgumentException tinyLog = assertThrows(IllegalArgumentException.class, () -> BufferHashTuning.forBudgets(4096, 1 << 20, 28));
    assertTrue(tinyLog.getMessage().contains("logBytes"), tinyLog.getMessage());
    IllegalArgumentException tables =
        assertThrows(IllegalArgumentException.class, () -> BufferHashTuning.forBudgets(1 << 20, 1 << 20, 28, 65536, 64));
    assertTrue(tables.getMessage().contains("raise logBytes or lower bufferBytes or superTables"), tables.getMessage());
    IllegalArgumentException noLog =
        assertThrows(IllegalArgumentException.class, () -> BufferHash.builder(temp.resolve("new")).memoryBytes(1 << 20).open());
    assertTrue(noLog.getMessage().contains("logBytes must be set"), noLog.getMessage());
  }

  @Test
  void anEntryLargerThanTheLogIsRefusedWithTheKnob() throws Exception {
    try (BufferHash table = BufferHash.builder(temp.resolve("small")).logBytes(64 * 1024).memoryBytes(64 * 1024).bufferBytes(4096).open()) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> table.put(new byte[] {1}, new byte[100_000]));
      assertTrue(e.getMessage().contains("raise logBytes"), e.getMessage());
      table.put(new byte[] {2}, new byte[12_000]);
      assertEquals(12_000, table.get(new byte[] {2}).length);
    }
  }

  /**
   * A log larger than the table can number ({@code 2^31 - 1} pages) is refused, naming the limit,
   * before anything is created: before, the builder cut it to 8 TiB without a word, after the tuning
   * had sized the super tables for the size asked for (16,777,216 of them for Long.MAX_VALUE).
   */
  @Test
  void aLogLargerThanTheTableCanNumberIsRefused() {
    long tooLarge = BufferHashTuning.MAX_LOG_BYTES + LogFormat.PAGE_BYTES;
    for (long logBytes : new long[] {tooLarge, 1L << 50, Long.MAX_VALUE}) {
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> BufferHashTuning.forBudgets(logBytes, Long.MAX_VALUE, 28), "logBytes " + logBytes);
      assertTrue(e.getMessage().contains("logBytes must be at most " + BufferHashTuning.MAX_LOG_BYTES), e.getMessage());
      IllegalArgumentException memory = assertThrows(IllegalArgumentException.class, () -> BufferHashTuning.memoryFor(logBytes, 28, 0.01));
      assertTrue(memory.getMessage().contains("logBytes must be at most"), memory.getMessage());
    }
    Path dir = temp.resolve("huge");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> BufferHash.builder(dir).logBytes(Long.MAX_VALUE).memoryBytes(1L << 30).open());
    assertTrue(e.getMessage().contains("logBytes must be at most"), e.getMessage());
    assertTrue(!java.nio.file.Files.exists(dir.resolve("log")) && !java.nio.file.Files.exists(dir.resolve("state")), "nothing created");
    assertEquals(BufferHashTuning.MAX_LOG_BYTES, BufferHashTuning.forBudgets(BufferHashTuning.MAX_LOG_BYTES, Long.MAX_VALUE, 28).logBytes());
  }

  /**
   * A RAM budget larger than the heap can ever hold is refused before anything is created. Before,
   * a table with twice the heap's maximum as its budget allocated Bloom filters until the heap ran
   * out (OutOfMemoryError after 2.3 s, with a 3 GiB heap), any other thread of the process at risk.
   */
  @Test
  void aMemoryBudgetLargerThanTheHeapIsRefused() {
    Path dir = temp.resolve("too-much-memory");
    long budget = 2 * Runtime.getRuntime().maxMemory();
    IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
        () -> BufferHash.builder(dir).logBytes(64L << 30).memoryBytes(budget).entryBytes(28).open().close());
    assertTrue(refused.getMessage().contains("memoryBytes " + budget + " is more than the heap can hold"), refused.getMessage());
    assertTrue(!java.nio.file.Files.exists(dir), "nothing is created");
  }
}
