package io.varve.builder;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.core.hash.KeyHasher;
import io.varve.core.testing.TestRecords;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Merging of sorted sources: duplicates, "last wins" order, collisions. */
class MergedRecordsTest {
  private static final long SEED = 0x3E26EDL;

  @TempDir Path temp;

  /** A record as put: key, value. */
  record KV(byte[] key, byte[] value) {}

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static KV kv(String key, String value) {
    return new KV(utf8(key), utf8(value));
  }

  /** A sorted in-memory source of the records, hashed with {@code hasher}, in the given input order. */
  private static RecordCursor source(RecordHasher hasher, List<KV> records) {
    RecordBuffer buffer = new RecordBuffer(64L << 20);
    long[] hash = new long[2];
    for (KV r : records) {
      hasher.hash(r.key, 0, r.key.length, hash);
      assertTrue(buffer.add(hash[0], hash[1], r.key, 0, r.key.length, r.value, 0, r.value.length));
    }
    buffer.sort();
    return RecordCursor.of(buffer);
  }

  /** One merged output record. */
  record Out(long hi, long lo, byte[] key, byte[] value) {}

  private static List<Out> drain(MergedRecords merged) throws IOException {
    List<Out> out = new ArrayList<>();
    while (merged.next()) {
      RecordSlice r = merged.record;
      out.add(new Out(merged.hi, merged.lo, r.key(), Arrays.copyOfRange(r.bytes, r.valueOffset(), r.valueOffset() + r.valueLength)));
    }
    assertFalse(merged.next(), "stays at the end");
    return out;
  }

  private static void assertHashOrder(List<Out> out, boolean strict) {
    for (int i = 1; i < out.size(); i++) {
      int c = KeyHasher.compare(out.get(i - 1).hi, out.get(i - 1).lo, out.get(i).hi, out.get(i).lo);
      assertTrue(strict ? c < 0 : c <= 0, "hash order at " + i);
    }
  }

  private static RecordHasher xxh3() {
    return RecordHasher.xxh3(SEED);
  }

  @ParameterizedTest(name = "sources={0}")
  @ValueSource(ints = {1, 2, 3, 7, 20})
  void lastWinsKeepsTheLatestRecord(int sourceCount) throws IOException {
    long seed = SEED + sourceCount;
    SplittableRandom random = TestRecords.seeded("MergedRecordsTest.lastWinsKeepsTheLatestRecord sources=" + sourceCount, seed);
    Map<ByteBuffer, byte[]> expected = new HashMap<>();
    List<RecordCursor> sources = new ArrayList<>();
    int total = 0;
    for (int s = 0; s < sourceCount; s++) {
      List<KV> records = new ArrayList<>();
      int n = random.nextInt(2000);
      for (int i = 0; i < n; i++) {
        // Keys from a small space: repeats within and across sources.
        byte[] key = utf8("k" + random.nextInt(1500));
        byte[] value = utf8("s" + s + "-i" + i + "-" + random.nextInt(1000));
        records.add(new KV(key, value));
        expected.put(ByteBuffer.wrap(key), value); // last put wins
      }
      total += n;
      sources.add(source(xxh3(), records));
    }
    try (MergedRecords merged = new MergedRecords(sources, DuplicatePolicy.LAST_WINS)) {
      List<Out> out = drain(merged);
      assertHashOrder(out, true);
      assertEquals(expected.size(), out.size());
      for (Out o : out) {
        assertArrayEquals(expected.get(ByteBuffer.wrap(o.key)), o.value, "value of " + new String(o.key, StandardCharsets.UTF_8));
      }
      assertEquals(total - expected.size(), merged.duplicatesDropped());
      assertFalse(merged.collisionSeen());
    }
  }

  @Test
  void lastWinsWithinAndAcrossSources() throws IOException {
    RecordCursor a = source(xxh3(), List.of(kv("x", "a1"), kv("y", "a2"), kv("x", "a3"), kv("z", "a4")));
    RecordCursor b = source(xxh3(), List.of(kv("y", "b1"), kv("y", "b2")));
    RecordCursor c = source(xxh3(), List.of());
    RecordCursor d = source(xxh3(), List.of(kv("z", "d1"), kv("w", "d2"), kv("z", "d3")));
    try (MergedRecords merged = new MergedRecords(List.of(a, b, c, d), DuplicatePolicy.LAST_WINS)) {
      Map<String, String> got = new LinkedHashMap<>();
      for (Out o : drain(merged)) {
        assertEquals(null, got.put(new String(o.key, StandardCharsets.UTF_8), new String(o.value, StandardCharsets.UTF_8)));
      }
      assertEquals(Map.of("x", "a3", "y", "b2", "z", "d3", "w", "d2"), got);
      assertEquals(5, merged.duplicatesDropped());
      assertFalse(merged.collisionSeen());
    }
  }

