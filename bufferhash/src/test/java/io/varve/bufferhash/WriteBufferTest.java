package io.varve.bufferhash;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.core.hash.KeyHasher;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class WriteBufferTest {
  private static final KeyHasher HASHER = KeyHasher.withSeed(7);

  private static long[] hash(byte[] key) {
    long[] h = new long[2];
    HASHER.hash(key, h);
    return h;
  }

  @Test
  void matchesAHashMapUntilFull() {
    long seed = 0xB0F1;
    System.out.println("WriteBufferTest seed " + seed);
    Random random = new Random(seed);
    List<byte[]> keys = BufferHashModelTest.keyUniverse(random, 400);
    WriteBuffer buffer = new WriteBuffer(16 * 1024, 300);
    Map<ByteBuffer, byte[]> model = new HashMap<>();
    Map<ByteBuffer, Boolean> tombstones = new HashMap<>();
    int refused = 0;
    for (int op = 0; op < 20_000; op++) {
      byte[] key = keys.get(random.nextInt(keys.size()));
      long[] h = hash(key);
      int kind = random.nextInt(10);
      if (kind < 5) {
        byte[] value = new byte[random.nextInt(30)];
        random.nextBytes(value);
        boolean tombstone = kind == 0;
        if (buffer.put(key, value, tombstone, h[0], h[1])) {
          model.put(ByteBuffer.wrap(key), tombstone ? null : value);
          tombstones.put(ByteBuffer.wrap(key), tombstone);
        } else {
          refused++;
        }
      } else if (kind < 6) {
        boolean removed = buffer.remove(key, h[0], h[1]);
        assertEquals(tombstones.containsKey(ByteBuffer.wrap(key)), removed);
        model.remove(ByteBuffer.wrap(key));
        tombstones.remove(ByteBuffer.wrap(key));
      } else {
        int at = buffer.find(key, h[0], h[1]);
        assertEquals(tombstones.containsKey(ByteBuffer.wrap(key)), at >= 0);
        if (at >= 0) {
          assertArrayEquals(model.get(ByteBuffer.wrap(key)), WriteBuffer.value(buffer.arena(), at));
        }
      }
    }
    assertTrue(refused > 0, "the buffer never filled");
    assertEquals(tombstones.size(), buffer.entryCount());
    int[] visited = {0};
    int[] bytes = {0};
    buffer.forEachEntry(
        offset -> {
          visited[0]++;
          bytes[0] += WriteBuffer.entrySize(buffer.arena(), offset);
          byte[] key = WriteBuffer.key(buffer.arena(), offset);
          assertTrue(tombstones.containsKey(ByteBuffer.wrap(key)));
          assertEquals(tombstones.get(ByteBuffer.wrap(key)), WriteBuffer.isTombstone(buffer.arena(), offset));
        });
    assertEquals(buffer.entryCount(), visited[0]);
    assertEquals(buffer.liveBytes(), bytes[0]);
  }

  @Test
  void fillsTheTableBeyondItsPlannedEntriesThroughTheStash() {
    WriteBuffer buffer = new WriteBuffer(1 << 20, 64);
    int accepted = 0;
    for (int i = 0; i < 1000; i++) {
      byte[] key = ("key-" + i).getBytes(java.nio.charset.StandardCharsets.UTF_8);
      long[] h = hash(key);
      if (!buffer.put(key, key, false, h[0], h[1])) {
        break;
      }
      accepted++;
    }
    assertTrue(accepted >= 64, "accepted " + accepted);
    for (int i = 0; i < accepted; i++) {
      byte[] key = ("key-" + i).getBytes(java.nio.charset.StandardCharsets.UTF_8);
      long[] h = hash(key);
      int at = buffer.find(key, h[0], h[1]);
      assertTrue(at >= 0, "lost key " + i + " of " + accepted);
      assertArrayEquals(key, WriteBuffer.value(buffer.arena(), at));
    }
    byte[] more = "one more".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    long[] h = hash(more);
    assertFalse(buffer.put(more, more, false, h[0], h[1]), "a full buffer refuses a new key");
  }
}
