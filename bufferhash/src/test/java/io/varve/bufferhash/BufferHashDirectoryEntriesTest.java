package io.varve.bufferhash;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Power losses that take the directory entries created or renamed since the directory was last
 * forced (a file forced on its own does not make its name durable on every file system): the
 * files of a new table, the buffers file a close renames into place, and the write-ahead segments
 * started as the log grows must all be named durably before anything vouches for their content.
 */
class BufferHashDirectoryEntriesTest {
  @TempDir Path temp;

  /** What the table has done when the power goes. */
  enum Before {
    /** A new table, its writes synced into incarnations. */
    A_SYNC_OF_A_NEW_TABLE(Durability.BUFFERS_IN_RAM, 500, 0, false),
    /** Its writes in the buffers file a close renamed into place. */
    A_CLOSE(Durability.BUFFERS_IN_RAM, 500, 0, true),
    /** Writes synced to the write-ahead log as it grows into several 16 KiB segments. */
    SYNCS_ACROSS_SEGMENTS(Durability.SYNC_ON_CALL, 3_000, 100, false);

    final Durability durability;
    final int writes;
    final int syncEvery;
    final boolean close;

    Before(Durability durability, int writes, int syncEvery, boolean close) {
      this.durability = durability;
      this.writes = writes;
      this.syncEvery = syncEvery;
      this.close = close;
    }
  }

  @ParameterizedTest
  @EnumSource(Before.class)
  void aPowerLossKeepsEveryDurableWrite(Before before) throws IOException {
    long seed = 0xD1E0_0000L + before.ordinal();
    String context = "seed " + seed + ", " + before + ", then a power loss";
    Path dir = temp.resolve("table");
    Path crashed = temp.resolve("crashed");
    Map<ByteBuffer, byte[]> model;
    try (CrashFiles files = CrashFiles.install()) {
      BufferHash table = builder(dir, before.durability).open();
      model = RandomWrites.putFresh(table, new Random(seed), before.writes, before.syncEvery);
      if (before.close) {
        table.close();
      } else {
        table.sync();
      }
      crash(files, dir, crashed);
      table.close();
    }
    RandomWrites.checkHolds(builder(crashed, before.durability), model, context);
  }

  /** Copies {@code dir} into {@code crashed} as a power loss leaves it: unforced writes and unforced names lost. */
  private static void crash(CrashFiles files, Path dir, Path crashed) throws IOException {
    CrashFiles.copyAsKilled(dir, crashed);
    files.loseUnforced(dir, crashed, "");
    files.loseUnforcedNames(dir, crashed);
  }

  private static BufferHashBuilder builder(Path dir, Durability durability) {
    return RandomWrites.smallTable(dir, durability, 16384);
  }
}
