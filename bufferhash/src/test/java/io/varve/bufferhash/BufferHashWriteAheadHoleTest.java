package io.varve.bufferhash;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.core.format.CorruptStoreException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * A power loss that keeps later pages of the write-ahead log's unsynced writes and loses earlier
 * ones leaves a hole of zeros with records after it. By default the table refuses to open, naming
 * the option; with {@link BufferHashBuilder#dropDamagedWriteAheadTail} it opens without the hole
 * and what follows, every synced write kept.
 */
class BufferHashWriteAheadHoleTest {
  @TempDir Path temp;

  /** Where the hole starts, in bytes after the end of the synced writes (0: at a record's start). */
  @ParameterizedTest(name = "a hole {0} bytes after the synced end")
  @ValueSource(ints = {0, 1_000, 4_096})
  void aHoleAmongUnsyncedWritesIsRefusedOrDroppedWhenAsked(int holeAfterSynced) throws IOException {
    long seed = 0x401E_0000L + holeAfterSynced;
    String context = "seed " + seed + ", a hole " + holeAfterSynced + " bytes after the synced end";
    Random random = new Random(seed);
    Path dir = temp.resolve("table");
    Path crashed = temp.resolve("crashed");
    Map<ByteBuffer, byte[]> synced;
    BufferHash table = builder(dir).open();
    try {
      synced = RandomWrites.putFresh(table, random, 200, 0);
      table.sync();
      Path segment = newestSegment(dir);
      long syncedEnd = Files.size(segment);
      // The next sync writes these past the synced end; a power loss before its force returns may
      // keep any of its pages. The copy is taken after it, and the hole made there: the model
      // counts these writes as never acknowledged.
      RandomWrites.putFresh(table, random, 600, 0);
      table.sync();
      CrashFiles.copyAsKilled(dir, crashed);
      Path copy = crashed.resolve(segment.getFileName());
      long holeStart = syncedEnd + holeAfterSynced;
      assertTrue(Files.size(copy) > holeStart + 2 * 4096, context + ": too few unsynced writes after the hole: " + Files.size(copy));
      try (FileChannel channel = FileChannel.open(copy, StandardOpenOption.WRITE)) {
        channel.write(ByteBuffer.allocate(4096), holeStart);
      }
    } finally {
      table.close();
    }
    CorruptStoreException refused = assertThrows(CorruptStoreException.class, () -> builder(crashed).open().close(), context);
    assertTrue(refused.getMessage().contains("dropDamagedWriteAheadTail"), context + ": " + refused.getMessage());
    RandomWrites.checkHolds(builder(crashed).dropDamagedWriteAheadTail(true), synced, context + ", opened with dropDamagedWriteAheadTail");
    RandomWrites.checkHolds(builder(crashed), synced, context + ", opened again without it"); // the hole is gone
  }

  private static Path newestSegment(Path dir) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files.filter(p -> p.getFileName().toString().startsWith("wal-")).max(Path::compareTo).orElseThrow();
    }
  }

  private static BufferHashBuilder builder(Path dir) {
    return RandomWrites.smallTable(dir, Durability.SYNC_ON_CALL, 16384).walSegmentBytes(1 << 20);
  }
}
