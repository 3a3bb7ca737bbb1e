package io.varve.bufferhash;

import static io.varve.bufferhash.BufferHashTornFlushTest.builder;
import static io.varve.bufferhash.BufferHashTornFlushTest.checkAll;
import static io.varve.bufferhash.BufferHashTornFlushTest.closeQuietly;
import static io.varve.bufferhash.BufferHashTornFlushTest.open;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.core.format.CorruptStoreException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A power loss that keeps some of the log's unforced pages and loses others: incarnation N, not
 * yet forced, is lost, while N + 1 after it, not forced either, is kept whole. The reopened table
 * leaves both out and writes its next incarnation where N was; that one ends where the leftover N
 * + 1 begins (one-page incarnations). The leftover holds writes never acknowledged, older than
 * everything acknowledged since the reopen: a later open must not take it in as the next
 * incarnation. Every key must read back its newest acknowledged value ({@link DurableModel}),
 * after a clean close, or after a sync and a kill.
 */
class BufferHashLeftoverIncarnationTest {
  @TempDir Path temp;

  @ParameterizedTest(name = "{0}, then {1}")
  @CsvSource({"BUFFERS_IN_RAM, close", "SYNC_ON_CALL, close", "SYNC_ON_CALL, kill after sync"})
  void aLeftoverIncarnationPastALostOneIsNeverTakenIn(Durability durability, String end) throws IOException {
    long seed = 0x1EF7_0000L + durability.ordinal() * 10 + (end.equals("close") ? 0 : 1);
    String context = "seed " + seed + " (" + durability + ", then " + end + ")";
    CrashWorkload work = new CrashWorkload(seed);
    Path live = temp.resolve("live");
    Path crashed = temp.resolve("crashed");
    long[] lost;
    long[] kept;
    try (CrashFiles files = CrashFiles.install()) {
      BufferHash table = builder(live, durability, "fifo", work.listener).open();
      for (int op = 0; op < 600; op++) {
        put(table, work);
      }
      table.sync();
      work.model.acknowledge();
      long synced = table.stats().flushes();
      for (int op = 0; table.stats().flushes() < synced + 2; op++) {
        assertTrue(op < 10_000, context + ": no two flushes after the sync");
        put(table, work);
      }
      assertEquals(0, table.stats().evictedIncarnations(), context + ": the log wrapped");
      long[][] newest = newestTwo(live.resolve("log"));
      lost = newest[0];
      kept = newest[1];
      assertEquals(lost[0] + lost[2], kept[0], context + ": incarnation " + kept[1] + " does not follow " + lost[1]);
      CrashFiles.copyAsKilled(live, crashed);
      // The power loss: the pages of incarnation N go back to what was forced (never written:
      // zeros), N + 1's stay; the state and the write-ahead log lose every unforced write.
      files.loseUnforcedPages(live, crashed, "log", page -> page >= lost[0] && page < lost[0] + lost[2]);
      files.loseUnforced(live, crashed, "state");
      files.loseUnforced(live, crashed, "wal-");
      closeQuietly(table);
    }
    context += ", incarnation " + lost[1] + " at page " + lost[0] + " lost, " + kept[1] + " at page " + kept[0] + " kept";
    byte[] leftover = header(crashed.resolve("log"), (int) kept[0]);

    Set<ByteBuffer> evictedOnOpen = new HashSet<>();
    work.listener.to((key, value) -> evictedOnOpen.add(ByteBuffer.wrap(key)));
    Path last = crashed;
    try (BufferHash reopened = open(builder(crashed, durability, "fifo", work.listener), context + ", reopen")) {
      work.model.reset(work.checkAll(reopened, work.model, evictedOnOpen, context + ", reopen"));
      work.listener.to(work.model::evicted);
      long flushes = reopened.stats().flushes();
      for (int op = 0; reopened.stats().flushes() < flushes + 1; op++) {
        assertTrue(op < 10_000, context + ": no flush after the reopen");
        put(reopened, work);
      }
      // The test's premise: the new incarnation took the lost one's place and ends at the leftover.
      byte[] written = header(crashed.resolve("log"), (int) lost[0]);
      assertEquals(lost[2], IncarnationCodec.readHeader(written, TableIds.of(crashed), context).pages, context + ": the new incarnation's length");
      assertArrayEquals(leftover, header(crashed.resolve("log"), (int) kept[0]), context + ": the leftover was overwritten");
      if (end.equals("close")) {
        work.model.acknowledge(); // close writes everything
      } else {
        reopened.sync();
        work.model.acknowledge();
        last = temp.resolve("killed");
        CrashFiles.copyAsKilled(crashed, last);
      }
    }
    evictedOnOpen.clear();
    work.listener.to((key, value) -> evictedOnOpen.add(ByteBuffer.wrap(key)));
    try (BufferHash again = open(builder(last, durability, "fifo", work.listener), context + ", second reopen")) {
      work.checkAll(again, work.model, evictedOnOpen, context + ", second reopen");
    }
  }

  /** A put of a short value (one-page incarnations), made to the model first. */
  private static void put(BufferHash table, CrashWorkload work) {
    byte[] key = work.keys.get(work.random.nextInt(work.keys.size()));
    byte[] value = new byte[16];
    work.random.nextBytes(value);
    work.model.write(key, value);
    table.put(key, value);
  }

  private static byte[] header(Path log, int page) throws IOException {
    byte[] bytes = Files.readAllBytes(log);
    return Arrays.copyOfRange(bytes, page * LogFormat.PAGE_BYTES, page * LogFormat.PAGE_BYTES + LogFormat.HEADER_BYTES);
  }

  /** The two incarnations of highest sequence in {@code log}, older first: {page, sequence, pages} each. */
  private static long[][] newestTwo(Path log) throws IOException {
    byte[] bytes = Files.readAllBytes(log);
    long[][] newest = new long[2][];
    for (int page = 0; page < bytes.length / LogFormat.PAGE_BYTES; page++) {
      byte[] header = Arrays.copyOfRange(bytes, page * LogFormat.PAGE_BYTES, page * LogFormat.PAGE_BYTES + LogFormat.HEADER_BYTES);
      IncarnationCodec.Header fields;
      try {
        fields = IncarnationCodec.readHeader(header, TableIds.of(log.getParent()), log + " at page " + page);
      } catch (CorruptStoreException notAHeader) {
        continue;
      }
      long[] found = {page, fields.sequence, fields.pages};
      if (newest[1] == null || found[1] > newest[1][1]) {
        newest[0] = newest[1];
        newest[1] = found;
      } else if (newest[0] == null || found[1] > newest[0][1]) {
        newest[0] = found;
      }
    }
    assertNotNull(newest[0], log + ": fewer than two incarnations");
    return newest;
  }
}
