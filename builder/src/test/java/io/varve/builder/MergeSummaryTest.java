package io.varve.builder;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.core.testing.MergeModel;
import io.varve.core.testing.TestRecords;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What {@link StoreMerger#merge()} reports, against a plain HashMap model of the same
 * operations: inserted, replaced, deleted, absent deletes and the batch's own duplicates (an
 * operation superseded by a later one on its key), and the merged contents.
 */
class MergeSummaryTest {
  private static final long SEED = 0x3E_46E5L;

  @TempDir Path parent;

  private static byte[] key(int i) {
    return ("key-" + i).getBytes(StandardCharsets.UTF_8);
  }

  @ParameterizedTest(name = "spills={0}")
  @ValueSource(booleans = {false, true})
  void countsMatchAHashMapModel(boolean spills) throws IOException {
    long seed = SEED + (spills ? 1 : 0);
    SplittableRandom random = TestRecords.seeded("MergeSummaryTest.countsMatchAHashMapModel spills=" + spills, seed);
    int baseKeys = 20_000;
    Map<ByteBuffer, byte[]> base = new HashMap<>();
    Path old = parent.resolve("old");
    try (StoreBuilder builder = StoreBuilder.create(old)) {
      for (int i = 0; i < baseKeys; i++) {
        byte[] value = ("old-" + i).getBytes(StandardCharsets.UTF_8);
        base.put(ByteBuffer.wrap(key(i)), value);
        builder.put(key(i), value);
      }
      builder.build();
    }
    // Operations on keys of the old store and on new ones, many repeated within the batch.
    int operations = spills ? 200_000 : 30_000;
    Map<ByteBuffer, byte[]> lastOperation = new HashMap<>(); // null value: a delete
    Set<ByteBuffer> touched = new HashSet<>();
    StoreBuilderTest.Recorder recorder = new StoreBuilderTest.Recorder();
    MergeSummary summary;
    try (StoreMerger merger =
        StoreMerger.create(parent.resolve("new"))
            .memoryBudget(spills ? StoreBuilder.MIN_MEMORY_BUDGET : StoreBuilder.DEFAULT_MEMORY_BUDGET)
            .listener(recorder)
            .base(old)) {
      for (int op = 0; op < operations; op++) {
        byte[] key = key(random.nextInt(2 * baseKeys));
        ByteBuffer k = ByteBuffer.wrap(key);
        touched.add(k);
        if (random.nextInt(4) == 0) {
          merger.delete(key);
          lastOperation.put(k, null);
        } else {
          byte[] value = ("put-" + op).getBytes(StandardCharsets.UTF_8);
          merger.put(key, value);
          lastOperation.put(k, value);
        }
      }
      summary = merger.merge();
    }
    Map<ByteBuffer, byte[]> expected = new HashMap<>(base);
    MergeModel.Counts counts = MergeModel.apply(expected, lastOperation);
    assertEquals(operations, summary.operations());
    assertEquals(operations - touched.size(), summary.batchDuplicates(), "batch duplicates");
    assertTrue(summary.batchDuplicates() > operations / 10, "the test repeats keys: " + summary.batchDuplicates());
    assertEquals(counts.inserted(), summary.inserted(), "inserted");
    assertEquals(counts.replaced(), summary.replaced(), "replaced");
    assertEquals(counts.deleted(), summary.deleted(), "deleted");
    assertEquals(counts.absentDeletes(), summary.absentDeletes(), "absent deletes");
    assertEquals(0, summary.superseded());
    assertEquals(baseKeys, summary.baseRecords());
    assertEquals(expected.size(), summary.meta().recordCount());
    StoreFiles.Contents contents = StoreFiles.read(parent.resolve("new"));
    Map<ByteBuffer, byte[]> got = contents.asMap();
    assertEquals(expected.size(), got.size());
    for (Map.Entry<ByteBuffer, byte[]> e : expected.entrySet()) {
      assertNotNull(got.get(e.getKey()));
      assertArrayEquals(e.getValue(), got.get(e.getKey()));
    }
    StoreBuilderTest.assertProgressInPhaseOrder(recorder);
    StoreFiles.assertNoLeftovers(parent);
  }
}
