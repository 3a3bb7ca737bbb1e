package io.varve.bufferhash;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Crashes while an open recovers a table that was closed with its buffers in the buffers file:
 * here reopened with smaller buffers, so that taking the file back in flushes incarnations, and
 * each flush may write a state, before the last state write stops naming the file. A crash at any
 * force of recovery must leave a directory that opens with every write the close kept.
 */
class BufferHashRecoveryCrashTest {
  private static final int KEYS = 800;

  @TempDir Path temp;

  @ParameterizedTest(name = "{0}, a force of {1} fails")
  @CsvSource({
    "BUFFERS_IN_RAM, state",
    "BUFFERS_IN_RAM, log",
    "SYNC_ON_CALL, state",
    "SYNC_ON_CALL, wal-",
    "SYNC_EVERY_WRITE, state",
    "SYNC_EVERY_WRITE, wal-"
  })
  void aCrashAtAnyForceOfRecoveryKeepsTheClosedTablesWrites(Durability durability, String failing) throws IOException {
    long seed = 0x5EC0_0000L + durability.ordinal();
    Random random = new Random(seed);
    Path closed = temp.resolve("closed");
    Map<ByteBuffer, byte[]> model = writeAndClose(closed, durability, random, seed);
    int forces = forcesOfRecovery(closed, durability, failing);
    assertTrue(forces >= 1, "seed " + seed + ": recovery forces no " + failing);
    for (int passing = 0; passing < forces; passing++) {
      String context = "seed " + seed + " (" + durability + "), force " + (passing + 1) + " of " + forces + " of " + failing + " failed";
      Path live = temp.resolve("live-" + passing);
      Path crashed = temp.resolve("crashed-" + passing);
      CrashFiles.copyAsKilled(closed, live);
      try (CrashFiles files = CrashFiles.install()) {
        files.failForce(failing, passing);
        try (BufferHash reopened = builder(live, durability, 4096).open()) {
          throw new AssertionError(context + ": the failing force never came; " + reopened.stats());
        } catch (UncheckedIOException | IOException expected) {
          assertTrue(files.fired() != null, context + ": " + expected);
        }
        CrashFiles.copyAsKilled(live, crashed);
        files.loseUnforced(live, crashed, "");
      }
      RandomWrites.checkHolds(builder(crashed, durability, 16384), model, context);
    }
  }

  /**
   * A table without a write-ahead log, opened and then killed before anything else: the writes
   * its open took back from the buffers file, or from the write-ahead log of a life that kept
   * one, were durable, and stay so.
   */
  @ParameterizedTest(name = "the last life {0}")
  @CsvSource({"BUFFERS_IN_RAM", "SYNC_ON_CALL"})
  void aKillRightAfterOpenKeepsWhatTheLastLifeMadeDurable(Durability lastLife) throws IOException {
    long seed = 0x0BE0_0000L + lastLife.ordinal();
    String context = "seed " + seed + " (the last life " + lastLife + ", this one BUFFERS_IN_RAM)";
    Random random = new Random(seed);
    Path dir = temp.resolve("table");
    Path killed = temp.resolve("killed");
    Map<ByteBuffer, byte[]> model;
    if (lastLife == Durability.BUFFERS_IN_RAM) {
      model = writeAndClose(dir, lastLife, random, seed);
    } else {
      BufferHash table = builder(dir, lastLife, 16384).open();
      model = RandomWrites.putFresh(table, random, KEYS, 0);
      table.sync();
      CrashFiles.copyAsKilled(dir, killed); // a crash: no buffers file, the writes in the write-ahead log
      table.close();
      dir = killed;
      killed = temp.resolve("killed-again");
    }
    try (CrashFiles files = CrashFiles.install()) {
      BufferHash reopened = builder(dir, Durability.BUFFERS_IN_RAM, 16384).open();
      CrashFiles.copyAsKilled(dir, killed);
      files.loseUnforced(dir, killed, "");
      reopened.close();
    }
    RandomWrites.checkHolds(builder(killed, Durability.BUFFERS_IN_RAM, 16384), model, context);
  }

  /** Writes {@link #KEYS} random entries into a new table with large buffers, and closes it: the buffers file holds them. */
  private static Map<ByteBuffer, byte[]> writeAndClose(Path dir, Durability durability, Random random, long seed) throws IOException {
    Map<ByteBuffer, byte[]> model;
    try (BufferHash table = builder(dir, durability, 16384).open()) {
      model = RandomWrites.putFresh(table, random, KEYS, 0);
      assertTrue(table.stats().flushes() == 0, "seed " + seed + ": the writes should all be in the buffers");
    }
    assertTrue(Files.exists(dir.resolve("buffers")), "seed " + seed + ": close wrote no buffers file");
    return model;
  }

  /** The forces of {@code prefix}... files in a successful recovery of a copy of {@code closed}, with small buffers. */
  private int forcesOfRecovery(Path closed, Durability durability, String prefix) throws IOException {
    Path copy = temp.resolve("counted");
    CrashFiles.copyAsKilled(closed, copy);
    try (CrashFiles files = CrashFiles.install();
        BufferHash reopened = builder(copy, durability, 4096).open()) {
      assertTrue(reopened.stats().flushes() > 0, "recovery with small buffers should flush: " + reopened.stats());
      return files.forces(prefix);
    }
  }

  private static BufferHashBuilder builder(Path dir, Durability durability, int bufferBytes) {
    return RandomWrites.smallTable(dir, durability, bufferBytes);
  }
}
