package io.varve.bufferhash;

import static io.varve.bufferhash.BufferHashTornFlushTest.builder;
import static io.varve.bufferhash.BufferHashTornFlushTest.checkAll;
import static io.varve.bufferhash.BufferHashTornFlushTest.closeQuietly;
import static io.varve.bufferhash.BufferHashTornFlushTest.open;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Crashes at the seams between the incarnation log, its state and the write-ahead log, once the
 * log is circular: right after a failed {@code fsync} of one of them (whose unforced writes the
 * kernel may then drop, or a power loss may lose with every other file's), and between forcing
 * the incarnations and retiring the write-ahead segments they made redundant (a crash before the
 * segments go, and after). The directory left must open and hold every write a returned sync
 * covered, checked against {@link DurableModel}.
 */
class BufferHashCrashOrderTest {
  @TempDir Path temp;

  /** A sync whose force of {@code failing} fails, then a crash that loses the unforced writes of {@code lost}. */
  @ParameterizedTest(name = "{0} {1}, then {2} lost")
  @CsvSource({
    "BUFFERS_IN_RAM, log, log",
    "BUFFERS_IN_RAM, log, everything",
    "BUFFERS_IN_RAM, state, state",
    "BUFFERS_IN_RAM, state, everything",
    "SYNC_ON_CALL, log, log",
    "SYNC_ON_CALL, log, everything",
    "SYNC_ON_CALL, state, state",
    "SYNC_ON_CALL, state, everything",
    "SYNC_ON_CALL, wal-, wal-",
    "SYNC_ON_CALL, wal-, everything"
  })
  void aCrashAfterAFailedForceKeepsEverySyncedWrite(Durability durability, String failing, String lost) throws IOException {
    long seed = 0xF5_0000L + durability.ordinal() * 100 + failing.hashCode() % 97 + lost.length();
    String context = "seed " + seed + " (" + durability + ", force of " + failing + " failed, unforced writes of " + lost + " lost)";
    CrashWorkload work = new CrashWorkload(seed);
    Path live = temp.resolve("live");
    Path crashed = temp.resolve("crashed");
    try (CrashFiles files = CrashFiles.install()) {
      BufferHash table = builder(live, durability, "fifo", work.listener).open();
      int opsSinceCircular = 0;
      for (int op = 0; files.fired() == null; op++) {
        assertTrue(op < 100_000, context + ": the force to fail never came");
        boolean circular = table.stats().evictedIncarnations() > 0;
        if (circular && ++opsSinceCircular % 500 == 0) {
          // Several flushes, each evicting the oldest incarnation, since the last sync: the state
          // must have moved the tail durably before their pages were overwritten.
          files.failNextForce(failing);
          try {
            table.sync();
            work.model.acknowledge();
          } catch (UncheckedIOException e) {
            assertTrue(files.fired() != null, context + ": " + e);
          }
          files.failNextForce(null);
          continue;
        }
        work.step(table, durability);
      }
      CrashFiles.copyAsKilled(live, crashed);
      files.loseUnforced(live, crashed, lost.equals("everything") ? "" : lost);
      closeQuietly(table);
    }
    reopenAndCheck(crashed, durability, work, work.model, context);
  }

  /**
   * A write of the write-ahead log torn by a crash, the file ending where the prefix does, or in
   * zeros up to a page boundary: the record cut short was never acknowledged, the ones before
   * were. (Garbage after the prefix is not told from damage, which open must report.)
   */
  @ParameterizedTest(name = "{0}")
  @EnumSource(value = CrashFiles.Fill.class, names = {"OLD", "ZEROS"})
  void aTornWriteAheadAppendKeepsEverySyncedWrite(CrashFiles.Fill fill) throws IOException {
    long seed = 0x7A1_0000L + fill.ordinal();
    String context = "seed " + seed + " (a torn write of the write-ahead log, then " + fill + ")";
    CrashWorkload work = new CrashWorkload(seed);
    Path live = temp.resolve("live");
    Path crashed = temp.resolve("crashed");
    try (CrashFiles files = CrashFiles.install()) {
      BufferHash table = builder(live, Durability.SYNC_ON_CALL, "fifo", work.listener).open();
      for (int op = 0; files.fired() == null; op++) {
        assertTrue(op < 100_000, context + ": the write to tear never came");
        if (op == 2_000) {
          files.tearNextWrite("wal-", (position, length) -> length > 100, fill, work.random);
        }
        try {
          work.step(table, Durability.SYNC_ON_CALL);
        } catch (UncheckedIOException e) {
          assertTrue(files.fired() != null, context + ": " + e);
        }
      }
      context += ", " + files.fired();
      CrashFiles.copyAsKilled(live, crashed);
      closeQuietly(table);
    }
    reopenAndCheck(crashed, Durability.SYNC_ON_CALL, work, work.model, context);
  }

  /** A power loss right after creation: the log's length reached the device before the state describing it. */
  @ParameterizedTest(name = "{0}")
  @EnumSource(value = Durability.class, names = {"BUFFERS_IN_RAM", "SYNC_ON_CALL"})
  void aPowerLossRightAfterCreationLeavesATableThatOpens(Durability durability) throws IOException {
    Path live = temp.resolve("live");
    Path crashed = temp.resolve("crashed");
    try (CrashFiles files = CrashFiles.install()) {
      BufferHash table = builder(live, durability, "fifo", (key, value) -> { }).open();
      CrashFiles.copyAsKilled(live, crashed);
      files.loseUnforced(live, crashed, "");
      closeQuietly(table);
    }
    try (BufferHash reopened = open(builder(crashed, durability, "fifo", (key, value) -> { }), durability + ", a power loss after creation")) {
      reopened.put(new byte[] {1}, new byte[] {2});
    }
  }

  /**
   * A crash after a sync that retired write-ahead segments: before they were deleted (with the
   * sync mark's new first segment forced, and before it was), and after.
   */
  @ParameterizedTest(name = "{0}")
  @EnumSource(value = Durability.class, names = {"SYNC_ON_CALL", "SYNC_EVERY_WRITE"})
  void aCrashBeforeOrAfterRetiringSegmentsKeepsEverySyncedWrite(Durability durability) throws IOException {
    long seed = 0x5E6_0000L + durability.ordinal();
    String context = "seed " + seed + " (" + durability + ")";
    CrashWorkload work = new CrashWorkload(seed);
    Path live = temp.resolve("live");
    Path before = temp.resolve("before-retiring");
    Path after = temp.resolve("after-retiring");
    Path beforeTheMark = temp.resolve("before-the-mark");
    Path powerLoss = temp.resolve("power-loss-after-retiring");
    try (CrashFiles files = CrashFiles.install(); BufferHash table = builder(live, durability, "fifo", work.listener).open()) {
      for (int op = 0; ; op++) {
        assertTrue(op < 100_000, context + ": no segment was ever retired");
        Map<Path, byte[]> segments = segments(live);
        byte[] mark = Files.readAllBytes(live.resolve(WalSyncMark.FILE));
        work.step(table, durability);
        Map<Path, byte[]> retired = new HashMap<>(segments);
        retired.keySet().removeAll(segments(live).keySet());
        if (!retired.isEmpty() && table.stats().evictedIncarnations() > 0) {
          CrashFiles.copyAsKilled(live, after);
          CrashFiles.copyAsKilled(live, before);
          for (Map.Entry<Path, byte[]> segment : retired.entrySet()) {
            Files.write(before.resolve(segment.getKey().getFileName()), segment.getValue());
          }
          CrashFiles.copyAsKilled(before, beforeTheMark);
          Files.write(beforeTheMark.resolve(WalSyncMark.FILE), mark);
          CrashFiles.copyAsKilled(live, powerLoss);
          files.loseUnforced(live, powerLoss, ""); // the mark back to its last force: the first segment was forced before the deletes
          long first = BufferHashWriteAheadFirstSegmentTest.mark(after)[3];
          assertEquals(BufferHashWriteAheadFirstSegmentTest.segments(after).get(0).getFileName().toString(), WriteAheadLog.segmentName(first),
              context + ": the mark's first segment is the oldest kept");
          break;
        }
      }
      work.model.acknowledge(); // the step that retired segments synced
    }
    DurableModel copy = work.model.copy();
    DurableModel second = work.model.copy();
    DurableModel third = work.model.copy();
    reopenAndCheck(powerLoss, durability, work, third, context + ", a power loss after the segments went");
    reopenAndCheck(beforeTheMark, durability, work, second, context + ", crashed before the mark's first segment was forced");
    reopenAndCheck(before, durability, work, work.model, context + ", crashed before the segments went");
    reopenAndCheck(after, durability, work, copy, context + ", crashed after the segments went");
  }

  private static Map<Path, byte[]> segments(Path dir) throws IOException {
    Map<Path, byte[]> segments = new HashMap<>();
    try (Stream<Path> files = Files.list(dir)) {
      for (Path file : (Iterable<Path>) files::iterator) {
        if (file.getFileName().toString().startsWith("wal-")) {
          segments.put(file, Files.readAllBytes(file));
        }
      }
    }
    return segments;
  }

  /** Opens the crashed copy, checks it against {@code model}, then writes, closes and reopens it and checks again. */
  private static void reopenAndCheck(Path crashed, Durability durability, CrashWorkload work, DurableModel model, String context)
      throws IOException {
    Set<ByteBuffer> evictedOnOpen = new HashSet<>();
    work.listener.to((key, value) -> evictedOnOpen.add(ByteBuffer.wrap(key)));
    try (BufferHash reopened = open(builder(crashed, durability, "fifo", work.listener), context + ", reopen")) {
      model.reset(work.checkAll(reopened, model, evictedOnOpen, context + ", reopen"));
      work.listener.to(model::evicted);
      for (int op = 0; op < 1_000; op++) {
        RandomWrites.step(reopened, model, work.keys, work.random, durability);
      }
      model.acknowledge();
    }
    evictedOnOpen.clear();
    work.listener.to((key, value) -> evictedOnOpen.add(ByteBuffer.wrap(key)));
    try (BufferHash closedCleanly = open(builder(crashed, durability, "fifo", work.listener), context + ", reopen after close")) {
      work.checkAll(closedCleanly, model, evictedOnOpen, context + ", reopen after close");
    }
  }
}
