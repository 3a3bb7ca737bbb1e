package io.varve.bufferhash;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.varve.core.format.CorruptStoreException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A file of another table put into a table's directory: its log, a write-ahead segment, its
 * buffers file. The two tables have the same seed (the default), the same keys written in the same
 * order, values of the same lengths: their files have the same layout, byte for byte but for the
 * values. The open must refuse the foreign file, or at least never serve the other table's values.
 * Before, nothing told two tables apart: A's directory with B's log opened and served 4,879 of
 * 5,000 keys with B's values; a crashed A with B's write-ahead segments, or A with B's buffers file
 * (written for the state generation after A's, as if A's close had lost its state write), served
 * B's values too. Now every check a table writes is salted with its random id.
 */
class BufferHashTableIdentityTest {
  @TempDir Path temp;

  private static final int KEYS = 5000;
  /** Fixed, so that a failure reproduces; each test adds its own number. */
  private static final long SEED = 0x1DE17A8L;

  /** Puts the same keys into {@code a} and {@code b}, values of the same lengths that differ; records them. */
  private static void writeBoth(BufferHash a, BufferHash b, Random random, Map<ByteBuffer, byte[]> modelA, Map<ByteBuffer, byte[]> modelB) {
    for (int i = 0; i < KEYS; i++) {
      byte[] key = ("identity-key-" + random.nextInt(1 << 30) + "-" + i).getBytes(StandardCharsets.UTF_8);
      int length = 8 + random.nextInt(24);
      byte[] va = new byte[length];
      byte[] vb = new byte[length];
      random.nextBytes(va);
      va[0] = 'A';
      System.arraycopy(va, 1, vb, 1, length - 1);
      vb[0] = 'B';
      a.put(key, va);
      b.put(key, vb);
      modelA.put(ByteBuffer.wrap(key), va);
      modelB.put(ByteBuffer.wrap(key), vb);
    }
  }

  /**
   * Opens {@code dir} (A's files, one or more of B's): refused, the message naming {@code file}; or,
   * if it opens, every key A's or absent (evicted), none with B's value.
   */
  private static void refusedOrOnlyOwnValues(BufferHashBuilder builder, Map<ByteBuffer, byte[]> modelA, Map<ByteBuffer, byte[]> modelB,
      String file, String context) throws Exception {
    try (BufferHash table = builder.open()) {
      int foreign = 0;
      int own = 0;
      for (Map.Entry<ByteBuffer, byte[]> entry : modelA.entrySet()) {
        byte[] value = table.get(entry.getKey().array());
        if (value == null) {
          continue;
        }
        if (Arrays.equals(value, modelB.get(entry.getKey()))) {
          foreign++;
        } else {
          assertArrayEquals(entry.getValue(), value, context + ": neither A's value nor B's");
          own++;
        }
      }
      if (foreign > 0) {
        fail(context + ": opened, and served " + foreign + " of " + modelA.size() + " keys with the other table's values (" + own + " with its own)");
      }
      System.out.println("BufferHashTableIdentityTest " + context + ": opened, " + own + " own values, none of the other table");
    } catch (CorruptStoreException refused) {
      System.out.println("BufferHashTableIdentityTest " + context + ": refused: " + refused.getMessage());
      assertTrue(refused.getMessage().contains(file), context + ": the message names " + file + ": " + refused.getMessage());
    }
  }

  /** Two tables in {@code a} and {@code b} given the same writes, the reference of each, and what a failure message starts with. */
  private record TwoTables(Path a, Path b, Map<ByteBuffer, byte[]> modelA, Map<ByteBuffer, byte[]> modelB, String context) {}

  /** What a test does with both tables still open, once they hold their writes. */
  private interface WhileOpen {
    void run(BufferHash a, BufferHash b) throws Exception;
  }

