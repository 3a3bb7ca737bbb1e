package io.varve.bufferhash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.varve.bufferhash.CrashFiles.Fill;
import io.varve.core.format.CorruptStoreException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiPredicate;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A flush whose write to the incarnation log is torn (a prefix of the incarnation reaches the
 * file, then the old bytes, zeros or garbage up to a page boundary, and the write fails), after
 * which the process dies: on the first lap of the log, over the oldest incarnation once the log
 * is circular, at page 0 after a wrap marker, or tearing the wrap marker itself. The copy of the
 * directory the killed process leaves must open; every key reads back its last durable value or
 * a value written since (checked against {@link DurableModel}); then more writes, a second kill
 * and reopen, and a clean close and reopen hold too.
 */
class BufferHashTornFlushTest {
  @TempDir Path temp;

  /** Where the torn write lands. */
  enum Where {
    FIRST_LAP,
    OVER_OLDEST,
    AT_PAGE_ZERO,
    WRAP_MARKER;

    /** Whether a write of the log of {@code length} bytes at {@code position} is the one to tear. */
    BiPredicate<Long, Integer> writes() {
      switch (this) {
        case FIRST_LAP:
          return (position, length) -> length >= LogFormat.PAGE_BYTES;
        case OVER_OLDEST:
          return (position, length) -> length >= LogFormat.PAGE_BYTES && position > 0;
        case AT_PAGE_ZERO:
          return (position, length) -> length >= LogFormat.PAGE_BYTES && position == 0;
        default:
          return (position, length) -> length == LogFormat.HEADER_BYTES;
      }
    }
  }

  static Stream<Arguments> cases() {
    List<Arguments> cases = new ArrayList<>();
    for (Where where : Where.values()) {
      for (Fill fill : Fill.values()) {
        cases.add(Arguments.of(Durability.BUFFERS_IN_RAM, "fifo", where, fill, "nothing"));
        cases.add(Arguments.of(Durability.SYNC_ON_CALL, "fifo", where, fill, "nothing"));
        cases.add(Arguments.of(Durability.SYNC_ON_CALL, "update-based", where, fill, "nothing"));
      }
      cases.add(Arguments.of(Durability.SYNC_EVERY_WRITE, "fifo", where, Fill.GARBAGE, "nothing"));
      cases.add(Arguments.of(Durability.SYNC_EVERY_WRITE, "update-based", where, Fill.GARBAGE, "nothing"));
      if (where != Where.FIRST_LAP) {
        // The torn write reached the device, the state's unforced writes did not (a power loss):
        // the state on the device must not name the incarnation the torn write destroyed.
        cases.add(Arguments.of(Durability.BUFFERS_IN_RAM, "fifo", where, Fill.GARBAGE, "state"));
        cases.add(Arguments.of(Durability.SYNC_ON_CALL, "update-based", where, Fill.GARBAGE, "state"));
      }
    }
    return cases.stream();
  }

  /** The table of these tests: a 256 KiB log that wraps after a few thousand writes, 4 super tables, one-page buffers. */
  static BufferHashBuilder builder(Path dir, Durability durability, String policy, EvictionListener listener) {
    return BufferHash.builder(dir)
        .logBytes(256 * 1024)
        .memoryBytes(256 * 1024)
        .entryBytes(40)
        .bufferBytes(4096)
        .superTables(4)
        .evictionPolicy(policy.equals("fifo") ? EvictionPolicy.fifo() : EvictionPolicy.updateBased())
        .evictionListener(listener)
        .durability(durability)
        .walSegmentBytes(16 * 1024);
  }

