package io.varve.benchmarks.bcms;

import java.util.Locale;
import java.util.SplittableRandom;

/**
 * Separates hash localization from hashing: simulates the overestimates of a count-min sketch and a
 * page-localized one with ideal random choices (a seeded random generator per item picks each row's
 * column, or the page and then each row's column in it), on a configuration of the paper's Table 1
 * with each item inserted once. If the page-localized average is above the plain one by what
 * {@link BcmsExperiment} measures for Varve's sketches, the gap belongs to localization, not to
 * Varve's hash functions.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.varve.benchmarks.bcms.LocalizationSimulation [sizeMiB] [seed] [pageBytes]
 * </pre>
 */
public final class LocalizationSimulation {
  private LocalizationSimulation() {}

  public static void main(String[] args) {
    PaperConfiguration configuration =
        PaperConfiguration.ofSize((args.length > 0 ? Long.parseLong(args[0]) : 128) << 20);
    long seed = args.length > 1 ? Long.parseLong(args[1]) : 1;
    int depth = configuration.depth();
    int pageBytes = args.length > 2 ? Integer.parseInt(args[2]) : 4096;
    int columnsPerPage = pageBytes / (depth * PaperConfiguration.COUNTER_BYTES);
    long pages = (configuration.width() + columnsPerPage - 1) / columnsPerPage;
    System.out.printf(Locale.ROOT, "%s: %,d items, width %,d, depth %d; pages %,d of %d columns; seed %d%n",
        configuration.sizeLabel(), configuration.items(), configuration.width(), depth, pages, columnsPerPage, seed);
    for (boolean localized : new boolean[] {false, true}) {
      int[] counters = new int[Math.toIntExact(localized ? pages * columnsPerPage * depth : configuration.width() * depth)];
      double sum = 0;
      long max = 0;
      for (int pass = 0; pass < 2; pass++) {
        for (long i = 0; i < configuration.items(); i++) {
          SplittableRandom choices = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + i);
          long base = localized ? choices.nextLong(pages) * columnsPerPage * depth : 0;
          long min = Long.MAX_VALUE;
          for (int row = 0; row < depth; row++) {
            int at = (int) (localized
                ? base + (long) choices.nextInt(columnsPerPage) * depth + row
                : row * configuration.width() + choices.nextLong(configuration.width()));
            if (pass == 0) {
              counters[at]++;
            } else {
              min = Math.min(min, counters[at]);
            }
          }
          if (pass == 1) {
            sum += min - 1;
            max = Math.max(max, min - 1);
          }
        }
      }
      System.out.printf(Locale.ROOT, "%s: average overestimate %.4f, maximum %d%n",
          localized ? "page-localized (ideal)" : "plain (ideal)", sum / configuration.items(), max);
    }
  }
}
