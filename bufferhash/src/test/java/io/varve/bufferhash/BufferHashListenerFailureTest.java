package io.varve.bufferhash;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * An {@link EvictionListener} or a priority policy's predicate that throws (user code: a full
 * queue downstream, a bug) must not leave an eviction half done. Before, the exception left the
 * victim incarnation in place after part of its entries had been reported: the next flush evicted
 * it again and reported them a second time, and the put that happened to make room threw though
 * its write had been applied.
 */
class BufferHashListenerFailureTest {
  @TempDir Path temp;

  /** The warnings the injected failures cause, silenced (a strong reference keeps the level). */
  private final java.util.logging.Logger evictionLog = java.util.logging.Logger.getLogger(LogWriter.class.getName());

  @org.junit.jupiter.api.BeforeEach
  void quiet() {
    evictionLog.setLevel(java.util.logging.Level.OFF);
  }

  @org.junit.jupiter.api.AfterEach
  void loud() {
    evictionLog.setLevel(null);
  }

  private static byte[] key(int i) {
    return ("key-" + i).getBytes(StandardCharsets.UTF_8);
  }

  @ParameterizedTest
  @ValueSource(strings = {"fifo", "priority"})
  void anEvictionIsDoneOnceWhateverTheUserCodeThrows(String policy) throws Exception {
    Map<ByteBuffer, Integer> reported = new HashMap<>();
    AtomicInteger calls = new AtomicInteger();
    EvictionListener listener = (k, v) -> {
      reported.merge(ByteBuffer.wrap(k), 1, Integer::sum);
      if (calls.incrementAndGet() % 5 == 0) {
        throw new IllegalStateException("listener failed (injected)");
      }
    };
    AtomicInteger asked = new AtomicInteger();
    EvictionPolicy evictionPolicy = policy.equals("fifo") ? EvictionPolicy.fifo() : EvictionPolicy.priority((k, v) -> {
      if (asked.incrementAndGet() % 7 == 0) {
        throw new IllegalStateException("policy failed (injected)");
      }
      return k[k.length - 1] == '0';
    });
    int keys = 100_000;
    int failedPuts = 0;
    try (BufferHash table = RandomWrites.smallTable(temp.resolve(policy), Durability.BUFFERS_IN_RAM, 4096)
        .evictionPolicy(evictionPolicy).evictionListener(listener).open()) {
      for (int i = 0; i < keys; i++) {
        try {
          table.put(key(i), ByteBuffer.allocate(4).putInt(i).array());
        } catch (IllegalStateException e) {
          failedPuts++;
        }
      }
      assertTrue(table.stats().evictedIncarnations() > 10, table.stats().toString());
      for (Map.Entry<ByteBuffer, Integer> e : reported.entrySet()) {
        assertEquals(1, e.getValue(), new String(e.getKey().array(), StandardCharsets.UTF_8) + " reported twice");
      }
      for (int i = 0; i < keys; i++) {
        byte[] value = table.get(key(i));
        if (reported.containsKey(ByteBuffer.wrap(key(i)))) {
          assertNull(value, "key " + i + " reported evicted but still there");
        } else if (value != null) {
          assertArrayEquals(ByteBuffer.allocate(4).putInt(i).array(), value, "key " + i);
        }
      }
    }
    assertEquals(0, failedPuts, "puts that threw though applied");
  }
}
