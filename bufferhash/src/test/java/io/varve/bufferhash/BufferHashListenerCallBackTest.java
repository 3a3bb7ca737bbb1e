package io.varve.bufferhash;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * An eviction listener or a priority policy's predicate that calls back into the table, which
 * their Javadoc forbids and a hostile or careless client does anyway (re-inserting what was
 * evicted, looking a key up): the call must be refused with {@link IllegalStateException}, and the
 * table must go on working. Before, a put, delete or LRU get from the listener ran a flush inside
 * the evicting one: the table failed with 'incarnation 258 of super table 3 at page 0 (1 pages) is
 * not the oldest incarnation' or 'incarnation 514 written when 518 is next' and refused every
 * later write; a sync recursed until StackOverflowError; a close closed the table under the
 * eviction. And a predicate that changes the arrays it is given must change no entry.
 */
class BufferHashListenerCallBackTest {
  @TempDir Path temp;

  /** The warnings the refused calls cause, silenced (a strong reference keeps the level). */
  private final java.util.logging.Logger evictionLog = java.util.logging.Logger.getLogger(LogWriter.class.getName());

  @BeforeEach
  void quiet() {
    evictionLog.setLevel(java.util.logging.Level.OFF);
  }

  @AfterEach
  void loud() {
    evictionLog.setLevel(null);
  }

  @ParameterizedTest(name = "{0} from the {1}")
  @CsvSource({
    "put, listener", "delete, listener", "get, listener", "sync, listener", "close, listener", "forEach, listener",
    "put, predicate", "get, predicate", "sync, predicate"
  })
  void aCallBackIntoTheTableIsRefusedAndTheTableGoesOn(String call, String from) throws Exception {
    long seed = 0xCA11BAC4L + call.hashCode() + from.hashCode();
    Random random = new Random(seed);
    String context = call + " from the " + from + ", seed " + seed;
    AtomicReference<BufferHash> table = new AtomicReference<>();
    List<Throwable> refusals = new ArrayList<>();
    BiConsumer<byte[], byte[]> callBack = (key, value) -> {
      try {
        BufferHash t = table.get();
        switch (call) {
          case "put" -> t.put(key, value);
          case "delete" -> t.delete(key);
          case "get" -> t.get(key);
          case "sync" -> t.sync();
          case "close" -> t.close();
          case "forEach" -> t.forEach((k, v) -> {});
          default -> throw new IllegalArgumentException(call);
        }
        refusals.add(null);
      } catch (RuntimeException e) {
        refusals.add(e);
      }
    };
    BufferHashBuilder builder = RandomWrites.smallTable(temp.resolve("table"), Durability.BUFFERS_IN_RAM, 4096)
        .logBytes(256 << 10); // about 10,000 entries
    if (from.equals("listener")) {
      // LRU: a get answered from the SSD re-inserts the entry, so a get writes too.
      builder.evictionPolicy(call.equals("get") ? EvictionPolicy.lru() : EvictionPolicy.fifo()).evictionListener(callBack::accept);
    } else {
      builder.evictionPolicy(EvictionPolicy.priority((key, value) -> {
        callBack.accept(key, value);
        return false;
      }));
    }
    Map<ByteBuffer, byte[]> model;
    try (BufferHash opened = builder.open()) {
      table.set(opened);
      model = RandomWrites.putFresh(opened, random, 20_000, 0);
      opened.sync();
      assertTrue(!refusals.isEmpty(), context + ": nothing was evicted");
      int held = 0;
      for (Map.Entry<ByteBuffer, byte[]> entry : model.entrySet()) {
        byte[] value = opened.get(entry.getKey().array());
        if (value != null) {
          assertArrayEquals(entry.getValue(), value, context);
          held++;
        }
      }
      assertTrue(held > 0, context + ": the table holds none of its writes");
    }
    for (Throwable refusal : refusals) {
      assertTrue(refusal instanceof IllegalStateException && refusal.getMessage().contains("must not call back"),
          context + ": a call back into the table gave " + refusal);
    }
    try (BufferHash reopened = builder.open()) {
      int held = 0;
      for (Map.Entry<ByteBuffer, byte[]> entry : model.entrySet()) {
        byte[] value = reopened.get(entry.getKey().array());
        if (value != null) {
          assertArrayEquals(entry.getValue(), value, context + ", reopened");
          held++;
        }
      }
      assertTrue(held > 0, context + ": the reopened table holds none of its writes");
    }
  }

  /**
   * A priority predicate that changes the arrays it is given (masks a key byte, rewrites a value in
   * place) and keeps the entry: the table must keep the entry as it was written. Before, the
   * changed arrays were re-inserted: a changed key was filed under its old hash, every later open
   * refused the table ('log at page 56: an entry of another super table'), and a changed value was
   * served for 2,457 of 20,000 keys.
   */
  @ParameterizedTest(name = "the predicate changes the {0}")
  @CsvSource({"key", "value"})
  void aPredicateThatChangesItsArgumentsChangesNoEntry(String changed) throws Exception {
    long seed = 0xC4A46EDL + changed.hashCode();
    String context = "the predicate changes the " + changed + ", seed " + seed;
    BufferHashBuilder builder = RandomWrites.smallTable(temp.resolve("table"), Durability.SYNC_ON_CALL, 4096)
        .logBytes(256 << 10)
        .evictionPolicy(EvictionPolicy.priority((key, value) -> {
          byte[] target = changed.equals("key") ? key : value;
          if (target.length > 0) {
            target[0] ^= 1;
          }
          return true;
        }));
    Map<ByteBuffer, byte[]> model;
    try (BufferHash table = builder.open()) {
      model = RandomWrites.putFresh(table, new Random(seed), 20_000, 0);
      assertTrue(table.stats().keptEntries() > 0, context + ": nothing was kept");
      checkHeldAsWritten(table, model, context);
    }
    try (BufferHash reopened = builder.open()) {
      checkHeldAsWritten(reopened, model, context + ", reopened");
    }
  }

  /** Every entry the table holds has the value written; some are held. */
  private static void checkHeldAsWritten(BufferHash table, Map<ByteBuffer, byte[]> model, String context) {
    int held = 0;
    for (Map.Entry<ByteBuffer, byte[]> entry : model.entrySet()) {
      byte[] value = table.get(entry.getKey().array());
      if (value != null) {
        assertArrayEquals(entry.getValue(), value, context);
        held++;
      }
    }
    assertTrue(held > 0, context + ": the table holds none of its writes");
  }
}
