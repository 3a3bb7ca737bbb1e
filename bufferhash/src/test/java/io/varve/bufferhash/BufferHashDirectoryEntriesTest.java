package io.varve.bufferhash;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Power losses that take the directory entries created or renamed since the directory was last
 * forced (a file forced on its own does not make its name durable on every file system): the
 * files of a new table, the buffers file a close renames into place, and the write-ahead segments
 * started as the log grows must all be named durably before anything vouches for their content.
 */
class BufferHashDirectoryEntriesTest {
  @TempDir Path temp;

  @Test
  void aPowerLossAfterASyncKeepsANewTable() throws IOException {
    long seed = 0xD1E0_0001L;
    Path dir = temp.resolve("table");
    Path crashed = temp.resolve("crashed");
    Map<ByteBuffer, byte[]> model;
    try (CrashFiles files = CrashFiles.install()) {
      BufferHash table = builder(dir, Durability.BUFFERS_IN_RAM).open();
      model = write(table, new Random(seed), 500, 0);
      table.sync();
      crash(files, dir, crashed);
      table.close();
    }
    checkAll(crashed, Durability.BUFFERS_IN_RAM, model, "seed " + seed + ", a new table synced, then a power loss");
  }

  @Test
  void aPowerLossAfterCloseKeepsTheBuffersFile() throws IOException {
    long seed = 0xD1E0_0002L;
    Path dir = temp.resolve("table");
    Path crashed = temp.resolve("crashed");
    Map<ByteBuffer, byte[]> model;
    try (CrashFiles files = CrashFiles.install()) {
      try (BufferHash table = builder(dir, Durability.BUFFERS_IN_RAM).open()) {
        model = write(table, new Random(seed), 500, 0);
      }
      crash(files, dir, crashed);
    }
    checkAll(crashed, Durability.BUFFERS_IN_RAM, model, "seed " + seed + ", a close, then a power loss");
  }

  @Test
  void aPowerLossKeepsSyncedWritesInEveryWriteAheadSegment() throws IOException {
    long seed = 0xD1E0_0003L;
    Path dir = temp.resolve("table");
    Path crashed = temp.resolve("crashed");
    Map<ByteBuffer, byte[]> model;
    try (CrashFiles files = CrashFiles.install()) {
      BufferHash table = builder(dir, Durability.SYNC_ON_CALL).open();
      model = write(table, new Random(seed), 3_000, 100); // 16 KiB segments: several are started
      table.sync();
      crash(files, dir, crashed);
      table.close();
    }
    checkAll(crashed, Durability.SYNC_ON_CALL, model, "seed " + seed + ", synced writes, then a power loss");
  }

  /** Copies {@code dir} into {@code crashed} as a power loss leaves it: unforced writes and unforced names lost. */
  private static void crash(CrashFiles files, Path dir, Path crashed) throws IOException {
    CrashFiles.copyAsKilled(dir, crashed);
    files.loseUnforced(dir, crashed, "");
    files.loseUnforcedNames(dir, crashed);
  }

  /** Puts {@code count} random entries, syncing every {@code syncEvery} (0: never); returns them. */
  private static Map<ByteBuffer, byte[]> write(BufferHash table, Random random, int count, int syncEvery) {
    Map<ByteBuffer, byte[]> model = new LinkedHashMap<>();
    for (int i = 1; i <= count; i++) {
      byte[] key = new byte[8 + random.nextInt(16)];
      random.nextBytes(key);
      byte[] value = new byte[random.nextInt(16)];
      random.nextBytes(value);
      table.put(key, value);
      model.put(ByteBuffer.wrap(key), value);
      if (syncEvery > 0 && i % syncEvery == 0) {
        table.sync();
      }
    }
    return model;
  }

  private static void checkAll(Path dir, Durability durability, Map<ByteBuffer, byte[]> model, String context) throws IOException {
    try (BufferHash recovered = BufferHashTornFlushTest.open(builder(dir, durability), context)) {
      for (Map.Entry<ByteBuffer, byte[]> entry : model.entrySet()) {
        assertArrayEquals(entry.getValue(), recovered.get(entry.getKey().array()), context + ": a durable write");
      }
    }
  }

  private static BufferHashBuilder builder(Path dir, Durability durability) {
    return BufferHash.builder(dir)
        .logBytes(1 << 20)
        .memoryBytes(256 * 1024)
        .entryBytes(40)
        .bufferBytes(16384)
        .superTables(4)
        .durability(durability)
        .walSegmentBytes(16 * 1024);
  }
}