  private TwoTables twoTables(String what, long seed, Durability durability, WhileOpen whileOpen) throws Exception {
    TwoTables tables = new TwoTables(temp.resolve("a"), temp.resolve("b"), new HashMap<>(), new HashMap<>(), what + ", seed " + seed);
    System.out.println("BufferHashTableIdentityTest " + tables.context());
    try (BufferHash ta = RandomWrites.smallTable(tables.a(), durability, 4096).open();
        BufferHash tb = RandomWrites.smallTable(tables.b(), durability, 4096).open()) {
      writeBoth(ta, tb, new Random(seed), tables.modelA(), tables.modelB());
      whileOpen.run(ta, tb);
    }
    return tables;
  }

  @Test
  void anotherTablesLogIsRefused() throws Exception {
    TwoTables t = twoTables("log", SEED + 1, Durability.BUFFERS_IN_RAM, (a, b) -> {});
    assertEquals(Files.size(t.a().resolve("log")), Files.size(t.b().resolve("log")), t.context() + ": the premise, logs of one layout");
    Files.copy(t.b().resolve("log"), t.a().resolve("log"), StandardCopyOption.REPLACE_EXISTING);
    refusedOrOnlyOwnValues(RandomWrites.smallTable(t.a(), Durability.BUFFERS_IN_RAM, 4096), t.modelA(), t.modelB(), "log", t.context());
  }

  @Test
  void anotherTablesWriteAheadSegmentsAreRefused() throws Exception {
    Path crashedA = temp.resolve("crashed-a");
    Path crashedB = temp.resolve("crashed-b");
    TwoTables t =
        twoTables(
            "write-ahead log",
            SEED + 2,
            Durability.SYNC_ON_CALL,
            (a, b) -> {
              a.sync();
              b.sync();
              CrashFiles.copyAsKilled(temp.resolve("a"), crashedA);
              CrashFiles.copyAsKilled(temp.resolve("b"), crashedB);
            });
    String context = t.context();
    Map<ByteBuffer, byte[]> modelA = t.modelA();
    Map<ByteBuffer, byte[]> modelB = t.modelB();
    int moved = 0;
    for (Path crashed : new Path[] {crashedA, crashedB}) {
      try (Stream<Path> files = Files.list(crashed)) {
        for (Path file : files.toList()) {
          if (file.getFileName().toString().startsWith("wal-")) {
            if (crashed == crashedA) {
              Files.delete(file);
            } else {
              Files.copy(file, crashedA.resolve(file.getFileName()));
              moved++;
            }
          }
        }
      }
    }
    assertTrue(moved > 0, context + ": the premise, write-ahead segments");
    for (boolean dropDamagedTail : new boolean[] {false, true}) {
      Path copy = temp.resolve("mixed-" + dropDamagedTail);
      CrashFiles.copyAsKilled(crashedA, copy);
      refusedOrOnlyOwnValues(RandomWrites.smallTable(copy, Durability.SYNC_ON_CALL, 4096).dropDamagedWriteAheadTail(dropDamagedTail),
          modelA, modelB, "wal-", context + (dropDamagedTail ? ", dropDamagedWriteAheadTail" : ""));
    }
  }

  @Test
  void anotherTablesBuffersFileIsRefused() throws Exception {
    TwoTables t = twoTables("buffers", SEED + 3, Durability.BUFFERS_IN_RAM, (a, b) -> {});
    Path a = t.a();
    // A's close lost its last state write (the one naming its buffers file; its slot damaged), as
    // a crash may leave it: a buffers file written for the generation after the state's is taken
    // in. B's, written for that same generation by the same workload, is put there.
    byte[] state = Files.readAllBytes(a.resolve("state"));
    StateSlot first = StateSlot.decodeOrNull(state, 0);
    StateSlot second = StateSlot.decodeOrNull(state, StateSlot.BYTES);
    int newest = second != null && (first == null || second.generation() > first.generation()) ? StateSlot.BYTES : 0;
    state[newest + 8] ^= 0x40;
    Files.write(a.resolve("state"), state);
    Files.copy(t.b().resolve("buffers"), a.resolve("buffers"), StandardCopyOption.REPLACE_EXISTING);
    refusedOrOnlyOwnValues(RandomWrites.smallTable(a, Durability.BUFFERS_IN_RAM, 4096), t.modelA(), t.modelB(), "buffers", t.context());
  }

