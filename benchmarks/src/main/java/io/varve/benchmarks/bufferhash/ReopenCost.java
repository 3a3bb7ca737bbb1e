package io.varve.benchmarks.bufferhash;

import io.varve.bufferhash.BufferHash;
import io.varve.bufferhash.BufferHashBuilder;
import io.varve.core.files.FileTrees;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;

/**
 * How long a {@code BUFFERS_IN_RAM} table takes to reopen after a close that left its buffers in
 * the buffers file (1 GiB of log, 64 MiB of RAM, 20-byte keys and 8-byte values): the open reads
 * them back and writes them out as forced incarnations. Every key is read back after the reopen.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.varve.benchmarks.bufferhash.ReopenCost DIR PUTS
 * </pre>
 */
public final class ReopenCost {
  private ReopenCost() {}

  /** What one run measured. */
  record Reopen(long millis, long flushes, boolean buffersFileLeft) {}

  /** Writes {@code puts} entries into a new table in {@code dir}, closes it and times the reopen (the directory is deleted after). */
  static Reopen run(Path dir, int puts) throws Exception {
    FileTrees.deleteTree(dir);
    try (BufferHash table = builder(dir).open()) {
      for (int i = 0; i < puts; i++) {
        table.put(DurabilityCost.key(i), DurabilityCost.value(i));
      }
    }
    Reopen reopen;
    long start = System.nanoTime();
    try (BufferHash table = builder(dir).open()) {
      reopen = new Reopen((System.nanoTime() - start) / 1_000_000, table.stats().flushes(), Files.exists(dir.resolve("buffers")));
      for (int i = 0; i < puts; i++) {
        if (!Arrays.equals(DurabilityCost.value(i), table.get(DurabilityCost.key(i)))) {
          throw new IllegalStateException("key " + i + " lost by the reopen");
        }
      }
    }
    FileTrees.deleteTree(dir);
    return reopen;
  }

  private static BufferHashBuilder builder(Path dir) {
    return BufferHash.builder(dir).logBytes(1L << 30).memoryBytes(64L << 20).entryBytes(28);
  }

  public static void main(String[] args) throws Exception {
    int puts = Integer.parseInt(args[1]);
    Reopen reopen = run(Path.of(args[0]), puts);
    System.out.printf(Locale.ROOT, "reopen after %,d puts: %,d ms, %,d flushes, buffers file %s%n",
        puts, reopen.millis(), reopen.flushes(), reopen.buffersFileLeft() ? "left" : "gone");
  }
}
