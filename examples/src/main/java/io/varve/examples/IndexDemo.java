package io.varve.examples;

import io.varve.cli.Arguments;
import io.varve.core.codes.TrieCodes;
import io.varve.core.ect.EctIndex;
import io.varve.core.ect.EctIndexBuilder;
import io.varve.core.ect.EctParameters;
import io.varve.core.hash.HashSort;
import io.varve.core.hash.KeyHasher;
import java.io.PrintStream;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/**
 * {@code Examples index-demo}: generates keys, hashes and sorts them, builds an ECT index, then looks up
 * sampled member keys (checking each answer) and absent keys, and prints sizes and timings.
 */
@Command(
    name = "index-demo",
    mixinStandardHelpOptions = true,
    usageHelpWidth = 100,
    sortOptions = false,
    header = "Builds an ECT index alone over generated hashes; prints bits/key and ns/lookup.",
    description = "Generates keys, hashes and sorts them, builds an ECT index, looks up member keys (checking each answer) and absent keys.")
final class IndexDemo implements Callable<Integer> {
  private static final int KEY_BYTES = 16;

  @ParentCommand Examples examples;

  @Option(names = "--keys", paramLabel = "N", description = "number of keys (default 10000000)")
  Long keysOption;

  @Option(names = "--bucket-size", paramLabel = "G", description = "average keys per virtual bucket (default 256)")
  Long bucketSizeOption;

  @Option(names = "--huffman-max", paramLabel = "H", description = "largest subtrie coded with Huffman codes (default 64)")
  Long huffmanMaxOption;

  @Option(names = "--skip-levels", paramLabel = "L", description = "trie levels that store skip lengths (default 3; 0 = the paper's tries)")
  Long skipLevelsOption;

  @Option(names = "--lookups", paramLabel = "N", description = "member and absent lookups to time (default 1000000)")
  Long lookupsOption;

  @Option(names = "--seed", paramLabel = "S", defaultValue = "42", description = "key generator seed (default 42)")
  long seed;

  @Override
  public Integer call() {
    PrintStream out = examples.out;
    int keys = Arguments.inRange("--keys", keysOption, 10_000_000, 0, 200_000_000);
    int bucketSize = Arguments.inRange("--bucket-size", bucketSizeOption, 256, 1, EctParameters.MAX_BUCKET_SIZE);
    int huffmanMax = Arguments.inRange("--huffman-max", huffmanMaxOption, 64, 1, TrieCodes.MAX_HUFFMAN_CONTEXT);
    // Three skip levels: about 0.16 bits/key more than the paper's tries, lookups over twice as fast.
    int skipLevels = Arguments.inRange("--skip-levels", skipLevelsOption, 3, 0, EctParameters.MAX_SKIP_LEVELS);
    int lookups = Arguments.inRange("--lookups", lookupsOption, 1_000_000, 0, Integer.MAX_VALUE);
    EctParameters parameters = new EctParameters(bucketSize, huffmanMax, skipLevels);
    KeyHasher hasher = KeyHasher.withSeed(0);

    out.printf("varve demo: %,d keys of %d bytes, g=%d, hmax=%d, skip levels %d, seed %d%n",
        keys, KEY_BYTES, bucketSize, huffmanMax, skipLevels, seed);
    long[] hi = new long[keys];
    long[] lo = new long[keys];
    long[] hash = new long[2];
    byte[] key = new byte[KEY_BYTES];
    long start = System.nanoTime();
    for (int i = 0; i < keys; i++) {
      generateKey(seed, i, key);
      hasher.hash(key, hash);
      hi[i] = hash[0];
      lo[i] = hash[1];
    }
    long hashed = System.nanoTime();
    out.printf("  hash     %8.2f s  (%.1f ns/key, XXH3-128)%n", seconds(hashed - start), (double) (hashed - start) / Math.max(1, keys));
    HashSort.sort(hi, lo, keys);
    long sorted = System.nanoTime();
    out.printf("  sort     %8.2f s  (radix sort in hash order)%n", seconds(sorted - hashed));
    EctIndexBuilder builder = EctIndex.builder(keys, parameters);
    for (int i = 0; i < keys; i++) {
      builder.add(hi[i], lo[i]);
    }
    EctIndex index = builder.finish();
    long built = System.nanoTime();
    out.printf("  build    %8.2f s  (%.2f M keys/s)%n", seconds(built - sorted), keys / 1e6 / Math.max(1e-9, seconds(built - sorted)));

    double n = Math.max(1, keys);
    out.printf("index: %.3f bits/key = tries %.3f + directory %.3f; %.3f bits/key of heap (select samples included)%n",
        index.bitsPerKey(), index.trieBits() / n, index.directoryBits() / n, index.ramBytesUsed() * 8 / n);

    if (keys > 0 && lookups > 0) {
      timeLookups(index, hasher, hi, lo, keys, lookups, seed, out);
    }
    return 0;
  }

