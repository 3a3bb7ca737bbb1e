package io.varve.builder;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.core.index.RankIndex;
import io.varve.core.store.IndexFile;
import io.varve.core.store.RecordChecksum;
import io.varve.core.store.RecordFormat;
import io.varve.core.store.StoreFile;
import io.varve.core.store.StoreFileReader;
import io.varve.core.store.StoreMeta;
import io.varve.core.succinct.EliasFano;
import io.varve.core.testing.TestRecords;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hashes that crowd into one hash-prefix partition (their top 20 bits are forced to zero) make
 * partitions larger than memory: the build must split them by the next bits, repeatedly, and
 * still write every record in hash order.
 */
class PartitionSplitTest {
  @TempDir Path temp;

  @Test
  void crowdedPartitionsAreSplitUntilTheyFit() throws IOException {
    long seed = 0x5B117L;
    SplittableRandom random = TestRecords.seeded("PartitionSplitTest", seed);
    Map<ByteBuffer, byte[]> expected = new HashMap<>();
    Path dir = temp.resolve("store");
    RecordHasher crowded =
        (key, offset, length, result) -> {
          RecordHasher.xxh3(7).hash(key, offset, length, result);
          result[0] >>>= 20;
        };
    BuildSummary summary;
    try (StoreBuilder builder =
        StoreBuilder.create(dir).memoryBudget(StoreBuilder.MIN_MEMORY_BUDGET).seed(7).indexParameters(StoreBuilder.DEFAULT_INDEX)) {
      builder.hashers(s -> s == 7 ? crowded : RecordHasher.xxh3(s));
      for (int i = 0; i < 60_000; i++) {
        byte[] key = new byte[8 + random.nextInt(9)];
        random.nextBytes(key);
        byte[] value = new byte[random.nextInt(30)];
        random.nextBytes(value);
        if (expected.putIfAbsent(ByteBuffer.wrap(key), value) == null) {
          builder.put(key, value);
        }
      }
      summary = builder.build();
    }
    assertTrue(summary.spills() > 1, "spilled " + summary.spills());
    StoreMeta meta = StoreMeta.read(dir.resolve("meta"));
    assertEquals(7, meta.seed());
    assertEquals(expected.size(), meta.recordCount());
    RankIndex index = StoreFileReader.read(dir.resolve("index"), StoreFile.INDEX, (in, length) -> IndexFile.readFrom(in, meta, null));
    byte[] data = Files.readAllBytes(dir.resolve("data"));
    EliasFano offsets =
        StoreFileReader.read(dir.resolve("offsets"), StoreFile.OFFSETS, (in, length) -> EliasFano.readFrom(in, meta.recordCount() + 1));
    int position = 0;
    long[] hash = new long[2];
    long previousHi = 0;
    for (long rank = 0; rank < meta.recordCount(); rank++) {
      int start = StoreFile.DATA.payloadOffset() + (int) offsets.get(rank);
      assertTrue(start >= position, "records in order");
      // A record of at most a page does not cross a page boundary of the file.
      position = start;
      long key = RecordFormat.decodeVarint(data, position, data.length);
      long value = RecordFormat.decodeVarint(data, position + (int) (key >>> 32), data.length);
      int keyStart = position + (int) (key >>> 32) + (int) (value >>> 32);
      byte[] k = java.util.Arrays.copyOfRange(data, keyStart, keyStart + (int) key);
      byte[] v = java.util.Arrays.copyOfRange(data, keyStart + (int) key, keyStart + (int) key + (int) value);
      assertArrayEquals(expected.get(ByteBuffer.wrap(k)), v, "record " + rank);
      crowded.hash(k, 0, k.length, hash);
      assertTrue(rank == 0 || Long.compareUnsigned(previousHi, hash[0]) <= 0, "hash order at " + rank);
      previousHi = hash[0];
      assertEquals(rank, meta.hashRange().rank(index, hash[0], hash[1]), "rank of record " + rank);
      int end = keyStart + (int) key + (int) value + RecordChecksum.BYTES;
      assertTrue(end - start > 4096 || start / 4096 == (end - 1) / 4096, "record " + rank + " crosses a page");
      position = end;
    }
    assertEquals(data.length - StoreFile.FOOTER_LENGTH, position);
  }
}