  @Test
  void noSourcesAndEmptySources() throws IOException {
    try (MergedRecords merged = new MergedRecords(List.of(), DuplicatePolicy.FAIL)) {
      assertFalse(merged.next());
    }
    try (MergedRecords merged = new MergedRecords(List.of(source(xxh3(), List.of()), source(xxh3(), List.of())), DuplicatePolicy.FAIL)) {
      assertFalse(merged.next());
      assertEquals(0, merged.duplicatesDropped());
    }
  }

  @Test
  void failThrowsDuplicateKeyExceptionShowingTheKey() throws IOException {
    RecordCursor a = source(xxh3(), List.of(kv("apple", "1"), kv("pear", "2")));
    RecordCursor b = source(xxh3(), List.of(kv("plum", "3"), kv("apple", "4")));
    try (MergedRecords merged = new MergedRecords(List.of(a, b), DuplicatePolicy.FAIL)) {
      DuplicateKeyException e = assertThrows(DuplicateKeyException.class, () -> drain(merged));
      assertTrue(e.getMessage().contains("\"apple\""), e.getMessage());
      assertArrayEquals(utf8("apple"), e.key());
    }
    // Within one source too; a binary key is shown as hex.
    byte[] binary = {0, 1, (byte) 0xFE, (byte) 0xFF};
    RecordCursor c = source(xxh3(), List.of(new KV(binary, utf8("v")), kv("other", "w"), new KV(binary, utf8("z"))));
    try (MergedRecords merged = new MergedRecords(List.of(c), DuplicatePolicy.FAIL)) {
      DuplicateKeyException e = assertThrows(DuplicateKeyException.class, () -> drain(merged));
      assertTrue(e.getMessage().contains("0x0001feff"), e.getMessage());
    }
  }

  @Test
  void failWithoutDuplicatesPassesEverything() throws IOException {
    RecordCursor a = source(xxh3(), List.of(kv("a", "1"), kv("b", "2")));
    RecordCursor b = source(xxh3(), List.of(kv("c", "3"), kv("", "")));
    try (MergedRecords merged = new MergedRecords(List.of(a, b), DuplicatePolicy.FAIL)) {
      List<Out> out = drain(merged);
      assertEquals(4, out.size());
      assertHashOrder(out, true);
    }
  }

  /** A hasher giving every key starting with '#' one fixed hash: distinct keys collide. */
  private static RecordHasher collidingOnHash() {
    RecordHasher real = xxh3();
    return (key, offset, length, result) -> {
      if (length > 0 && key[offset] == '#') {
        result[0] = 0x0123_4567_89AB_CDEFL;
        result[1] = 42;
      } else {
        real.hash(key, offset, length, result);
      }
    };
  }

  @Test
  void collisionSeenWithinASource() throws IOException {
    RecordCursor a = source(collidingOnHash(), List.of(kv("#one", "1"), kv("plain", "p"), kv("#two", "2")));
    try (MergedRecords merged = new MergedRecords(List.of(a), DuplicatePolicy.FAIL)) {
      List<Out> out = drain(merged);
      assertTrue(merged.collisionSeen());
      assertEquals(3, out.size(), "a collision passes every key on");
      assertHashOrder(out, false);
    }
  }

  @Test
  void collisionSeenAcrossSources() throws IOException {
    RecordCursor a = source(collidingOnHash(), List.of(kv("#one", "1"), kv("plain", "p")));
    RecordCursor b = source(collidingOnHash(), List.of(kv("#two", "2")));
    try (MergedRecords merged = new MergedRecords(List.of(a, b), DuplicatePolicy.LAST_WINS)) {
      List<Out> out = drain(merged);
      assertTrue(merged.collisionSeen());
      assertEquals(3, out.size());
    }
  }

