package io.varve.examples;

import io.varve.bufferhash.BufferHash;
import io.varve.bufferhash.BufferHashStats;
import io.varve.bufferhash.BufferHashTuning;
import io.varve.cli.Arguments;
import io.varve.cli.ByteSizes;
import io.varve.core.files.FileTrees;
import io.varve.examples.dedup.BufferHashChunkIndex;
import io.varve.examples.dedup.ChunkIndex;
import io.varve.examples.dedup.DedupStats;
import io.varve.examples.dedup.Deduplicator;
import io.varve.examples.dedup.FastCdc;
import io.varve.examples.dedup.HashMapChunkIndex;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/**
 * {@code Examples dedup [PATH...]}: the dedup / WAN-optimizer run of the BufferHash paper (section 8)
 * over real files. Every file is cut into chunks by content (FastCDC), each chunk's SHA-1 is looked
 * up in a fingerprint index (BufferHash, or a HashMap) and recorded when new; the command prints
 * the bytes seen, the redundancy found (bytes of chunks seen before), the speed, and the index's
 * RAM against its size on disk. Without paths it reads the jars of the local Maven repository.
 */
@Command(
    name = "dedup",
    mixinStandardHelpOptions = true,
    usageHelpWidth = 100,
    sortOptions = false,
    header = "The dedup / WAN-optimizer run of the BufferHash paper over real files.",
    description = {
      "Cuts the files into chunks by content (FastCDC), looks each chunk's SHA-1 up in an index and records it when new;"
          + " prints bytes seen, redundancy, chunks/s, MB/s, and the index's RAM against its size on disk."
    })
final class DedupCommand implements Callable<Integer> {
  /** How often a run that is not on a terminal prints a progress line; on a terminal, one line updates. */
  private static final long LOG_INTERVAL_NANOS = 5_000_000_000L;

  private static final long TERMINAL_INTERVAL_NANOS = 500_000_000L;

  /**
   * Log bytes per expected fingerprint by default: twice an entry's share of a log page (about 32
   * bytes), so that a run over the files given evicts nothing and finds all the redundancy a
   * HashMap finds.
   */
  private static final long DEFAULT_LOG_BYTES_PER_CHUNK = 64;

  /** What the default RAM budget is sized for: absent fingerprints read a page in vain once in 100 lookups. */
  private static final double DEFAULT_WASTED_READS = 0.01;

  /** The smallest log BufferHash is given. */
  private static final long MIN_LOG_BYTES = 64 << 10;

  @ParentCommand Examples examples;

  @Parameters(
      paramLabel = "PATH",
      arity = "0..*",
      description = "a file, or a folder: every file under it, in name order, symbolic links not followed (default: the jars under ~/.m2/repository)")
  List<String> paths;

  @Option(names = "--min", paramLabel = "SIZE", converter = ByteSizes.Converter.class, description = "smallest chunk (default 2k)")
  Long min;

  @Option(names = "--avg", paramLabel = "SIZE", converter = ByteSizes.Converter.class, description = "average chunk, a power of two (default 8k)")
  Long avg;

  @Option(names = "--max", paramLabel = "SIZE", converter = ByteSizes.Converter.class, description = "largest chunk (default 64k)")
  Long max;

  @Option(
      names = "--index",
      paramLabel = "bufferhash|hashmap",
      defaultValue = "bufferhash",
      description = "the fingerprint index: BufferHash on disk (default), or a HashMap")
  String indexKind;

  @Option(
      names = "--log",
      paramLabel = "SIZE",
      converter = ByteSizes.Converter.class,
      description = "BufferHash's log on disk, at least 64k (default: 64 bytes per expected chunk, so that nothing is evicted); when full, its oldest fingerprints are forgotten")
  Long log;

  @Option(
      names = "--memory",
      paramLabel = "SIZE",
      converter = ByteSizes.Converter.class,
      description = "BufferHash's RAM (default: enough for 0.01 wasted reads per lookup)")
  Long memory;

  @Option(names = "--dir", paramLabel = "DIR", description = "keep the index in DIR (reopened by the next run); default: a temporary one")
  String dirOption;

  @Option(names = "--check", description = "also run a HashMap index and count the chunks the two disagree on")
  boolean check;

