package io.varve.core.cuckoo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.core.hash.KeyHasher;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class CuckooTagTableTest {
  private static final KeyHasher HASHER = KeyHasher.withSeed(11);

  /** Keys by payload: the table's caller, which confirms candidates against the key. */
  private static final class Keyed {
    final CuckooTagTable table;
    final List<String> keys = new ArrayList<>();

    Keyed(CuckooTagTable table) {
      this.table = table;
    }

    static long[] hash(String key) {
      long[] h = new long[2];
      HASHER.hash(key.getBytes(StandardCharsets.UTF_8), h);
      return h;
    }

    int find(String key) {
      long[] h = hash(key);
      for (int slot = table.firstCandidate(h[0], h[1]); slot >= 0; slot = table.nextCandidate(h[0], h[1], slot)) {
        if (keys.get(table.payload(slot)).equals(key)) {
          return slot;
        }
      }
      return -1;
    }

    int falseCandidates(String absent) {
      long[] h = hash(absent);
      int n = 0;
      for (int slot = table.firstCandidate(h[0], h[1]); slot >= 0; slot = table.nextCandidate(h[0], h[1], slot)) {
        n++;
      }
      return n;
    }

    boolean insert(String key) {
      long[] h = hash(key);
      if (!table.insert(h[0], h[1], keys.size())) {
        return false;
      }
      keys.add(key);
      return true;
    }
  }

  @Test
  void fillsPastNinetyPercentAndFindsEveryEntry() {
    Keyed keyed = new Keyed(CuckooTagTable.withBuckets(1 << 12));
    int n = 0;
    while (keyed.insert("key-" + n)) {
      n++;
    }
    assertTrue(keyed.table.isFull());
    assertEquals(n, keyed.table.size());
    assertTrue(keyed.table.occupancy() > 0.9, "occupancy " + keyed.table.occupancy());
    for (int i = 0; i < n; i++) {
      int slot = keyed.find("key-" + i);
      assertTrue(slot >= 0, "key-" + i);
      assertEquals(i, keyed.table.payload(slot));
    }
    assertFalse(keyed.insert("one-more"), "a full table refuses");
    assertEquals(n, keyed.table.size());
  }

  @Test
  void absentKeysRarelyMeetACandidate() {
    Keyed keyed = new Keyed(CuckooTagTable.withBuckets(1 << 12));
    for (int i = 0; keyed.insert("key-" + i); i++) {
      // fill
    }
    int candidates = 0;
    int probes = 200_000;
    for (int i = 0; i < probes; i++) {
      candidates += keyed.falseCandidates("absent-" + i);
    }
    // 8 slots of 15-bit tags, about 95 % full: 8 × 0.95 / 2^15 = 2.3e-4 per probe.
    double rate = (double) candidates / probes;
    assertTrue(rate > 1e-4 && rate < 4e-4, "false candidates per probe " + rate);
  }

  @Test
  void matchesAHashMapThroughInsertsRemovalsAndPayloadChanges() {
    long seed = 0xC0C0;
    System.out.println("CuckooTagTableTest seed " + seed);
    Random random = new Random(seed);
    CuckooTagTable table = CuckooTagTable.withBuckets(64);
    Map<String, Integer> model = new HashMap<>();
    List<String> byPayload = new ArrayList<>();
    for (int op = 0; op < 50_000; op++) {
      String key = "k" + random.nextInt(400);
      long[] h = Keyed.hash(key);
      int slot = -1;
      for (int s = table.firstCandidate(h[0], h[1]); s >= 0; s = table.nextCandidate(h[0], h[1], s)) {
        if (byPayload.get(table.payload(s)).equals(key)) {
          slot = s;
          break;
        }
      }
      assertEquals(model.containsKey(key), slot >= 0, key);
      if (slot >= 0) {
        assertEquals(model.get(key), table.payload(slot));
      }
      int action = random.nextInt(3);
      if (action == 0 && slot >= 0) {
        table.remove(slot);
        model.remove(key);
      } else if (action == 1 && slot >= 0) {
        byPayload.add(key);
        table.setPayload(slot, byPayload.size() - 1);
        model.put(key, byPayload.size() - 1);
      } else if (slot < 0) {
        byPayload.add(key);
        if (table.insert(h[0], h[1], byPayload.size() - 1)) {
          model.put(key, byPayload.size() - 1);
        } else {
          assertTrue(table.isFull());
        }
      }
      assertEquals(model.size(), table.size());
    }
    int[] seen = {0};
    table.forEachEntry(slot -> seen[0]++);
    assertEquals(model.size(), seen[0]);
  }

  @Test
  void aSingleBucketTableStillWorks() {
    Keyed keyed = new Keyed(CuckooTagTable.withBuckets(1));
    int n = 0;
    while (keyed.insert("k" + n)) {
      n++;
    }
    assertEquals(CuckooTagTable.WAYS + 1, n, "four slots and the stash");
    for (int i = 0; i < n; i++) {
      assertTrue(keyed.find("k" + i) >= 0);
    }
  }

  @Test
  void rejectsBadSizesAndEmptySlots() {
    assertThrows(IllegalArgumentException.class, () -> CuckooTagTable.withBuckets(3));
    assertThrows(IllegalArgumentException.class, () -> CuckooTagTable.withBuckets(0));
    assertThrows(IllegalArgumentException.class, () -> CuckooTagTable.forEntries(10, 0.5));
    assertEquals(16, CuckooTagTable.forEntries(10, 1.5).slotCount(), "15 slots wanted: four buckets");
    CuckooTagTable table = CuckooTagTable.withBuckets(2);
    assertThrows(IllegalStateException.class, () -> table.remove(0));
    assertThrows(IllegalStateException.class, () -> table.setPayload(0, 1));
  }

  @Test
  void tagsAreNeverEmpty() {
    assertTrue(CuckooTagTable.tagOf(0) != CuckooTagTable.EMPTY);
    assertTrue(CuckooTagTable.tagOf(-1L) != CuckooTagTable.EMPTY);
  }

  @Test
  void theFilterOfAFullTableHasItsCandidates() {
    Keyed keyed = new Keyed(CuckooTagTable.withBuckets(1 << 8));
    for (int i = 0; keyed.insert("key-" + i); i++) {
      // fill
    }
    CuckooTagFilter filter = keyed.table.filter();
    assertEquals(keyed.table.slotCount(), filter.slotCount());
    assertEquals(1 << 8, filter.bucketCount());
    for (int i = 0; i < 2000; i++) {
      long[] h = Keyed.hash((i % 2 == 0 ? "key-" : "absent-") + i);
      int a = keyed.table.firstCandidate(h[0], h[1]);
      int b = filter.firstCandidate(h[0], h[1]);
      while (a >= 0 || b >= 0) {
        assertEquals(a, b);
        a = keyed.table.nextCandidate(h[0], h[1], a);
        b = filter.nextCandidate(h[0], h[1], b);
      }
    }
    assertThrows(IllegalArgumentException.class, () -> CuckooTagFilter.wrap(new short[12]));
    assertThrows(IllegalArgumentException.class, () -> CuckooTagFilter.wrap(new short[4]));
  }
}
