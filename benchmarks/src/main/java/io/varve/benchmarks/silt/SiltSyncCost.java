package io.varve.benchmarks.silt;

import io.varve.silt.SiltOptions;
import io.varve.silt.SiltStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * The cost of a durable write: {@code OPS} times a put of a 16-byte key and a {@code VALUE_BYTES}
 * value followed by {@link SiltStore#sync()}, in a new store under {@code DIR}, for {@code ROUNDS}
 * rounds; prints each round's mean microseconds per put and sync, then the median. Public API only,
 * so that the same class runs against builds before and after a change of the sync path:
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.varve.benchmarks.silt.SiltSyncCost DIR [OPS [VALUE_BYTES [ROUNDS]]]
 * </pre>
 *
 * Not thread-safe: a program.
 */
public final class SiltSyncCost {
  private SiltSyncCost() {}

  public static void main(String[] args) throws Exception {
    Path dir = Path.of(args[0]);
    int ops = args.length > 1 ? Integer.parseInt(args[1]) : 2000;
    int valueBytes = args.length > 2 ? Integer.parseInt(args[2]) : 100;
    int rounds = args.length > 3 ? Integer.parseInt(args[3]) : 5;
    SiltOptions options = SiltOptions.builder().backgroundMerges(false).build();
    double[] micros = new double[rounds];
    for (int round = 0; round < rounds; round++) {
      delete(dir);
      try (SiltStore store = SiltStore.open(dir, options)) {
        for (int i = 0; i < 200; i++) { // warm-up: JIT, the log's first pages
          store.put(SiltScale.key(-1 - i), SiltScale.value(i, valueBytes));
          store.sync();
        }
        long start = System.nanoTime();
        for (int i = 0; i < ops; i++) {
          store.put(SiltScale.key(i), SiltScale.value(i, valueBytes));
          store.sync();
        }
        micros[round] = (System.nanoTime() - start) / 1e3 / ops;
      }
      System.out.printf("round %d: %.1f us per put and sync%n", round, micros[round]);
    }
    delete(dir);
    double[] sorted = micros.clone();
    Arrays.sort(sorted);
    System.out.printf("median %.1f us per put and sync (%d ops of 16 + %d bytes, %d rounds)%n", sorted[rounds / 2], ops, valueBytes, rounds);
  }

  private static void delete(Path dir) throws Exception {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }
}