  @Test
  void noCollisionForRepeatsOfOneKey() throws IOException {
    RecordCursor a = source(collidingOnHash(), List.of(kv("#one", "1"), kv("#one", "2")));
    RecordCursor b = source(collidingOnHash(), List.of(kv("#one", "3")));
    try (MergedRecords merged = new MergedRecords(List.of(a, b), DuplicatePolicy.LAST_WINS)) {
      List<Out> out = drain(merged);
      assertFalse(merged.collisionSeen(), "the same key repeated is a duplicate, not a collision");
      assertEquals(1, out.size());
      assertArrayEquals(utf8("3"), out.get(0).value);
      assertEquals(2, merged.duplicatesDropped());
    }
  }

  @Test
  void collisionGroupWithDuplicatesKeepsLastValues() throws IOException {
    RecordCursor a = source(collidingOnHash(), List.of(kv("#a", "a1"), kv("#b", "b1"), kv("#a", "a2")));
    RecordCursor b = source(collidingOnHash(), List.of(kv("#c", "c1"), kv("#b", "b2")));
    RecordCursor c = source(collidingOnHash(), List.of(kv("#a", "a3")));
    try (MergedRecords merged = new MergedRecords(List.of(a, b, c), DuplicatePolicy.LAST_WINS)) {
      List<Out> out = drain(merged);
      assertTrue(merged.collisionSeen());
      Map<String, String> got = new LinkedHashMap<>();
      for (Out o : out) {
        got.put(new String(o.key, StandardCharsets.UTF_8), new String(o.value, StandardCharsets.UTF_8));
      }
      assertEquals(List.of("#a", "#b", "#c"), new ArrayList<>(got.keySet()), "group in order of first appearance");
      assertEquals(Map.of("#a", "a3", "#b", "b2", "#c", "c1"), got);
      assertEquals(3, merged.duplicatesDropped());
    }
  }

  @Test
  void collisionGroupUnderFailStillDetectsDuplicates() throws IOException {
    RecordCursor a = source(collidingOnHash(), List.of(kv("#a", "1"), kv("#b", "2")));
    RecordCursor b = source(collidingOnHash(), List.of(kv("#a", "3")));
    try (MergedRecords merged = new MergedRecords(List.of(a, b), DuplicatePolicy.FAIL)) {
      DuplicateKeyException e = assertThrows(DuplicateKeyException.class, () -> drain(merged));
      assertTrue(e.getMessage().contains("\"#a\""), e.getMessage());
    }
  }

  /** Sorted records written to spill files and read back through small buffers merge like memory. */
  @Test
  void spillFilesMergeLikeMemory() throws IOException {
    long seed = SEED + 99;
    SplittableRandom random = TestRecords.seeded("MergedRecordsTest.spillFilesMergeLikeMemory", seed);
    Map<ByteBuffer, byte[]> expected = new HashMap<>();
    List<RecordCursor> sources = new ArrayList<>();
    for (int s = 0; s < 6; s++) {
      List<KV> records = new ArrayList<>();
      int n = 1 + random.nextInt(500);
      for (int i = 0; i < n; i++) {
        byte[] key = utf8("k" + random.nextInt(800));
        // Some values larger than the cursor's and the writer's buffers.
        byte[] value = new byte[random.nextInt(10) == 0 ? 5000 + random.nextInt(70_000) : random.nextInt(40)];
        random.nextBytes(value);
        records.add(new KV(key, value));
        expected.put(ByteBuffer.wrap(key), value);
      }
      RecordCursor memory = source(xxh3(), records);
      if (s % 2 == 0) {
        Path path = temp.resolve("spill-" + s);
        try (SpillFile.Writer writer = new SpillFile.Writer(path, 100)) {
          while (memory.next()) {
            writer.append(memory.hi, memory.lo, memory.record);
          }
          assertEquals(n, writer.records());
        }
        sources.add(SpillFile.read(path, 64, xxh3()));
      } else {
        sources.add(memory);
      }
    }
    try (MergedRecords merged = new MergedRecords(sources, DuplicatePolicy.LAST_WINS)) {
      List<Out> out = drain(merged);
      assertHashOrder(out, true);
      assertEquals(expected.size(), out.size());
      long[] hash = new long[2];
      for (Out o : out) {
        assertArrayEquals(expected.get(ByteBuffer.wrap(o.key)), o.value);
        xxh3().hash(o.key, 0, o.key.length, hash);
        assertEquals(hash[0], o.hi);
        assertEquals(hash[1], o.lo);
      }
    }
  }
}
