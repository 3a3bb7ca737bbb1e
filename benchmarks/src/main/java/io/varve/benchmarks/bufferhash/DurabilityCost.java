package io.varve.benchmarks.bufferhash;

import io.varve.bufferhash.BufferHash;
import io.varve.bufferhash.Durability;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;

/**
 * What each {@link Durability} mode costs: puts per second of 20-byte keys and 8-byte values into
 * a new BufferHash (1 GiB log, 64 MiB of RAM), with 1 and 4 writer threads, the modes alternated
 * over rounds, medians printed. {@code SYNC_ON_CALL} syncs every {@code syncEvery} puts per thread;
 * {@code SYNC_EVERY_WRITE} does a five-hundredth of the puts (each waits for an {@code fsync}).
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.varve.benchmarks.bufferhash.DurabilityCost PUTS ROUNDS SYNC_EVERY WORK_DIR
 * </pre>
 */
public final class DurabilityCost {
  private DurabilityCost() {}

  /** Puts per second of one run; the table is reopened after it and every key checked. */
  static double run(Path dir, Durability durability, int puts, int threads, int syncEvery) throws Exception {
    try (BufferHash table = BufferHash.builder(dir).logBytes(1L << 30).memoryBytes(64L << 20).entryBytes(28).durability(durability).open()) {
      ExecutorService pool = Executors.newFixedThreadPool(threads);
      long start = System.nanoTime();
      List<Future<?>> writers = new ArrayList<>();
      for (int w = 0; w < threads; w++) {
        int first = w;
        writers.add(
            pool.submit(
                () -> {
                  for (int i = first; i < puts; i += threads) {
                    table.put(key(i), value(i));
                    if (durability == Durability.SYNC_ON_CALL && i % syncEvery == 0) {
                      table.sync();
                    }
                  }
                  return null;
                }));
      }
      for (Future<?> writer : writers) {
        writer.get();
      }
      if (durability != Durability.BUFFERS_IN_RAM) {
        table.sync();
      }
      double rate = puts / ((System.nanoTime() - start) / 1e9);
      pool.shutdown();
      return rate;
    } finally {
      try (BufferHash reopened = BufferHash.builder(dir).memoryBytes(64L << 20).entryBytes(28).durability(durability).open()) {
        for (int i = 0; i < puts; i++) {
          if (!java.util.Arrays.equals(value(i), reopened.get(key(i)))) {
            throw new IllegalStateException("key " + i + " lost in " + durability);
          }
        }
      }
    }
  }

  static byte[] key(int i) {
    byte[] key = new byte[20];
    long h = i * 0x9E3779B97F4A7C15L;
    for (int j = 0; j < 20; j++) {
      key[j] = (byte) ((h >>> (8 * (j % 8))) ^ j);
    }
    return key;
  }

  static byte[] value(int i) {
    return java.nio.ByteBuffer.allocate(8).putLong(i).array();
  }

  public static void main(String[] args) throws Exception {
    int puts = Integer.parseInt(args[0]);
    int rounds = Integer.parseInt(args[1]);
    int syncEvery = Integer.parseInt(args[2]);
    Path work = Path.of(args[3]);
    for (int threads : new int[] {1, 4}) {
      Map<Durability, List<Double>> rates = new LinkedHashMap<>();
      for (int round = 0; round < rounds; round++) {
        for (Durability durability : Durability.values()) {
          int count = durability == Durability.SYNC_EVERY_WRITE ? Math.max(2_000, puts / 500) : puts;
          Path dir = work.resolve(durability + "-" + threads + "-" + round);
          rates.computeIfAbsent(durability, d -> new ArrayList<>()).add(run(dir, durability, count, threads, syncEvery));
          delete(dir);
        }
      }
      for (Map.Entry<Durability, List<Double>> entry : rates.entrySet()) {
        double[] sorted = entry.getValue().stream().mapToDouble(Double::doubleValue).sorted().toArray();
        System.out.printf(
            Locale.ROOT, "%d writer(s) %-17s median %,.0f puts/s (rounds %s)%n", threads, entry.getKey(), sorted[sorted.length / 2], entry.getValue());
      }
    }
  }

  private static void delete(Path dir) throws IOException {
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path file : (Iterable<Path>) files.sorted(Comparator.reverseOrder())::iterator) {
        Files.delete(file);
      }
    }
  }
}
