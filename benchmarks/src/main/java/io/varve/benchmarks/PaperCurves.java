package io.varve.benchmarks;

import io.varve.core.ect.BlockBoundaries;
import io.varve.core.ect.EctIndex;
import io.varve.core.ect.EctIndexBuilder;
import io.varve.core.ect.EctParameters;
import io.varve.core.ect.TrieSizeModel;
import java.io.PrintStream;

/**
 * Prints the ECT paper's space curves for Varve's codes, as Markdown tables: the expected trie
 * size per key against the number of keys (the paper's Figure 3, {@code hmax = 64}) and against
 * the keys per block of a sparse 256-key trie (its Figure 6), each from the exact model ({@link
 * TrieSizeModel}) beside the mean of tries actually built over random keys, plus the entropy
 * bound and the cost of skip lengths.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.varve.benchmarks.PaperCurves [trials]
 * </pre>
 *
 * <p>A command-line report; stateless.
 */
public final class PaperCurves {
  private static final int HUFFMAN_MAX = 64;

  private PaperCurves() {}

  public static void main(String[] args) {
    int trials = args.length > 0 ? Integer.parseInt(args[0]) : 2000;
    print(System.out, trials);
  }

  static void print(PrintStream out, int trials) {
    TrieSizeModel model = new TrieSizeModel(HUFFMAN_MAX);
    int[] sizes = {2, 3, 4, 8, 16, 32, 64, 65, 128, 256, 512, 1024};
    double[] expected = model.expectedDenseBits(1024);
    double[] entropy = model.entropyBits(1024);
    out.printf("## Figure 3: trie size per key vs keys per trie (hmax = %d, %d random tries per row)%n%n", HUFFMAN_MAX, trials);
    out.println("| keys | model bits/key | measured bits/key | entropy bits/key | code overhead |");
    out.println("|---:|---:|---:|---:|---:|");
    for (int n : sizes) {
      double measured = meanTrieBits(n, 0, 0, trials) / n;
      out.printf("| %d | %.4f | %.4f | %.4f | %.1f%% |%n",
          n, expected[n] / n, measured, entropy[n] / n, 100 * (expected[n] / entropy[n] - 1));
    }
    out.printf("%n## Figure 6: sparse trie of 256 keys, size per key vs keys per block (hmax = %d)%n%n", HUFFMAN_MAX);
    out.println("| keys per block | model bits/key | measured bits/key |");
    out.println("|---:|---:|---:|");
    for (int k : new int[] {1, 2, 4, 8, 16, 32, 64, 128, 256}) {
      double measured = meanTrieBits(256, 0, k, trials) / 256;
      out.printf("| %d | %.4f | %.4f |%n", k, model.expectedSparseBits(256, k) / 256, measured);
    }
    out.printf("%n## Skip lengths: trie size per key with the top L levels storing skip lengths (hmax = %d)%n%n", HUFFMAN_MAX);
    out.println("| keys per trie | L = 0 | L = 1 | L = 2 | L = 3 | L = 4 |");
    out.println("|---:|---:|---:|---:|---:|---:|");
    for (int n : new int[] {64, 128, 256, 512}) {
      StringBuilder row = new StringBuilder("| " + n + " |");
      for (int levels = 0; levels <= 4; levels++) {
        row.append(String.format(" %.4f |", meanTrieBits(n, levels, 0, trials / 4 + 1) / n));
      }
      out.println(row);
    }
  }

  /** The mean trie bits of one-bucket indexes over {@code n} random keys. */
  private static double meanTrieBits(int n, int skipLevels, int keysPerBlock, int trials) {
    long total = 0;
    EctParameters oneBucket = new EctParameters(n, HUFFMAN_MAX, skipLevels);
    for (int t = 0; t < trials; t++) {
      BenchmarkData data = BenchmarkData.sortedHashes(n, 1_000_003L * n + 31L * t + keysPerBlock);
      EctIndexBuilder builder =
          keysPerBlock == 0
              ? EctIndex.builder(n, oneBucket)
              : EctIndex.sparseBuilder(n, oneBucket, BlockBoundaries.fixedSize(keysPerBlock));
      for (int i = 0; i < n; i++) {
        builder.add(data.hi[i], data.lo[i]);
      }
      total += builder.finish().trieBits();
    }
    return (double) total / trials;
  }
}
