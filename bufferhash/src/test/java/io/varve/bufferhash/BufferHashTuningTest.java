package io.varve.bufferhash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BufferHashTuningTest {
  @TempDir Path temp;

  @Test
  void followsThePapersOptimumForTheBuffers() {
    // 32 GiB of log, 30-byte entries: buffers of F / (8 s (ln 2)^2) bytes in all, 115 incarnations
    // per table, rounded to fill two words of filter columns with 3 spare: 124.
    BufferHashTuning tuning = BufferHashTuning.forBudgets(32L << 30, 2L << 30, 28);
    double optimal = (32L << 30) / (8.0 * 30 * Math.log(2) * Math.log(2));
    double buffers = (double) tuning.superTables() * tuning.bufferBytes();
    assertTrue(Math.abs(buffers / optimal - 1) < 0.1, tuning + " against " + optimal);
    assertEquals(128, tuning.filterColumns());
    assertEquals(BufferHashTuning.DEFAULT_BUFFER_BYTES, tuning.bufferBytes());
    assertTrue(tuning.incarnationsPerTable() > 100 && tuning.incarnationsPerTable() < 130, tuning.toString());
    assertTrue(tuning.filterColumns() >= tuning.incarnationsPerTable());
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
}