  @Override
  public Integer call() throws IOException {
    PrintStream out = examples.out;
    PrintStream err = examples.err;
    int min = Arguments.inRange("--min", this.min, FastCdc.DEFAULT_MIN, 1, Integer.MAX_VALUE);
    int avg = Arguments.inRange("--avg", this.avg, FastCdc.DEFAULT_AVG, 1, Integer.MAX_VALUE);
    int max = Arguments.inRange("--max", this.max, FastCdc.DEFAULT_MAX, 1, Integer.MAX_VALUE);
    if (log != null && log < MIN_LOG_BYTES) {
      throw new IllegalArgumentException("--log must be at least " + ByteSizes.show(MIN_LOG_BYTES) + ", got " + ByteSizes.show(log));
    }
    if (dirOption != null && dirOption.isEmpty()) {
      // An empty name would be the working directory: the index's files would land among the user's.
      throw new IllegalArgumentException("--dir is empty: give the index's directory, or leave --dir out");
    }
    if (memory != null && memory < 1) {
      throw new IllegalArgumentException("--memory must be at least 1 byte, got " + ByteSizes.show(memory));
    }
    FastCdc chunker = new FastCdc(min, avg, max);
    if (!indexKind.equals("bufferhash") && !indexKind.equals("hashmap")) {
      throw new IllegalArgumentException("--index must be bufferhash or hashmap, got '" + indexKind + "'");
    }
    boolean bufferHash = indexKind.equals("bufferhash");
    if (!bufferHash && (log != null || memory != null || dirOption != null)) {
      throw new IllegalArgumentException("--log, --memory and --dir are for --index bufferhash");
    }
    String what;
    List<Path> files;
    if (paths == null || paths.isEmpty()) {
      Path repository = Path.of(System.getProperty("user.home"), ".m2", "repository");
      files = files(List.of(repository), ".jar");
      what = repository + " (*.jar)";
    } else {
      List<Path> roots = new ArrayList<>();
      for (String path : paths) {
        roots.add(Path.of(path));
      }
      files = files(roots, "");
      what = String.join(" ", paths);
    }
    long totalBytes = 0;
    for (Path file : files) {
      try {
        totalBytes += Files.size(file);
      } catch (NoSuchFileException e) {
        // Gone since the listing: the run below says so when it gets there.
      }
    }
    long logBytes = log != null ? log : 0;
    long memoryBytes = memory != null ? memory : 0;
    if (bufferHash && log == null) {
      long expectedChunks = totalBytes / avg + files.size();
      logBytes = Math.max(1L << 20, roundUpToMiB(expectedChunks * DEFAULT_LOG_BYTES_PER_CHUNK));
    }
    if (bufferHash && memory == null) {
      memoryBytes = BufferHashTuning.memoryFor(logBytes, BufferHashChunkIndex.ENTRY_BYTES, DEFAULT_WASTED_READS);
    }
    Path temporary = bufferHash && dirOption == null ? Files.createTempDirectory("varve-dedup") : null;
    try (ChunkIndex index = bufferHash
            ? BufferHashChunkIndex.open(dirOption != null ? Path.of(dirOption) : temporary.resolve("index"), logBytes, memoryBytes)
            : new HashMapChunkIndex();
        ChunkIndex reference = check ? new HashMapChunkIndex() : null) {
      out.printf("varve dedup: %,d files, %s, in %s; chunks of %s min, %s average, %s max (FastCDC); SHA-1 into %s%n",
          files.size(), mib(totalBytes), what, ByteSizes.show(min), ByteSizes.show(avg), ByteSizes.show(max),
          index.description());
      if (index instanceof BufferHashChunkIndex table) {
        BufferHashTuning tuning = table.table().tuning();
        out.printf("  budgets      log %s on disk, RAM %s: %,d super tables of %s buffers, %.1f Bloom bits per fingerprint"
                + " (room for %,d fingerprints)%n",
            mib(tuning.logBytes()), mib(tuning.memoryBytes()), tuning.superTables(), mib(tuning.bufferBytes()),
            tuning.bloomBitsPerKey(), tuning.capacityEntries());
      }
      boolean terminal = System.console() != null && err == System.err;
      long start = System.nanoTime();
      Deduplicator dedup = new Deduplicator(chunker, index, reference)
          .progress(stats -> progress(stats, files.size(), start, terminal, err), terminal ? TERMINAL_INTERVAL_NANOS : LOG_INTERVAL_NANOS);
      long skipped = 0;
      for (Path file : files) {
        try (InputStream in = Files.newInputStream(file)) {
          dedup.add(in);
        } catch (NoSuchFileException | AccessDeniedException e) {
          // Gone since the listing, or not ours to read: the other files still make a run.
          err.println("varve dedup: skipped " + file + ": " + (e instanceof NoSuchFileException ? "gone" : "permission denied"));
          skipped++;
        }
      }
      long nanos = System.nanoTime() - start;
      if (terminal) {
        err.print("\r" + " ".repeat(100) + "\r");
      }
      report(dedup.stats(), skipped, nanos, index, reference, out);
    } finally {
      FileTrees.deleteTree(temporary);
    }
    return 0;
  }

  private static long roundUpToMiB(long bytes) {
    return (bytes + (1 << 20) - 1) & -(1L << 20);
  }

