package io.varve.benchmarks.bufferhash;

import io.varve.bufferhash.BufferHash;
import io.varve.bufferhash.Durability;
import io.varve.core.files.FileTrees;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;

/**
 * Puts per second into a BufferHash whose log fills and wraps (16 MiB of log, 4 MiB of RAM,
 * 20-byte keys and 8-byte values), so that most flushes evict: what the forced state before
 * evicted pages are overwritten costs. {@code SYNC_ON_CALL} syncs every 10,000 puts. The newest
 * {@value #CHECKED} keys, which no eviction can have reached, are read back after a reopen.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.varve.benchmarks.bufferhash.FullLogCost DIR BUFFERS_IN_RAM|SYNC_ON_CALL PUTS
 * </pre>
 */
public final class FullLogCost {
  static final int CHECKED = 10_000;
  private static final int SYNC_EVERY = 10_000;

  private FullLogCost() {}

  /** Puts per second of one run into a new table in {@code dir} (deleted after). */
  static double run(Path dir, Durability durability, int puts) throws Exception {
    FileTrees.deleteTree(dir);
    double rate;
    try (BufferHash table = builder(dir, durability).logBytes(16L << 20).open()) {
      long start = System.nanoTime();
      for (int i = 0; i < puts; i++) {
        table.put(DurabilityCost.key(i), DurabilityCost.value(i));
        if (durability == Durability.SYNC_ON_CALL && i % SYNC_EVERY == 0) {
          table.sync();
        }
      }
      if (durability != Durability.BUFFERS_IN_RAM) {
        table.sync();
      }
      rate = puts / ((System.nanoTime() - start) / 1e9);
    }
    try (BufferHash reopened = builder(dir, durability).open()) {
      for (int i = Math.max(0, puts - CHECKED); i < puts; i++) {
        if (!Arrays.equals(DurabilityCost.value(i), reopened.get(DurabilityCost.key(i)))) {
          throw new IllegalStateException("key " + i + " of the newest " + CHECKED + " lost in " + durability);
        }
      }
    }
    FileTrees.deleteTree(dir);
    return rate;
  }

  private static io.varve.bufferhash.BufferHashBuilder builder(Path dir, Durability durability) {
    return BufferHash.builder(dir).memoryBytes(4L << 20).entryBytes(28).durability(durability);
  }

  public static void main(String[] args) throws Exception {
    Durability durability = Durability.valueOf(args[1]);
    int puts = Integer.parseInt(args[2]);
    System.out.printf(Locale.ROOT, "%s %,d puts into a full log: %,.0f puts/s%n", durability, puts, run(Path.of(args[0]), durability, puts));
  }
}
