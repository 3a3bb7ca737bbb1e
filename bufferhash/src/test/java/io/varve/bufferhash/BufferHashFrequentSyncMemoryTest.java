package io.varve.bufferhash;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A table synced after every few writes, without a write-ahead log, makes an incarnation of each
 * non-empty buffer per sync. Each incarnation holds a column of its super table's Bloom filters,
 * whatever its size, so the filters grew with the log's pages instead of staying within the RAM
 * budget (189 MB against 16 MiB in a hostile run). A super table now keeps at most the
 * incarnations its filters were sized for, evicting the oldest, as the paper's super tables keep
 * {@code k}.
 */
class BufferHashFrequentSyncMemoryTest {
  private static final long SEED = 0x5EED_F5CL;

  @TempDir Path dir;

  @Test
  void syncsAfterEveryFewWritesKeepTheFiltersWithinTheirColumns() throws Exception {
    System.out.println(getClass().getSimpleName() + " seed " + SEED);
    long memoryBytes = 1 << 20;
    Map<String, byte[]> evicted = new HashMap<>();
    BufferHash table =
        BufferHash.builder(dir.resolve("t"))
            .logBytes(16 << 20)
            .memoryBytes(memoryBytes)
            .entryBytes(40)
            .superTables(4)
            .durability(Durability.BUFFERS_IN_RAM)
            .evictionListener((key, value) -> evicted.put(new String(key, StandardCharsets.UTF_8), value))
            .open();
    try {
      BufferHashTuning tuning = table.tuning();
      long planned = table.ramBytesUsed();
      Map<String, byte[]> written = new HashMap<>();
      SplittableRandom random = new SplittableRandom(SEED);
      int syncs = tuning.superTables() * tuning.filterColumns() * 4;
      for (int i = 0; i < syncs; i++) {
        for (int j = 0; j < 3; j++) {
          String key = "key-" + random.nextInt(1 << 20);
          byte[] value = ("value-" + i).getBytes(StandardCharsets.UTF_8);
          table.put(key.getBytes(StandardCharsets.UTF_8), value);
          written.put(key, value);
          evicted.remove(key);
        }
        table.sync();
      }
      long ram = table.ramBytesUsed();
      assertTrue(
          ram <= memoryBytes * 3 / 2,
          "RAM " + ram + " bytes after " + syncs + " syncs, for a budget of " + memoryBytes + " (" + planned + " at the start; "
              + tuning + ")");
      // What is not evicted reads back; what is evicted was reported, never silently lost.
      int present = 0;
      for (Map.Entry<String, byte[]> e : written.entrySet()) {
        byte[] got = table.get(e.getKey().getBytes(StandardCharsets.UTF_8));
        if (got == null) {
          assertTrue(evicted.containsKey(e.getKey()), e.getKey() + " is gone without an eviction");
        } else {
          assertArrayEquals(e.getValue(), got, e.getKey());
          present++;
        }
      }
      assertTrue(present > 0, "nothing left of " + written.size() + " keys");
    } finally {
      table.close();
    }
  }

  @Test
  void aReopenedTableKeepsItsFiltersWithinTheirColumnsToo() throws Exception {
    long memoryBytes = 1 << 20;
    Path tableDir = dir.resolve("r");
    BufferHashBuilder builder =
        BufferHash.builder(tableDir).logBytes(16 << 20).memoryBytes(memoryBytes).entryBytes(40).superTables(4).durability(Durability.BUFFERS_IN_RAM);
    byte[] last;
    try (BufferHash table = builder.open()) {
      int syncs = table.tuning().superTables() * table.tuning().filterColumns() * 3;
      for (int i = 0; i < syncs; i++) {
        table.put(("key-" + i).getBytes(StandardCharsets.UTF_8), ("v" + i).getBytes(StandardCharsets.UTF_8));
        table.sync();
      }
      last = ("key-" + (syncs - 1)).getBytes(StandardCharsets.UTF_8);
    }
    try (BufferHash table = builder.open()) {
      long ram = table.ramBytesUsed();
      assertTrue(ram <= memoryBytes * 3 / 2, "RAM " + ram + " bytes after the reopen, for a budget of " + memoryBytes);
      assertTrue(table.get(last) != null, "the newest key is kept");
      assertNull(table.get("absent".getBytes(StandardCharsets.UTF_8)));
    }
  }
}