  /**
   * The regular files under {@code roots} (a root that is a file is itself), whose names end with
   * {@code suffix}, each root's in name order. Symbolic links are not followed: a linked file would
   * be counted twice, as redundancy that no transfer would hold.
   */
  static List<Path> files(List<Path> roots, String suffix) throws IOException {
    List<Path> files = new ArrayList<>();
    for (Path root : roots) {
      if (!Files.exists(root, LinkOption.NOFOLLOW_LINKS)) {
        throw new NoSuchFileException(root.toString());
      }
      try (Stream<Path> walk = Files.walk(root)) {
        walk.filter(p -> Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS))
            .filter(p -> p.getFileName().toString().endsWith(suffix))
            .sorted()
            .forEach(files::add);
      }
    }
    return files;
  }

  private static void progress(DedupStats stats, int totalFiles, long start, boolean terminal, PrintStream err) {
    double seconds = (System.nanoTime() - start) / 1e9;
    String line = String.format("dedup: %,d/%,d files, %s seen, %.2f%% redundant, %,.0f chunks/s, %.1f MB/s, %.0f s",
        stats.files(), totalFiles, mib(stats.bytes()), 100 * stats.redundancy(), stats.chunks() / seconds,
        stats.bytes() / 1e6 / seconds, seconds);
    if (terminal) {
      err.print("\r" + line + "   ");
      err.flush();
    } else {
      err.println(line);
    }
  }

  private static void report(DedupStats stats, long skipped, long nanos, ChunkIndex index, ChunkIndex reference, PrintStream out) {
    double seconds = Math.max(1e-9, nanos / 1e9);
    out.printf("  seen         %,d bytes (%s) in %,d files%s, %,d chunks (%,.0f bytes on average)%n",
        stats.bytes(), mib(stats.bytes()), stats.files(), skipped == 0 ? "" : String.format(" (%,d skipped)", skipped),
        stats.chunks(), stats.chunks() == 0 ? 0.0 : stats.bytes() / (double) stats.chunks());
    out.printf("  redundancy   %.2f%% of bytes: %,d bytes in %,d chunks seen before%n",
        100 * stats.redundancy(), stats.duplicateBytes(), stats.duplicateChunks());
    out.printf("  speed        %.2f s: %,.0f chunks/s, %.1f MB/s (read, chunk, SHA-1, look up, record)%n",
        seconds, stats.chunks() / seconds, stats.bytes() / 1e6 / seconds);
    long fingerprints = stats.chunks() - stats.duplicateChunks();
    long ram = index.ramBytes();
    long disk = index.diskBytes();
    if (index instanceof BufferHashChunkIndex table) {
      out.printf("  index        %,d fingerprints; RAM %s (%.1f bytes per fingerprint) against %s of log on disk: %s%n",
          fingerprints, mib(ram), ram / (double) Math.max(1, fingerprints), mib(disk),
          disk == 0 ? "nothing on disk yet" : String.format("RAM is %.3f of the index's size", ram / (double) disk));
      BufferHash bufferHash = table.table();
      BufferHashStats counters = bufferHash.stats();
      long[] histogram = counters.readsPerLookup();
      long lookups = Math.max(1, counters.lookups());
      StringBuilder distribution = new StringBuilder();
      for (int reads = 0; reads < histogram.length; reads++) {
        if (histogram[reads] != 0) {
          distribution.append(String.format("%s%d%s: %.4f", distribution.length() == 0 ? "" : ", ", reads,
              reads == histogram.length - 1 ? "+" : "", histogram[reads] / (double) lookups));
        }
      }
      out.printf("  lookups      %,d, %.4f SSD reads each (lookups making 0, 1, ... reads: %s); %,d flushes, %,d incarnations evicted%n",
          counters.lookups(), counters.flashReads() / (double) lookups, distribution, counters.flushes(),
          counters.evictedIncarnations());
    } else {
      out.printf("  index        %s: %,d fingerprints; RAM %s (estimated), nothing on disk%n", index.description(), fingerprints, mib(ram));
    }
    if (reference != null) {
      out.printf("  check        %s: redundancy %.2f%% (%,d bytes); %,d chunks seen by one index only, %,d at other addresses%n",
          reference.description(), 100 * stats.referenceRedundancy(), stats.referenceDuplicateBytes(),
          stats.disagreements(), stats.wrongAddresses());
    }
  }

  /** {@code 138.2 MiB}: a byte count for people. */
  static String mib(long bytes) {
    if (bytes < 1 << 20) {
      return String.format("%.1f KiB", bytes / 1024.0);
    }
    return bytes < 1L << 30 ? String.format("%.1f MiB", bytes / (double) (1 << 20)) : String.format("%.2f GiB", bytes / (double) (1L << 30));
  }
}
