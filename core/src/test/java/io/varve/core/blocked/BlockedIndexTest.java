package io.varve.core.blocked;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.core.ect.DuplicateHashException;
import io.varve.core.ect.SortedHashes;
import io.varve.core.format.CorruptStoreException;
import io.varve.core.index.BatchRanks;
import io.varve.core.index.PrefetchGuesses;
import io.varve.core.testing.TestRecords;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class BlockedIndexTest {
  private static final long SEED = 0xB10C_2026_1123L;

  static Stream<Arguments> sizesAndParameters() {
    return Stream.of(
        Arguments.of(0, 300),
        Arguments.of(1, 300),
        Arguments.of(2, 300),
        Arguments.of(3, 300),
        Arguments.of(100, 300),
        Arguments.of(100, 16),
        Arguments.of(10_000, 300),
        Arguments.of(10_000, 16),
        Arguments.of(10_000, 640),
        Arguments.of(1_000_000, 300),
        Arguments.of(1_000_000, 400));
  }

  @ParameterizedTest(name = "n={0} keysPerBlock={1}")
  @MethodSource("sizesAndParameters")
  void rankIsExactForEveryKeyAndSurvivesSerialization(int n, int keysPerBlock) throws IOException {
    long seed = SEED + n * 31L + keysPerBlock;
    System.out.printf("BlockedIndexTest n=%d keysPerBlock=%d seed=%d%n", n, keysPerBlock, seed);
    SortedHashes hashes = SortedHashes.random(n, seed);
    BlockedIndex index = build(hashes, new BlockedIndexParameters(keysPerBlock));
    assertEquals(hashes.size(), index.size());
    assertRanksExact(hashes, index);
    BlockedIndex copy = roundTrip(index);
    assertRanksExact(hashes, copy);
    assertEquals(index.bitsPerKey(), copy.bitsPerKey());
    assertEquals(index.spilledBlocks(), copy.spilledBlocks());
    assertNonMembersStayInRange(index, new SplittableRandom(seed ^ 1));
  }

  @Test
  void tenMillionKeysAtTheDefaultSettingStayUnderThreeAndAHalfBitsPerKey() {
    SortedHashes hashes = SortedHashes.random(10_000_000, SEED);
    BlockedIndex index = build(hashes, BlockedIndexParameters.DEFAULT);
    assertRanksExact(hashes, index);
    System.out.printf(
        "blocked index, 10^7 keys: %.4f bits/key, %d of %d blocks spilled%n",
        index.bitsPerKey(), index.spilledBlocks(), index.blockCount());
    assertTrue(index.bitsPerKey() <= 3.5, "bits/key " + index.bitsPerKey());
  }

  @Test
  void keysThatShareHighWordsAreResolvedByTheLowWord() throws IOException {
    SortedHashes hashes = SortedHashes.clustered(50_000, 40, SEED);
    BlockedIndex index = build(hashes, BlockedIndexParameters.DEFAULT);
    assertRanksExact(hashes, index);
    assertRanksExact(hashes, roundTrip(index));
    assertTrue(index.spilledBlocks() > 0, "clustered keys overflow some blocks");
  }

  @Test
  void allKeysInOneSubRangeSpillAndStillRankExactly() throws IOException {
    // 2,000 keys sharing their top 40 bits: one sub-range of one block holds them all.
    int n = 2_000;
    long[] hi = new long[n];
    long[] lo = new long[n];
    SplittableRandom random = new SplittableRandom(SEED);
    long[] low = random.longs(n).map(x -> x & 0xFF_FFFFL).distinct().toArray();
    n = low.length;
    Arrays.sort(low);
    for (int i = 0; i < n; i++) {
      hi[i] = 0x1234_5678_9A00_0000L | low[i];
      lo[i] = random.nextLong();
    }
    SortedHashes hashes = new SortedHashes(Arrays.copyOf(hi, n), Arrays.copyOf(lo, n));
    BlockedIndex index = build(hashes, new BlockedIndexParameters(16));
    assertRanksExact(hashes, index);
    assertRanksExact(hashes, roundTrip(index));
    assertEquals(1, index.spilledBlocks());
  }

  /**
   * One block whose first sub-ranges of each half hold dozens of keys: the codes of the later
   * sub-ranges lie more than three words past the start of their half, beyond a lookup's
   * branch-free search window, and are found by the scan that follows it; sub-ranges of 1 to 5 keys
   * follow, so the closed forms for 2 and 3 keys and the tree walk all run there.
   */
  @Test
  void codesFarIntoAHalfAreFoundPastTheSearchWindow() throws IOException {
    // With a single block, the top 8 bits of a hash are its sub-range.
    SplittableRandom random = new SplittableRandom(SEED);
    int[] keysPerSubRange = new int[256];
    for (int j = 0; j < 4; j++) {
      keysPerSubRange[j] = 40;
      keysPerSubRange[128 + j] = 40;
    }
    for (int j = 4; j < 44; j++) {
      keysPerSubRange[j] = 1 + j % 5;
      keysPerSubRange[128 + j] = 1 + (j * 7) % 5;
    }
    java.util.TreeMap<Long, Long> sorted = new java.util.TreeMap<>(Long::compareUnsigned);
    for (int j = 0; j < 256; j++) {
      int added = 0;
      while (added < keysPerSubRange[j]) {
        long hi = (long) j << 56 | (random.nextLong() >>> 8);
        if (sorted.putIfAbsent(hi, random.nextLong()) == null) {
          added++;
        }
      }
    }
    long[] hi = sorted.keySet().stream().mapToLong(Long::longValue).toArray();
    long[] lo = sorted.values().stream().mapToLong(Long::longValue).toArray();
    SortedHashes hashes = new SortedHashes(hi, lo);
    BlockedIndex index = build(hashes, new BlockedIndexParameters(640));
    assertEquals(1, index.blockCount());
    assertRanksExact(hashes, index);
    assertRanksExact(hashes, roundTrip(index));
    assertNonMembersStayInRange(index, random);
  }

  @Test
  void anIndexSizedForMoreKeysThanItGotRanksExactly() throws IOException {
    SortedHashes hashes = SortedHashes.random(5_000, SEED);
    BlockedIndexBuilder builder = BlockedIndex.builderUpTo(20_000, BlockedIndexParameters.DEFAULT);
    for (int i = 0; i < hashes.size(); i++) {
      builder.add(hashes.hi[i], hashes.lo[i]);
    }
    BlockedIndex index = builder.finish();
    assertEquals(5_000, index.size());
    assertEquals(BlockedIndexParameters.DEFAULT.blockCount(20_000), index.blockCount());
    assertRanksExact(hashes, index);
    assertRanksExact(hashes, roundTrip(index));
  }

  @Test
  void batchRankAgreesWithSingleRank() {
    long seed = 0xBA7C8L;
    SplittableRandom random = TestRecords.seeded("BlockedIndexTest batch", seed);
    for (int n : new int[] {0, 1, 5, 1000, 100_000}) {
      SortedHashes hashes = SortedHashes.random(n, seed + n);
      BatchRanks.check(build(hashes, BlockedIndexParameters.DEFAULT), hashes, random);
      BatchRanks.check(build(hashes, new BlockedIndexParameters(16)), hashes, random);
    }
  }

  @Test
  void rankWithAPrefetcherAgreesWithRankAndGuessesCloseToTheTruth() {
    long seed = 0xB10C9E55L;
    SplittableRandom random = TestRecords.seeded("BlockedIndexTest prefetch", seed);
    for (int n : new int[] {0, 1, 2, 3, 1000, 300_000}) {
      SortedHashes hashes = SortedHashes.random(n, seed + n);
      for (BlockedIndexParameters parameters : new BlockedIndexParameters[] {BlockedIndexParameters.DEFAULT, new BlockedIndexParameters(16)}) {
        BlockedIndex index = build(hashes, parameters);
        PrefetchGuesses.Outcome outcome = PrefetchGuesses.check(index, hashes, random, parameters.toString());
        assertEquals(n, outcome.guesses(), "one guess per member lookup");
        if (n >= 1000) {
          // Interpolating within a block: off by about half the root of its key count.
          double mean = outcome.meanError();
          assertTrue(mean < index.guessError(), "mean guess error " + mean + " against " + index.guessError() + " with " + parameters);
          assertTrue(mean > index.guessError() / 10, "mean guess error " + mean + " suspiciously small with " + parameters);
        }
      }
    }
  }

  @Test
  void builderChecksItsOrderOfUse() {
    BlockedIndexBuilder builder = BlockedIndex.builder(3, BlockedIndexParameters.DEFAULT);
    builder.add(5, 5);
    assertThrows(DuplicateHashException.class, () -> builder.add(5, 5));
    IllegalArgumentException backwards = assertThrows(IllegalArgumentException.class, () -> builder.add(5, 4));
    assertTrue(backwards.getMessage().contains("do not come in order"), backwards.getMessage());
    builder.add(-1L, 0); // unsigned: the largest high word comes last
    IllegalStateException early = assertThrows(IllegalStateException.class, builder::finish);
    assertTrue(early.getMessage().contains("declared 3"), early.getMessage());
    builder.add(-1L, 1);
    assertThrows(IllegalStateException.class, () -> builder.add(-1L, 2));
    builder.finish();
    assertThrows(IllegalStateException.class, builder::finish);
    assertThrows(IllegalStateException.class, () -> builder.add(-1L, 3));
    assertThrows(IllegalArgumentException.class, () -> BlockedIndex.builder(-1, BlockedIndexParameters.DEFAULT));
    assertThrows(IllegalArgumentException.class, () -> new BlockedIndexParameters(15));
    assertThrows(IllegalArgumentException.class, () -> new BlockedIndexParameters(641));
  }

  @Test
  void everyTruncationAndManyBitFlipsAreReportedAsCorrupt() throws IOException {
    SortedHashes hashes = SortedHashes.clustered(3_000, 30, SEED);
    byte[] bytes = serialize(build(hashes, new BlockedIndexParameters(200)));
    for (int length = 0; length < bytes.length; length++) {
      byte[] cut = Arrays.copyOf(bytes, length);
      assertThrows(CorruptStoreException.class, () -> BlockedIndex.readFrom(new ByteArrayInputStream(cut)), "length " + length);
    }
    SplittableRandom random = new SplittableRandom(SEED);
    for (int flip = 0; flip < 2_000; flip++) {
      byte[] damaged = bytes.clone();
      int bit = random.nextInt(damaged.length * 8);
      damaged[bit >>> 3] ^= (byte) (1 << (bit & 7));
      assertThrows(CorruptStoreException.class, () -> BlockedIndex.readFrom(new ByteArrayInputStream(damaged)), "bit " + bit);
    }
  }

  static BlockedIndex build(SortedHashes hashes, BlockedIndexParameters parameters) {
    BlockedIndexBuilder builder = BlockedIndex.builder(hashes.size(), parameters);
    for (int i = 0; i < hashes.size(); i++) {
      builder.add(hashes.hi[i], hashes.lo[i]);
    }
    return builder.finish();
  }

  static byte[] serialize(BlockedIndex index) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    index.writeTo(out);
    assertEquals(index.serializedBytes(), out.size());
    return out.toByteArray();
  }

  static BlockedIndex roundTrip(BlockedIndex index) throws IOException {
    return BlockedIndex.readFrom(new ByteArrayInputStream(serialize(index)));
  }

  static void assertRanksExact(SortedHashes hashes, BlockedIndex index) {
    for (int i = 0; i < hashes.size(); i++) {
      long rank = index.rank(hashes.hi[i], hashes.lo[i]);
      if (rank != i) {
        assertEquals(i, rank, String.format("rank of %016x%016x", hashes.hi[i], hashes.lo[i]));
      }
    }
  }

  private static void assertNonMembersStayInRange(BlockedIndex index, SplittableRandom random) {
    for (int i = 0; i < 10_000; i++) {
      long rank = index.rank(random.nextLong(), random.nextLong());
      assertTrue(rank >= -1 && rank < Math.max(1, index.size()), "rank " + rank);
      if (index.size() == 0) {
        assertEquals(-1, rank);
      }
    }
  }
}