  /** Two tables get different ids, never 0, kept across opens; the id given for a new table is the one it keeps. */
  @Test
  void aNewTableGetsARandomIdThatItKeeps() throws Exception {
    Path a = temp.resolve("a");
    Path b = temp.resolve("b");
    Path c = temp.resolve("c");
    RandomWrites.smallTable(a, Durability.BUFFERS_IN_RAM, 4096).open().close();
    RandomWrites.smallTable(b, Durability.BUFFERS_IN_RAM, 4096).open().close();
    RandomWrites.smallTable(c, Durability.BUFFERS_IN_RAM, 4096).tableId(0x1234).open().close();
    long id = TableIds.of(a);
    assertNotEquals(0, id);
    assertNotEquals(id, TableIds.of(b));
    assertEquals(0x1234, TableIds.of(c));
    RandomWrites.smallTable(a, Durability.BUFFERS_IN_RAM, 4096).tableId(99).open().close();
    assertEquals(id, TableIds.of(a), "an existing table keeps its id");
    assertEquals(LogFormat.STATE_VERSION, Files.readAllBytes(a.resolve("state"))[4]);
  }

  /**
   * A table without an id (made as before state version 3) keeps writing state version 2 and
   * unsalted version-1 structures, across opens, crashes and every durability mode: it is never
   * converted, so no crash can leave it half converted.
   */
  @Test
  void anUnsaltedTableStaysUnsaltedAndWorks() throws Exception {
    long seed = SEED + 4;
    System.out.println("BufferHashTableIdentityTest unsalted, seed " + seed);
    Random random = new Random(seed);
    Path dir = temp.resolve("old");
    Map<ByteBuffer, byte[]> model = new HashMap<>();
    try (BufferHash table = RandomWrites.smallTable(dir, Durability.SYNC_ON_CALL, 4096).tableId(0).open()) {
      model.putAll(RandomWrites.putFresh(table, random, 3000, 0));
      table.sync();
      CrashFiles.copyAsKilled(dir, temp.resolve("old-crashed"));
    }
    assertEquals(LogFormat.UNSALTED_STATE_VERSION, Files.readAllBytes(dir.resolve("state"))[4]);
    assertEquals(LogFormat.VERSION, Files.readAllBytes(dir.resolve("buffers"))[4]);
    RandomWrites.checkHolds(RandomWrites.smallTable(dir, Durability.SYNC_ON_CALL, 4096), model, "unsalted, closed, seed " + seed);
    try (Stream<Path> files = Files.list(temp.resolve("old-crashed"))) {
      for (Path file : files.toList()) {
        if (file.getFileName().toString().startsWith("wal-")) {
          assertEquals(LogFormat.VERSION, Files.readAllBytes(file)[4], file.toString());
        }
      }
    }
    RandomWrites.checkHolds(RandomWrites.smallTable(temp.resolve("old-crashed"), Durability.SYNC_ON_CALL, 4096), model, "unsalted, crashed, seed " + seed);
    assertEquals(0, TableIds.of(temp.resolve("old-crashed")));
    assertEquals(LogFormat.UNSALTED_STATE_VERSION, Files.readAllBytes(temp.resolve("old-crashed").resolve("state"))[4]);
    byte[] log = Files.readAllBytes(dir.resolve("log"));
    assertEquals(LogFormat.VERSION, log[4], "the first incarnation's version");
    IncarnationCodec.readHeader(Arrays.copyOf(log, LogFormat.HEADER_BYTES), 0, "page 0"); // unsalted
  }
}
