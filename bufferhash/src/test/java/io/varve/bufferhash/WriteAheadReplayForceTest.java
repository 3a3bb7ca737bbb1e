package io.varve.bufferhash;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.core.testing.DelegatingChannel;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The end of the newest write-ahead segment a reopen replays may be writes of a killed process
 * that never reached the device; the reopened table serves them, so it forces that segment before
 * its own syncs vouch for what it serves (its syncs force only the segment it writes).
 */
class WriteAheadReplayForceTest {
  @TempDir Path temp;

  @AfterEach
  void restore() {
    Channels.opener = FileChannel::open;
  }

  @Test
  void aReopenForcesTheNewestSegmentItReplays() throws IOException {
    Path live = temp.resolve("live");
    Path crashed = temp.resolve("crashed");
    byte[] key = "replayed".getBytes(StandardCharsets.UTF_8);
    byte[] value = "served after the reopen".getBytes(StandardCharsets.UTF_8);
    BufferHash first = BufferHashKillTest.builder(live, Durability.SYNC_ON_CALL).open();
    first.put(key, value);
    first.sync();
    CrashFiles.copyAsKilled(live, crashed);
    first.close();
    List<String> segments;
    try (Stream<Path> files = Files.list(crashed)) {
      segments = files.map(p -> p.getFileName().toString()).filter(n -> n.startsWith("wal-")).sorted().toList();
    }
    assertTrue(!segments.isEmpty(), "the killed table left no write-ahead segment");
    String newest = segments.get(segments.size() - 1);

    Set<String> forced = ConcurrentHashMap.newKeySet();
    Channels.opener = (file, options) -> new DelegatingChannel(FileChannel.open(file, options)) {
      @Override
      public void force(boolean metaData) throws IOException {
        forced.add(file.getFileName().toString());
        super.force(metaData);
      }
    };
    try (BufferHash reopened = BufferHashKillTest.builder(crashed, Durability.SYNC_ON_CALL).open()) {
      assertArrayEquals(value, reopened.get(key));
      assertTrue(forced.contains(newest), "the replayed segment " + newest + " was not forced; forced: " + forced);
    }
  }
}