  private static void timeLookups(EctIndex index, KeyHasher hasher, long[] hi, long[] lo, int keys, int lookups, long seed, PrintStream out) {
    SplittableRandom random = new SplittableRandom(seed ^ 0x10C4L);
    int[] sample = new int[lookups];
    for (int i = 0; i < lookups; i++) {
      sample[i] = random.nextInt(keys);
    }
    long[] hash = new long[2];
    byte[] key = new byte[KEY_BYTES];
    long wrong = 0;
    long checksum = 0;
    for (int round = 0; round < 2; round++) { // the first round warms the JIT
      wrong = 0;
      long start = System.nanoTime();
      for (int i = 0; i < lookups; i++) {
        generateKey(seed, sample[i], key);
        hasher.hash(key, hash);
        long rank = index.rank(hash[0], hash[1]);
        if (rank < 0 || hi[(int) rank] != hash[0] || lo[(int) rank] != hash[1]) {
          wrong++;
        }
      }
      long elapsed = System.nanoTime() - start;
      if (round == 1) {
        out.printf("lookup (hash + rank + check) of %,d member keys: %.0f ns each, %d wrong%n", lookups, (double) elapsed / lookups, wrong);
      }
    }
    // Keys generated and hashed in registers: nothing but the index touches memory.
    for (int round = 0; round < 3; round++) {
      long start = System.nanoTime();
      for (int i = 0; i < lookups; i++) {
        generateKey(seed, sample[i], key);
        hasher.hash(key, hash);
        checksum += index.rank(hash[0], hash[1]);
      }
      long elapsed = System.nanoTime() - start;
      if (round == 2) {
        out.printf("lookup (hash + rank) of member keys: %.0f ns each (checksum %d)%n", (double) elapsed / lookups, checksum);
      }
    }
    // Pre-hashed keys laid out in lookup order: the loop below pays for the index only.
    long[] sampleHi = new long[lookups];
    long[] sampleLo = new long[lookups];
    for (int i = 0; i < lookups; i++) {
      sampleHi[i] = hi[sample[i]];
      sampleLo[i] = lo[sample[i]];
    }
    for (int round = 0; round < 3; round++) {
      long start = System.nanoTime();
      for (int i = 0; i < lookups; i++) {
        checksum += index.rank(sampleHi[i], sampleLo[i]);
      }
      long elapsed = System.nanoTime() - start;
      if (round == 2) {
        out.printf("rank() alone on pre-hashed member keys: %.0f ns each (checksum %d)%n", (double) elapsed / lookups, checksum);
      }
    }
    long certainlyAbsent = 0;
    for (int i = 0; i < lookups; i++) {
      generateKey(seed + 1, keys + (long) i, key);
      hasher.hash(key, hash);
      long rank = index.rank(hash[0], hash[1]);
      if (rank < 0) {
        certainlyAbsent++;
      } else if (hi[(int) rank] == hash[0] && lo[(int) rank] == hash[1]) {
        wrong++;
      }
    }
    out.printf("absent keys: %,d looked up, %,d rejected by the index alone, the rest by comparing the hash; %d false hits%n",
        lookups, certainlyAbsent, wrong);
    if (wrong != 0) {
      throw new IllegalStateException(wrong + " wrong answers");
    }
  }

  /** Key {@code i} of the generated set: 16 bytes from SplitMix64. */
  static void generateKey(long seed, long i, byte[] key) {
    long a = mix(seed * 0x9E3779B97F4A7C15L + i);
    long b = mix(a ^ i);
    for (int j = 0; j < 8; j++) {
      key[j] = (byte) (a >>> (8 * j));
      key[8 + j] = (byte) (b >>> (8 * j));
    }
  }

  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  private static double seconds(long nanos) {
    return nanos / 1e9;
  }
}
