package io.varve.silt;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * A small closed SILT store with every tier: records merged into the sorted store, two frozen logs
 * and the newest log, each op's tier known, so that a test can say what the store must hold when a
 * log loses its records from some point on. Its sync mark says that the newest log's records were
 * never synced (the store killed before any sync of that log), so that a crash may cut any of them.
 */
final class SiltFixture {
  /** Background merges off: nothing changes the directory but the test. */
  static final SiltOptions OPTIONS = SiltOptions.builder().logStoreEntries(64).maxLogBytes(64 << 10).backgroundMerges(false).build();
  static final int SORTED = 0;
  static final int FROZEN_OLDER = 1;
  static final int FROZEN_NEWER = 2;
  static final int NEWEST = 3;

  /** A put ({@code value} non-null) or a delete, and the tier its record ended in. */
  record Op(byte[] key, byte[] value, int tier) {}

  final Path dir;
  final List<byte[]> keys;
  final List<Op> ops = new ArrayList<>();
  /** The log numbers of tiers 1 to 3 (index 0 unused). */
  final long[] logNumbers = new long[4];

  private SiltFixture(Path dir, List<byte[]> keys) {
    this.dir = dir;
    this.keys = keys;
  }

  /** Writes the store in {@code dir}: {@code perTier} ops in each tier. */
  static SiltFixture build(Path dir, long seed, int perTier) throws IOException {
    Random random = new Random(seed);
    List<byte[]> keys = new ArrayList<>();
    keys.add(new byte[0]);
    byte[] longKey = new byte[200]; // a two-byte key length varint
    random.nextBytes(longKey);
    keys.add(longKey);
    for (int i = 0; keys.size() < 2 * perTier; i++) {
      keys.add(("key-" + i).getBytes(StandardCharsets.UTF_8));
    }
    SiltFixture f = new SiltFixture(dir, keys);
    try (SiltStore store = SiltTestFiles.open(dir, OPTIONS)) {
      for (int i = 0; i < perTier; i++) {
        f.write(store, keys.get(i), value(random), SORTED);
      }
      store.freezeLog();
      store.mergeNow();
      for (int tier = FROZEN_OLDER; tier <= NEWEST; tier++) {
        for (int i = 0; i < perTier - 2; i++) {
          byte[] key = keys.get(random.nextInt(keys.size()));
          f.write(store, key, random.nextInt(4) == 0 ? null : value(random), tier);
        }
        // Each log ends with a delete of a key that holds a value, then a put of a new, non-empty value.
        byte[] present = f.expected(tier, Integer.MAX_VALUE).keySet().iterator().next().array();
        f.write(store, present, null, tier);
        f.write(store, keys.get(random.nextInt(keys.size())), Arrays.copyOf(value(random), 1 + random.nextInt(60)), tier);
        f.logNumbers[tier] = SiltManifest.read(dir).logNumbers().get(tier - 1);
        if (tier < NEWEST) {
          store.freezeLog();
        }
      }
      assertEquals(3, store.stats().logStores());
    }
    SiltTestFiles.markSynced(dir, SiltLog.HEADER_BYTES);
    SiltManifest manifest = SiltManifest.read(dir);
    assertEquals(List.of(f.logNumbers[1], f.logNumbers[2], f.logNumbers[3]), manifest.logNumbers());
    for (int tier = FROZEN_OLDER; tier <= NEWEST; tier++) {
      List<SiltTestFiles.Rec> records = SiltTestFiles.records(Files.readAllBytes(f.logFile(tier)));
      List<Op> written = ops(f, tier);
      assertEquals(written.size(), records.size(), "tier " + tier);
      for (int i = 0; i < records.size(); i++) {
        assertArrayEquals(written.get(i).key, records.get(i).key());
        assertArrayEquals(written.get(i).value, records.get(i).value());
      }
    }
    return f;
  }

  private static List<Op> ops(SiltFixture f, int tier) {
    return f.ops.stream().filter(op -> op.tier == tier).toList();
  }

  private void write(SiltStore store, byte[] key, byte[] value, int tier) throws IOException {
    if (value == null) {
      store.delete(key);
    } else {
      store.put(key, value);
    }
    ops.add(new Op(key, value, tier));
  }

  static byte[] value(Random random) {
    int kind = random.nextInt(10);
    byte[] value = new byte[kind == 0 ? 0 : kind == 1 ? 300 + random.nextInt(200) : 1 + random.nextInt(40)];
    random.nextBytes(value);
    return value;
  }

  Path logFile(int tier) {
    return SiltTestFiles.log(dir, logNumbers[tier]);
  }

  /** Records written to the log of {@code tier}. */
  int records(int tier) {
    return (int) ops.stream().filter(op -> op.tier == tier).count();
  }

  /** What the store holds when the log of {@code tier} keeps only its first {@code kept} records. */
  Map<ByteBuffer, byte[]> expected(int tier, int kept) {
    Map<ByteBuffer, byte[]> model = new HashMap<>();
    int seen = 0;
    for (Op op : ops) {
      if (op.tier == tier && seen++ >= kept) {
        continue;
      }
      if (op.value == null) {
        model.remove(ByteBuffer.wrap(op.key));
      } else {
        model.put(ByteBuffer.wrap(op.key), op.value);
      }
    }
    return model;
  }

  /** Every key of the universe answers as {@code model} says. */
  void check(SiltStore store, Map<ByteBuffer, byte[]> model, String context) {
    for (byte[] key : keys) {
      byte[] expected = model.get(ByteBuffer.wrap(key));
      byte[] found = store.get(key);
      if (expected == null) {
        assertNull(found, context);
      } else {
        assertArrayEquals(expected, found, context);
      }
    }
  }
}