  @ParameterizedTest(name = "{0} {1} {2} {3}, unforced writes of {4} lost")
  @MethodSource("cases")
  void aTornFlushIsLeftOutAndNothingDurableIsLost(Durability durability, String policy, Where where, Fill fill, String lost) throws IOException {
    long seed = 0x7041_0000L + durability.ordinal() * 1000 + where.ordinal() * 100 + fill.ordinal() * 10 + (policy.equals("fifo") ? 0 : 1)
        + (lost.equals("nothing") ? 0 : 5);
    String context = "seed " + seed + " (" + durability + ", " + policy + ", " + where + ", " + fill + ", unforced writes of " + lost + " lost)";
    CrashWorkload work = new CrashWorkload(seed);
    Path live = temp.resolve("live");
    Path crashed = temp.resolve("crashed");
    String fired;
    try (CrashFiles files = CrashFiles.install()) {
      BufferHash table = builder(live, durability, policy, work.listener).open();
      long armAt = where == Where.FIRST_LAP ? 300 : -1;
      boolean armed = false;
      for (long op = 0; files.fired() == null; op++) {
        assertTrue(op < 100_000, context + ": the write to tear never came");
        if (armAt < 0 && table.stats().evictedIncarnations() > 0) {
          armAt = op + work.random.nextInt(1_500); // the log is circular now: tear somewhere in the next lap
        }
        if (!armed && op == armAt) {
          table.sync(); // few keys are then written between the last durable state and the crash
          work.model.acknowledge();
          files.tearNextWrite("log", where.writes(), fill, work.random);
          armed = true;
        }
        try {
          work.step(table, durability);
        } catch (UncheckedIOException e) {
          assertNotNull(files.fired(), context + ": a write failed that was not torn: " + e);
        }
      }
      fired = files.fired();
      if (where == Where.FIRST_LAP) {
        assertEquals(0, table.stats().evictedIncarnations(), context + ": the log wrapped before the torn write");
      }
      CrashFiles.copyAsKilled(live, crashed);
      if (!lost.equals("nothing")) {
        files.loseUnforced(live, crashed, lost);
      }
      closeQuietly(table);
    }
    context += ", " + fired;
    // The first reopen: the torn incarnation is left out, every durable write is there.
    Set<ByteBuffer> evictedOnOpen = new HashSet<>();
    work.listener.to((key, value) -> evictedOnOpen.add(ByteBuffer.wrap(key)));
    BufferHash reopened = open(builder(crashed, durability, policy, work.listener), context);
    Map<ByteBuffer, byte[]> recovered = work.checkAll(reopened, work.model, evictedOnOpen, context + ", first reopen");
    // Later writes, a second kill and reopen.
    work.model.reset(recovered);
    work.listener.to(work.model::evicted);
    for (int op = 0; op < 2_000; op++) {
      work.step(reopened, durability);
    }
    Path crashedAgain = temp.resolve("crashed-again");
    CrashFiles.copyAsKilled(crashed, crashedAgain);
    closeQuietly(reopened);
    evictedOnOpen.clear();
    work.listener.to((key, value) -> evictedOnOpen.add(ByteBuffer.wrap(key)));
    try (BufferHash again = open(builder(crashedAgain, durability, policy, work.listener), context + ", second reopen")) {
      recovered = work.checkAll(again, work.model, evictedOnOpen, context + ", second reopen");
      work.model.reset(recovered);
      work.listener.to(work.model::evicted);
      for (int op = 0; op < 500; op++) {
        work.step(again, durability);
      }
      work.model.acknowledge(); // close writes everything
    }
    evictedOnOpen.clear();
    work.listener.to((key, value) -> evictedOnOpen.add(ByteBuffer.wrap(key)));
    try (BufferHash closedCleanly = open(builder(crashedAgain, durability, policy, work.listener), context + ", reopen after close")) {
      work.checkAll(closedCleanly, work.model, evictedOnOpen, context + ", reopen after close");
    }
  }

  /** Opens a crashed table: a failure is the test's, with its seed. */
  static BufferHash open(BufferHashBuilder builder, String context) throws IOException {
    try {
      return builder.open();
    } catch (CorruptStoreException e) {
      throw new AssertionError(context + ": the crashed table does not open: " + e.getMessage(), e);
    }
  }

  /** Checks every key against the model; returns what the table holds. */
  static Map<ByteBuffer, byte[]> checkAll(BufferHash table, List<byte[]> keys, DurableModel model, Set<ByteBuffer> evictedOnOpen, String context) {
    Map<ByteBuffer, byte[]> held = new HashMap<>();
    for (int i = 0; i < keys.size(); i++) {
      byte[] actual = table.get(keys.get(i));
      String wrong = model.check(keys.get(i), actual);
      if (wrong != null && !(actual == null && evictedOnOpen.contains(ByteBuffer.wrap(keys.get(i))))) {
        fail(context + ": key " + i + ": " + wrong);
      }
      if (actual != null) {
        held.put(ByteBuffer.wrap(keys.get(i)), actual);
      }
    }
    return held;
  }

  static void closeQuietly(BufferHash table) {
    try {
      table.close(); // the copy is taken: what close writes now is not part of the crash
    } catch (RuntimeException ignored) {
      // a table that refuses writes may fail to write its buffers
    }
  }

  /** An eviction listener whose target the test changes between a table's lives. */
  static final class SwitchedListener implements EvictionListener {
    private volatile EvictionListener target;

    SwitchedListener(EvictionListener target) {
      this.target = target;
    }

    void to(EvictionListener next) {
      target = next;
    }

    @Override
    public void evicted(byte[] key, byte[] value) {
      target.evicted(key, value);
    }
  }
}
