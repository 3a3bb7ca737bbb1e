package io.varve.bufferhash;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Random mixes of put, delete, get and reopen, checked against a {@link HashMap} after every
 * operation. Eviction is emulated exactly through the {@link EvictionListener}: the model drops an
 * entry when, and only when, BufferHash reports it dropped, and checks that what is reported is
 * the current value. The log is small, so it wraps many times.
 */
class BufferHashModelTest {
  @TempDir Path temp;

  static Stream<Arguments> policies() {
    return Stream.of(
        Arguments.of("fifo", EvictionPolicy.fifo()),
        Arguments.of("lru", EvictionPolicy.lru()),
        Arguments.of("update-based", EvictionPolicy.updateBased()),
        Arguments.of("priority", EvictionPolicy.priority((key, value) -> value.length % 3 != 0)),
        Arguments.of("fifo-with-write-ahead-log", EvictionPolicy.fifo()),
        Arguments.of("update-based-with-write-ahead-log", EvictionPolicy.updateBased()));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("policies")
  void matchesAHashMapWithEvictionEmulated(String name, EvictionPolicy policy) throws IOException {
    long seed = 0xB0FF_0000L + name.hashCode();
    int operations = Integer.getInteger("varve.bufferhash.model.operations", 40_000);
    System.out.println("BufferHashModelTest " + name + ": seed " + seed + ", " + operations + " operations");
    Random random = new Random(seed);
    Map<ByteBuffer, byte[]> model = new HashMap<>();
    long[] reported = {0};
    EvictionListener listener =
        (key, value) -> {
          byte[] current = model.remove(ByteBuffer.wrap(key));
          assertNotNull(current, "evicted a key the model does not hold");
          assertArrayEquals(current, value, "evicted a value that is not the current one");
          reported[0]++;
        };
    Path dir = temp.resolve(name);
    BufferHashBuilder builder =
        BufferHash.builder(dir)
            .logBytes(512 * 1024)
            .memoryBytes(256 * 1024)
            .entryBytes(40)
            .bufferBytes(4096)
            .superTables(8)
            .evictionPolicy(policy)
            .evictionListener(listener)
            .durability(name.endsWith("write-ahead-log") ? Durability.SYNC_ON_CALL : Durability.BUFFERS_IN_RAM)
            .walSegmentBytes(32 * 1024);
    List<byte[]> keys = keyUniverse(random, 2_500);
    BufferHash table = builder.open();
    try {
      assertTrue(table.tuning().superTables() > 1, table.tuning().toString());
      for (int op = 0; op < operations; op++) {
        byte[] key = keys.get(random.nextInt(keys.size()));
        int kind = random.nextInt(100);
        if (kind < 45) {
          byte[] value = value(random);
          table.put(key, value);
          model.put(ByteBuffer.wrap(key), value);
        } else if (kind < 55) {
          table.delete(key);
          model.remove(ByteBuffer.wrap(key));
        } else if (kind < 99) {
          assertArrayEquals(model.get(ByteBuffer.wrap(key)), table.get(key), "get at operation " + op);
        } else if (random.nextInt(20) == 0) {
          table.close();
          table = builder.open();
        } else if (random.nextInt(10) == 0) {
          table.sync();
        }
        if (op % 10_000 == 9_999) {
          assertSameEntries(model, table);
        }
      }
      assertSameEntries(model, table);
      table.close();
      table = builder.open();
      assertSameEntries(model, table);
      BufferHashStats stats = table.stats();
      System.out.println("BufferHashModelTest " + name + ": " + model.size() + " current keys, " + reported[0] + " reported evicted; " + stats);
    } finally {
      table.close();
    }
    assertTrue(reported[0] > 0 || policy.partialDiscard(), "the log never filled: the test proves nothing about eviction");
  }

  private static void assertSameEntries(Map<ByteBuffer, byte[]> model, BufferHash table) {
    Map<ByteBuffer, byte[]> seen = new HashMap<>();
    table.forEach((key, value) -> assertEquals(null, seen.put(ByteBuffer.wrap(key), value), "forEach gave a key twice"));
    assertEquals(model.keySet(), seen.keySet());
    for (Map.Entry<ByteBuffer, byte[]> entry : model.entrySet()) {
      assertArrayEquals(entry.getValue(), seen.get(entry.getKey()));
    }
    // With LRU a get re-inserts, which may evict other keys: the model changes as we go.
    for (ByteBuffer key : new ArrayList<>(model.keySet())) {
      byte[] expected = model.get(key);
      assertArrayEquals(expected, table.get(key.array()));
    }
    assertTrue(table.sizeEstimate() >= model.size());
  }

  /** Keys of 0 to 40 bytes, some non-ASCII, the empty key among them, all distinct. */
  static List<byte[]> keyUniverse(Random random, int count) {
    java.util.Set<ByteBuffer> distinct = new java.util.LinkedHashSet<>();
    distinct.add(ByteBuffer.wrap(new byte[0]));
    while (distinct.size() < count) {
      byte[] key = new byte[1 + random.nextInt(40)];
      random.nextBytes(key);
      distinct.add(ByteBuffer.wrap(key));
    }
    List<byte[]> keys = new ArrayList<>();
    for (ByteBuffer key : distinct) {
      keys.add(key.array());
    }
    return keys;
  }

  /** Mostly small values, some empty, a few larger than a page. */
  static byte[] value(Random random) {
    int kind = random.nextInt(200);
    int length = kind == 0 ? 4096 + random.nextInt(9000) : kind < 10 ? 0 : random.nextInt(40);
    byte[] value = new byte[length];
    random.nextBytes(value);
    return value;
  }
}
