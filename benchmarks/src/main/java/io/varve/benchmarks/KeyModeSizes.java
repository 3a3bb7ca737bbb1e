package io.varve.benchmarks;

import io.varve.builder.StoreBuilder;
import io.varve.core.files.FileTrees;
import io.varve.core.store.KeyMode;
import io.varve.reader.Store;
import io.varve.reader.StoreStats;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;

/**
 * What throwing the keys away saves and costs: builds {@code N} records of 16-byte keys and 8-byte
 * values with full keys, 8-bit signatures and no keys; prints each store's data, hash-file and
 * total bytes; then looks up {@code ABSENT} keys that are not in the signature store and prints
 * the false-positive rate beside {@code 2^-8}.
 *
 * <pre>
 * java $JVM_OPTS -Xmx2g -cp benchmarks/target/benchmarks.jar io.varve.benchmarks.KeyModeSizes 10000000 10000000 /tmp/keymodes
 * </pre>
 *
 * The work directory must not exist; it is deleted at the end. A command-line program: it has no
 * state to share between threads.
 */
public final class KeyModeSizes {
  private KeyModeSizes() {}

  public static void main(String[] args) throws IOException {
    long n = Long.parseLong(args[0]);
    long absent = Long.parseLong(args[1]);
    Path work = Path.of(args[2]);
    Files.createDirectory(work);
    try {
      for (KeyMode mode : new KeyMode[] {KeyMode.FULL, KeyMode.signature(8), KeyMode.NONE}) {
        Path dir = work.resolve(mode.toString().replace(':', '-'));
        SplittableRandom random = new SplittableRandom(BenchmarkData.SEED);
        byte[] key = new byte[16];
        byte[] value = new byte[8];
        try (StoreBuilder builder = StoreBuilder.create(dir).keyMode(mode)) {
          for (long i = 0; i < n; i++) {
            fill(key, random.nextLong(), random.nextLong());
            fill(value, i, 0);
            builder.put(key, value);
          }
          builder.build();
        }
        long dataBytes = Files.size(dir.resolve("data"));
        long hashBytes = Files.exists(dir.resolve("hashes")) ? Files.size(dir.resolve("hashes")) : 0;
        try (Store store = Store.open(dir)) {
          StoreStats stats = store.stats();
          System.out.printf(
              "%-12s data %,d bytes (%.2f B/record), hashes %,d bytes, all files %,d bytes (%.2f B/record), heap %.3f bits/key%n",
              mode, dataBytes, dataBytes / (double) n, hashBytes, stats.fileBytes(), stats.fileBytes() / (double) n, stats.memoryBitsPerKey());
          if (mode.kind() == KeyMode.Kind.SIGNATURE) {
            // Absent keys: 17 bytes long, so never equal to a stored 16-byte key.
            byte[] probe = new byte[17];
            SplittableRandom other = new SplittableRandom(BenchmarkData.LOOKUP_SEED);
            long found = 0;
            for (long i = 0; i < absent; i++) {
              other.nextBytes(probe);
              if (store.get(probe) != null) {
                found++;
              }
            }
            double rate = found / (double) absent;
            System.out.printf(
                "%-12s false positives %,d of %,d absent keys = %.6f; 2^-%d = %.6f (ratio %.3f)%n",
                mode, found, absent, rate, mode.signatureBits(), Math.pow(2, -mode.signatureBits()),
                rate / Math.pow(2, -mode.signatureBits()));
          }
        }
        FileTrees.deleteTree(dir);
      }
    } finally {
      FileTrees.deleteTree(work);
    }
  }

  private static void fill(byte[] bytes, long a, long b) {
    for (int j = 0; j < 8 && j < bytes.length; j++) {
      bytes[j] = (byte) (a >>> (8 * j));
    }
    for (int j = 8; j < bytes.length; j++) {
      bytes[j] = (byte) (b >>> (8 * (j - 8)));
    }
  }
}
