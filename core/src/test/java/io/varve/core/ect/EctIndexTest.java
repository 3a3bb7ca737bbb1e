package io.varve.core.ect;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.varve.core.format.CorruptStoreException;
import io.varve.core.hash.KeyHasher;
import io.varve.core.index.BatchRanks;
import io.varve.core.index.PrefetchGuesses;
import io.varve.core.succinct.EliasFano;
import io.varve.core.testing.TestRecords;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class EctIndexTest {

  static Stream<Arguments> sizesAndParameters() {
    int[] sizes = {0, 1, 2, 3, 100, 10_000, 1_000_000};
    int[][] settings = {
      {256, 64, 0}, {64, 16, 2}, {128, 32, 1}, {512, 64, 3}, {1, 1, 0}, {4, 2, 1}, {1000, 256, 4}, {32, 1, 16}
    };
    Stream.Builder<Arguments> cases = Stream.builder();
    for (int n : sizes) {
      for (int[] s : settings) {
        if (n >= 1_000_000 && s[0] < 16) {
          continue; // covered at smaller sizes; keeps the suite short
        }
        cases.add(Arguments.of(n, s[0], s[1], s[2]));
      }
    }
    return cases.build();
  }

  @ParameterizedTest(name = "n={0} g={1} hmax={2} skipLevels={3}")
  @MethodSource("sizesAndParameters")
  void rankIsExactForEveryKeyAndSurvivesSerialization(int n, int g, int hmax, int skipLevels)
      throws IOException {
    long seed = 0xEC7L * 31 + n * 7L + g * 131L + hmax;
    System.out.println("EctIndexTest n=" + n + " g=" + g + " hmax=" + hmax + " skip=" + skipLevels + " seed " + seed);
    SortedHashes hashes = SortedHashes.random(n, seed);
    EctIndex index = hashes.buildDense(new EctParameters(g, hmax, skipLevels));
    assertEquals(n, index.size());
    assertRanksExact(hashes, index);
    assertRanksExact(hashes, roundTrip(index, null));
    assertNonMembersStayInRange(index, new SplittableRandom(seed + 1));
  }

  @Test
  void tenMillionKeysAtThePaperSettingUseAtMostTwoAndAHalfBitsPerKey() {
    EctIndex index = assertTenMillionKeysRankExactly(EctParameters.DEFAULT, 0x10E7L);
    assertTrue(index.bitsPerKey() <= 2.5, "bits/key " + index.bitsPerKey());
  }

  @Test
  void tenMillionKeysWithSmallBucketsAndSkipLengths() {
    EctIndex index = assertTenMillionKeysRankExactly(new EctParameters(64, 16, 3), 0x10E8L);
    assertTrue(index.bitsPerKey() <= 3.5, "bits/key " + index.bitsPerKey());
  }

  private static EctIndex assertTenMillionKeysRankExactly(EctParameters parameters, long seed) {
    int n = 10_000_000;
    System.out.println("EctIndexTest 10^7 " + parameters + " seed " + seed);
    SortedHashes hashes = SortedHashes.random(n, seed);
    EctIndex index = hashes.buildDense(parameters);
    assertRanksExact(hashes, index);
    System.out.printf(
        "10^7 keys, %s: %.3f bits/key (tries %.3f, directory %.3f)%n",
        parameters, index.bitsPerKey(), (double) index.trieBits() / n, (double) index.directoryBits() / n);
    return index;
  }

  @Test
  void keysThatShareHighWordsAreResolvedByTheLowWord() throws IOException {
    for (int maxRun : new int[] {2, 17, 300}) {
      SortedHashes hashes = SortedHashes.clustered(50_000, maxRun, maxRun);
      for (EctParameters p :
          new EctParameters[] {EctParameters.DEFAULT, new EctParameters(8, 4), new EctParameters(64, 64, 3)}) {
        EctIndex index = hashes.buildDense(p);
        assertRanksExact(hashes, index);
        assertRanksExact(hashes, roundTrip(index, null));
      }
    }
  }

  @Test
  void realKeysHashedWithSeveralSeeds() {
    byte[][] keys = new byte[20_000][];
    for (int i = 0; i < keys.length; i++) {
      keys[i] = ("clé-" + i + "-ключ").getBytes(StandardCharsets.UTF_8);
    }
    keys[0] = new byte[0];
    for (long seed : new long[] {0, 1, -1, 0x5EED}) {
      KeyHasher hasher = KeyHasher.withSeed(seed);
      SortedHashes hashes = SortedHashes.ofKeys(keys, hasher);
      EctIndex index = hashes.buildDense(EctParameters.DEFAULT);
      long[] h = new long[2];
      boolean[] seen = new boolean[keys.length];
      for (byte[] key : keys) {
        hasher.hash(key, h);
        long rank = index.rank(h[0], h[1]);
        assertEquals(h[0], hashes.hi[(int) rank]);
        assertEquals(h[1], hashes.lo[(int) rank]);
        assertTrue(!seen[(int) rank]);
        seen[(int) rank] = true;
      }
    }
  }

  static Stream<Arguments> sparseCases() {
    return Stream.of(
        Arguments.of(0, 256, 64, 0, 8), Arguments.of(1, 256, 64, 0, 8), Arguments.of(3, 256, 64, 0, 2),
        Arguments.of(10_000, 256, 64, 0, 1), Arguments.of(10_000, 256, 64, 0, 7),
        Arguments.of(10_000, 256, 64, 2, 7), Arguments.of(100_000, 256, 64, 0, 16),
        Arguments.of(100_000, 64, 16, 0, 256), Arguments.of(100_000, 64, 16, 3, 5),
        Arguments.of(1_000_000, 256, 64, 0, 32), Arguments.of(1_000_000, 1024, 128, 1, 4));
  }

  @ParameterizedTest(name = "n={0} g={1} hmax={2} skipLevels={3} fixed blocks of {4}")
  @MethodSource("sparseCases")
  void sparseIndexReturnsTheBlockOfEveryKey(int n, int g, int hmax, int skipLevels, int perBlock)
      throws IOException {
    long seed = 0x5BA25EL + n + perBlock;
    System.out.println("EctIndexTest sparse n=" + n + " k=" + perBlock + " seed " + seed);
    SortedHashes hashes = SortedHashes.random(n, seed);
    BlockBoundaries blocks = BlockBoundaries.fixedSize(perBlock);
    EctIndex sparse = hashes.buildSparse(new EctParameters(g, hmax, skipLevels), blocks);
    assertBlocksExact(hashes, sparse, blocks);
    assertBlocksExact(hashes, roundTrip(sparse, blocks), blocks);
    if (n >= 10_000 && perBlock > 1) {
      EctIndex dense = hashes.buildDense(new EctParameters(g, hmax, skipLevels));
      assertTrue(sparse.trieBits() < dense.trieBits(), "pruning must shrink the tries");
    }
  }

  @Test
  void sparseIndexWithVariableBlocks() {
    int n = 200_000;
    long seed = 0xB10C5L;
    SplittableRandom random = TestRecords.seeded("EctIndexTest variable blocks", seed);
    SortedHashes hashes = SortedHashes.random(n, seed);
    long[] starts = new long[n];
    int blockCount = 0;
    for (long r = 0; r < n; r += 1 + random.nextInt(random.nextBoolean() ? 3 : 60)) {
      starts[blockCount++] = r;
    }
    BlockBoundaries blocks =
        BlockBoundaries.firstRanks(EliasFano.of(Arrays.copyOf(starts, blockCount)));
    EctIndex sparse = hashes.buildSparse(EctParameters.DEFAULT, blocks);
    assertBlocksExact(hashes, sparse, blocks);
  }

  @Test
  void batchRankAgreesWithSingleRank() {
    long seed = 0xBA7C4L;
    SplittableRandom random = TestRecords.seeded("EctIndexTest batch", seed);
    for (int n : new int[] {0, 1, 5, 1000, 100_000}) {
      SortedHashes hashes = SortedHashes.random(n, seed + n);
      BatchRanks.check(hashes.buildDense(new EctParameters(64, 64, 2)), hashes, random);
    }
  }

  @Test
  void rankWithAPrefetcherAgreesWithRankAndGuessesCloseToTheTruth() {
    long seed = 0x9E7C4L;
    SplittableRandom random = TestRecords.seeded("EctIndexTest prefetch", seed);
    for (int n : new int[] {0, 1, 2, 3, 1000, 200_000}) {
      SortedHashes hashes = SortedHashes.random(n, seed + n);
      for (EctParameters parameters : new EctParameters[] {new EctParameters(64, 64, 3), new EctParameters(16, 8, 0)}) {
        EctIndex index = hashes.buildDense(parameters);
        PrefetchGuesses.Outcome outcome = PrefetchGuesses.check(index, hashes, random, parameters.toString());
        double mean = outcome.meanError();
        long guesses = outcome.guesses();
        if (n >= 1000) {
          // A member's place in its bucket's hash range predicts its rank to about sqrt(g) / 2.
          assertTrue(mean < index.guessError(), "mean guess error " + mean + " against " + index.guessError() + " with " + parameters);
          assertTrue(guesses > n / 2, guesses + " guesses for " + n + " keys");
        }
      }
    }
    EctIndex sparse =
        SortedHashes.random(100, 5)
            .buildSparse(new EctParameters(16, 64), BlockBoundaries.fixedSize(10));
    assertThrows(IllegalStateException.class, () -> sparse.rank(1, 2, expected -> 0));
  }

  @Test
  void builderChecksItsOrderOfUse() {
    EctIndexBuilder builder = EctIndex.builder(3, EctParameters.DEFAULT);
    builder.add(5, 5);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> builder.add(4, 9));
    assertTrue(e.getMessage().contains("hashes do not come in order"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> builder.add(5, 4));
    DuplicateHashException duplicate = assertThrows(DuplicateHashException.class, () -> builder.add(5, 5));
    assertEquals(1, duplicate.index());
    builder.add(-1, 0); // unsigned order: 0xFFFF... sorts last
    assertThrows(IllegalStateException.class, builder::finish);
    builder.add(-1, 1);
    assertThrows(IllegalStateException.class, () -> builder.add(-1, 2));
    EctIndex index = builder.finish();
    assertThrows(IllegalStateException.class, builder::finish);
    assertEquals(0, index.rank(5, 5));
    assertEquals(2, index.rank(-1, 1));
    assertThrows(IllegalStateException.class, () -> index.block(5, 5));
    assertThrows(IllegalArgumentException.class, () -> EctIndex.builder(-1, EctParameters.DEFAULT));
    assertThrows(IllegalArgumentException.class, () -> new EctParameters(0, 64));
    assertThrows(IllegalArgumentException.class, () -> new EctParameters(256, 257));
    assertThrows(IllegalArgumentException.class, () -> new EctParameters(256, 64, -1));
    assertThrows(IllegalArgumentException.class, () -> new EctParameters(256, 64, 17));
  }

  @Test
  void damagedSerializedIndexIsReportedAsCorrupt() throws IOException {
    SortedHashes hashes = SortedHashes.random(5000, 77);
    byte[] bytes = serialize(hashes.buildDense(new EctParameters(64, 16)));
    for (int cut = 0; cut < bytes.length; cut += 13) {
      byte[] truncated = Arrays.copyOf(bytes, cut);
      assertThrows(CorruptStoreException.class, () -> read(truncated, null), "truncated at " + cut);
    }
    SplittableRandom random = new SplittableRandom(78);
    for (int t = 0; t < 2000; t++) {
      byte[] flipped = bytes.clone();
      int bit = t < 8 * 48 ? t : random.nextInt(bytes.length * 8);
      flipped[bit >>> 3] ^= (byte) (1 << (bit & 7));
      assertThrows(CorruptStoreException.class, () -> read(flipped, null), "bit " + bit);
    }
    assertThrows(
        CorruptStoreException.class, () -> read(bytes, BlockBoundaries.fixedSize(4)), "dense read as sparse");
  }

  /**
   * A damaged trie that escaped the checksum (say, in memory) must give a wrong-but-in-range rank,
   * -1, or a CorruptStoreException: never another exception, a hang or a read outside the words.
   */
  @Test
  void lookupsOnDamagedTriesFailCleanly() {
    SortedHashes hashes = SortedHashes.random(20_000, 99);
    EctIndex index = hashes.buildDense(new EctParameters(128, 16, 2));
    SplittableRandom random = new SplittableRandom(100);
    io.varve.core.bits.LongBigArray words = TrieAccess.words(index);
    for (int round = 0; round < 300; round++) {
      long w = random.nextLong(words.length());
      long original = words.get(w);
      words.set(w, original ^ (round % 3 == 0 ? random.nextLong() : 1L << random.nextInt(64)));
      for (int i = 0; i < hashes.size(); i += 7) {
        try {
          long rank = index.rank(hashes.hi[i], hashes.lo[i]);
          assertTrue(rank >= -1 && rank < hashes.size(), "rank " + rank);
        } catch (CorruptStoreException expected) {
          // fine
        }
      }
      words.set(w, original);
    }
    assertRanksExact(hashes, index);
  }

  @Test
  void anIndexSizedForMoreKeysThanItGotRanksExactlyAndSaysSoInItsVersion() throws IOException {
    SortedHashes hashes = SortedHashes.random(30_000, 0xF2EEL);
    EctParameters parameters = new EctParameters(64, 16, 3);
    EctIndex loose = hashes.buildDenseUpTo(45_000, parameters);
    assertEquals(30_000, loose.size());
    assertRanksExact(hashes, loose);
    byte[] bytes = serialize(loose);
    assertEquals(EctIndexFormat.VERSION_FREE_BUCKETS, java.nio.ByteBuffer.wrap(bytes).getInt(4));
    assertRanksExact(hashes, read(bytes, null));
    assertNonMembersStayInRange(read(bytes, null), new SplittableRandom(7));
    // Sized exactly, the "up to" builder writes what the exact one writes: version 1.
    assertArrayEquals(serialize(hashes.buildDense(parameters)), serialize(hashes.buildDenseUpTo(30_000, parameters)));
    EctIndexBuilder exact = EctIndex.builder(10, parameters);
    exact.add(1, 1);
    assertThrows(IllegalStateException.class, exact::finish);
    EctIndexBuilder upTo = EctIndex.builderUpTo(1, parameters);
    upTo.add(1, 1);
    assertThrows(IllegalStateException.class, () -> upTo.add(2, 2));
    assertEquals(0, EctIndex.builderUpTo(100, parameters).finish().size());
  }

  private static void assertRanksExact(SortedHashes hashes, EctIndex index) {
    for (int i = 0; i < hashes.size(); i++) {
      long rank = index.rank(hashes.hi[i], hashes.lo[i]);
      if (rank != i) {
        fail(String.format("rank(%016x%016x) = %d, expected %d", hashes.hi[i], hashes.lo[i], rank, i));
      }
    }
  }

  private static void assertBlocksExact(SortedHashes hashes, EctIndex index, BlockBoundaries blocks) {
    for (int i = 0; i < hashes.size(); i++) {
      long block = index.block(hashes.hi[i], hashes.lo[i]);
      if (block != blocks.blockOf(i)) {
        fail("block of key " + i + " = " + block + ", expected " + blocks.blockOf(i));
      }
    }
  }

  private static void assertNonMembersStayInRange(EctIndex index, SplittableRandom random) {
    for (int t = 0; t < 100_000; t++) {
      long rank = index.rank(random.nextLong(), random.nextLong());
      assertTrue(rank >= -1 && rank < Math.max(1, index.size()), "rank " + rank);
      if (index.size() == 0) {
        assertEquals(-1, rank);
      }
    }
  }

  private static byte[] serialize(EctIndex index) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    index.writeTo(bytes);
    assertEquals(index.serializedBytes(), bytes.size(), "serializedBytes() predicts what writeTo writes");
    return bytes.toByteArray();
  }

  private static EctIndex read(byte[] bytes, BlockBoundaries blocks) throws IOException {
    return EctIndex.readFrom(new ByteArrayInputStream(bytes), blocks);
  }

  private static EctIndex roundTrip(EctIndex index, BlockBoundaries blocks) throws IOException {
    return read(serialize(index), blocks);
  }
}
