package io.varve.benchmarks;

import io.varve.builder.StoreBuilder;
import io.varve.builder.StoreReindexer;
import io.varve.core.ect.EctParameters;
import io.varve.core.ect.TrieSizeModel;
import io.varve.core.files.FileTrees;
import io.varve.reader.Store;
import io.varve.reader.StoreStats;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;

/**
 * Bits per key of sparse indexes against block size, beside the ECT paper's Figure 6 (the expected
 * trie bits of a 256-key trie, from {@link TrieSizeModel}): builds one store of {@code N} 16-byte
 * records (8-byte keys and values, no page alignment), re-indexes it sparse for block sizes from
 * 512 bytes to 64 KiB and bucket sizes 256, 1024 and 4096, and prints trie, directory and
 * block-table bits per key.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.varve.benchmarks.SparseIndexSize 10000000 /tmp/varve-sparse
 * </pre>
 *
 * The work directory must not exist; it is deleted at the end. A command-line program: it has no
 * state to share between threads.
 */
public final class SparseIndexSize {
  private SparseIndexSize() {}

  public static void main(String[] args) throws IOException {
    long n = Long.parseLong(args[0]);
    Path work = Path.of(args[1]);
    Files.createDirectory(work);
    try {
      Path dense = work.resolve("dense");
      SplittableRandom random = new SplittableRandom(BenchmarkData.SEED);
      byte[] key = new byte[8];
      byte[] value = new byte[8];
      try (StoreBuilder builder = StoreBuilder.create(dense).pageAlignment(0)) {
        for (long i = 0; i < n; i++) {
          long k = random.nextLong();
          for (int j = 0; j < 8; j++) {
            key[j] = (byte) (k >>> (8 * j));
            value[j] = (byte) (i >>> (8 * j));
          }
          builder.put(key, value);
        }
        builder.build();
      }
      try (Store store = Store.open(dense)) {
        StoreStats stats = store.stats();
        System.out.printf("dense (64,64,3): index %.3f bits/key, offsets %.3f bits/key%n", stats.indexBitsPerKey(), stats.offsetsBitsPerKey());
      }
      TrieSizeModel model = new TrieSizeModel(64);
      System.out.println("block bytes | keys/block | paper Fig. 6 (256-key trie, hmax 64) | g | trie | directory | blocks | index total | index + blocks (bits/key)");
      for (int blockBytes = 512; blockBytes <= 1 << 16; blockBytes <<= 1) {
        int keysPerBlock = blockBytes / 16;
        double figure6 = model.expectedSparseBits(256, keysPerBlock) / 256;
        for (int g : new int[] {256, 1024, 4096}) {
          Path sparse = work.resolve("sparse-" + blockBytes + "-" + g);
          StoreReindexer.reindex(dense, sparse, blockBytes, new EctParameters(g, 64, 0));
          try (Store store = Store.open(sparse)) {
            StoreStats stats = store.stats();
            double trie = stats.trieBits() / (double) n;
            double directory = stats.directoryBits() / (double) n;
            double blocks = stats.offsetsBitsPerKey();
            System.out.printf(
                "%6d | %5d | %.4f | %4d | %.4f | %.4f | %.4f | %.4f | %.4f%n",
                blockBytes, keysPerBlock, figure6, g, trie, directory, blocks, trie + directory, trie + directory + blocks);
          }
          FileTrees.deleteTree(sparse);
        }
      }
    } finally {
      FileTrees.deleteTree(work);
    }
  }
}
