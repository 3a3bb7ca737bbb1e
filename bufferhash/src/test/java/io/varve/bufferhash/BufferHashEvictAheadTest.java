package io.varve.bufferhash;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Once the log is full, each flush must evict, and the state is forced before evicted pages are
 * overwritten. Evicting a few incarnations ahead of need lets one forced state serve several
 * flushes, while the newest writes stay.
 */
class BufferHashEvictAheadTest {
  @TempDir Path temp;

  @Test
  void aFullLogForcesItsStateForSeveralFlushesAtOnce() throws IOException {
    long seed = 0xE71C_0001L;
    Random random = new Random(seed);
    List<byte[][]> written = new ArrayList<>();
    try (CrashFiles files = CrashFiles.install();
        BufferHash table =
            BufferHash.builder(temp.resolve("table"))
                .logBytes(1 << 20)
                .memoryBytes(256 * 1024)
                .entryBytes(40)
                .bufferBytes(4096)
                .superTables(4)
                .evictionPolicy(EvictionPolicy.fifo())
                .open()) {
      long flushesWhenFull = -1;
      int forcesWhenFull = -1;
      for (int i = 0; i < 60_000; i++) {
        if (flushesWhenFull < 0 && table.stats().evictedIncarnations() > 0) {
          flushesWhenFull = table.stats().flushes();
          forcesWhenFull = files.forces("state");
        }
        byte[] key = ByteBuffer.allocate(12).putInt(i).putLong(random.nextLong()).array();
        byte[] value = new byte[8 + random.nextInt(8)];
        random.nextBytes(value);
        table.put(key, value);
        written.add(new byte[][] {key, value});
      }
      assertTrue(flushesWhenFull >= 0, "seed " + seed + ": the log never filled: " + table.stats());
      long flushes = table.stats().flushes() - flushesWhenFull;
      int forces = files.forces("state") - forcesWhenFull;
      assertTrue(flushes >= 100, "seed " + seed + ": too few flushes on the full log to judge: " + flushes);
      assertTrue(
          forces * 3L <= flushes,
          "seed " + seed + ": " + forces + " forced states for " + flushes + " flushes on a full log (at least 3 flushes per forced state expected)");
      // FIFO keeps the newest: far fewer than a log's worth of the last writes are all still there.
      for (int i = written.size() - 2_000; i < written.size(); i++) {
        assertArrayEquals(written.get(i)[1], table.get(written.get(i)[0]), "seed " + seed + ": write " + i + " of the newest");
      }
    }
  }
}
