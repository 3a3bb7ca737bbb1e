package io.varve.benchmarks;

import io.varve.builder.BuildSummary;
import io.varve.builder.StoreBuilder;
import io.varve.core.files.FileTrees;
import io.varve.reader.Store;
import io.varve.reader.StoreStats;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Issue 23's scale run: builds {@code N} records of 16-byte random keys and 8-byte values (record
 * {@code i}'s value is {@code i}) in the default memory budget, then opens the store and checks a
 * million sampled keys against their values and a million absent keys, and prints the build time,
 * the peak disk space used while building, the store's size, its resident bits per key and the
 * process's peak RSS ({@code VmHWM}). The keys are regenerated from the seed, so the check holds no
 * copy of the input.
 *
 * <pre>
 * java -Xmx2g $JVM_OPTS -cp benchmarks/target/benchmarks.jar io.varve.benchmarks.ScaleRun 1000000000 /data/varve-scale
 * </pre>
 *
 * The directory must not exist; it is deleted at the end unless {@code --keep} follows.
 */
public final class ScaleRun {
  static final long SEED = 0x5CA1E;
  static final int CHECKED = 1_000_000;

  private ScaleRun() {}

  /** What one run measured. */
  record Result(
      long records,
      double buildSeconds,
      String buildPeakRss,
      long peakDiskBytes,
      long storeBytes,
      double memoryBitsPerKey,
      long checked,
      long absent) {}

  public static void main(String[] args) throws IOException, InterruptedException {
    long n = Long.parseLong(args[0]);
    Path target = Path.of(args[1]);
    boolean keep = args.length > 2 && args[2].equals("--keep");
    Result result = run(n, target, CHECKED);
    System.out.printf(
        "%,d records: built in %.1f s (%.2f M records/s); peak disk used while building %.2f GB; store %.2f GB (%.2f bytes/record);"
            + " peak RSS while building %s; %.2f bits/key resident; %,d sampled keys and %,d absent keys checked (peak RSS while checking %s)%n",
        n, result.buildSeconds, n / result.buildSeconds / 1e6, result.peakDiskBytes / 1e9, result.storeBytes / 1e9,
        result.storeBytes / (double) Math.max(1, n), result.buildPeakRss, result.memoryBitsPerKey, result.checked, result.absent,
        peakRss());
    if (!keep) {
      FileTrees.deleteTree(target);
    }
  }

  static Result run(long n, Path target, int checked) throws IOException, InterruptedException {
    if (Files.exists(target)) {
      throw new IllegalArgumentException(target + " exists");
    }
    Files.createDirectories(target.getParent());
    FileStore disk = Files.getFileStore(target.getParent());
    long freeBefore = disk.getUsableSpace();
    AtomicLong leastFree = new AtomicLong(freeBefore);
    Thread diskWatch =
        new Thread(
            () -> {
              try {
                while (!Thread.currentThread().isInterrupted()) {
                  leastFree.accumulateAndGet(disk.getUsableSpace(), Math::min);
                  Thread.sleep(200);
                }
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              } catch (IOException e) {
                throw new UncheckedIOException(e);
              }
            },
            "disk-watch");
    diskWatch.setDaemon(true);
    diskWatch.start();
    long stride = Math.max(1, n / Math.max(1, checked));
    long start = System.nanoTime();
    BuildSummary summary;
    try (StoreBuilder builder = StoreBuilder.create(target).listener(BuildThroughput.progressPrinter(start, 10))) {
      SplittableRandom random = new SplittableRandom(SEED);
      byte[] key = new byte[16];
      byte[] value = new byte[8];
      for (long i = 0; i < n; i++) {
        nextKey(random, key);
        longBytes(i, value, 0);
        builder.put(key, value);
      }
      System.out.printf("  input done at %.1f s%n", (System.nanoTime() - start) / 1e9);
      summary = builder.build();
    }
    double buildSeconds = (System.nanoTime() - start) / 1e9;
    leastFree.accumulateAndGet(disk.getUsableSpace(), Math::min);
    diskWatch.interrupt();
    diskWatch.join();
    String buildPeakRss = peakRss();
    resetPeakRss();
    if (summary.meta().recordCount() != n) {
      throw new AssertionError("built " + summary.meta().recordCount() + " records of " + n);
    }
    long storeBytes = 0;
    try (var files = Files.list(target)) {
      for (Path file : (Iterable<Path>) files::iterator) {
        storeBytes += Files.size(file);
      }
    }
    long sampled = 0;
    long absent = 0;
    double bitsPerKey;
    try (Store store = Store.open(target)) {
      StoreStats stats = store.stats();
      bitsPerKey = stats.memoryBitsPerKey();
      SplittableRandom random = new SplittableRandom(SEED);
      byte[] key = new byte[16];
      byte[] expected = new byte[8];
      for (long i = 0; i < n; i++) {
        nextKey(random, key);
        if (i % stride == 0 && sampled < checked) {
          longBytes(i, expected, 0);
          byte[] got = store.get(key);
          if (!Arrays.equals(got, expected)) {
            throw new AssertionError("record " + i + ": expected " + Arrays.toString(expected) + ", got " + Arrays.toString(got));
          }
          sampled++;
        }
      }
      // 17-byte keys: no stored key has that length.
      SplittableRandom absentKeys = new SplittableRandom(~SEED);
      byte[] missing = new byte[17];
      for (int i = 0; i < checked; i++) {
        absentKeys.nextBytes(missing);
        if (store.get(missing) != null) {
          throw new AssertionError("absent key " + i + " found");
        }
        absent++;
      }
    }
    return new Result(n, buildSeconds, buildPeakRss, freeBefore - leastFree.get(), storeBytes, bitsPerKey, sampled, absent);
  }

  private static void nextKey(SplittableRandom random, byte[] key) {
    longBytes(random.nextLong(), key, 0);
    longBytes(random.nextLong(), key, 8);
  }

  private static void longBytes(long v, byte[] target, int offset) {
    for (int j = 0; j < 8; j++) {
      target[offset + j] = (byte) (v >>> (8 * j));
    }
  }

  /** Resets {@code VmHWM} (Linux's {@code clear_refs}), so that the check's peak is its own: the mapped store counts in RSS. */
  private static void resetPeakRss() {
    try {
      Files.writeString(Path.of("/proc/self/clear_refs"), "5");
    } catch (IOException | UnsupportedOperationException e) {
      // not Linux, or not allowed: the later figure is then the whole run's peak
    }
  }

  private static String peakRss() throws IOException {
    Path status = Path.of("/proc/self/status");
    if (!Files.isReadable(status)) {
      return "unknown";
    }
    return Files.readAllLines(status).stream()
        .filter(line -> line.startsWith("VmHWM:"))
        .map(line -> line.substring("VmHWM:".length()).trim())
        .findFirst()
        .orElse("unknown");
  }
}
