package io.varve.benchmarks;

import io.varve.builder.StoreArtifacts;
import io.varve.builder.StoreBuilder;
import io.varve.core.blocked.BlockedIndexParameters;
import io.varve.core.ect.EctParameters;
import io.varve.core.index.IndexKind;
import io.varve.core.index.IndexParameters;
import io.varve.core.store.PageCacheWrites;
import io.varve.core.store.PagedParameters;
import io.varve.reader.DataAccess;
import io.varve.reader.Store;
import io.varve.reader.StoreStats;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * {@link Store#get} of member keys with the page cache warm: {@code keys} records of 8-byte keys
 * and 8-byte values (fixed-size, so no offsets file), looked up in a random order. Run with
 * {@code -t 1} and {@code -t 2} for one and two threads; the score is operations per second per
 * run, divide by the thread count for the rate per thread.
 *
 * <pre>
 * java -jar benchmarks/target/benchmarks.jar StoreLookupBenchmark -t 1
 * java -jar benchmarks/target/benchmarks.jar StoreLookupBenchmark -t 2
 * </pre>
 *
 * {@code get} is one lookup per call; {@code getAll} a multi-get of {@value #BATCH} keys, scored
 * per key. {@code -p index=blocked,ect} compares the two dense indexes in one run; {@code -p
 * blockBytes=4096} measures a sparse index instead (a lookup searches a block);
 * {@code -p access=LOADED} a store loaded into memory ({@link Store#load}); {@code -p
 * recordChecksums=true,false} stores with and without record checksums.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms3g", "-Xmx3g", "-XX:+UseParallelGC",
    "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
    "--add-exports=java.base/sun.nio.ch=ALL-UNNAMED",
    "--add-exports=java.base/jdk.internal.ref=ALL-UNNAMED"})
public class StoreLookupBenchmark {
  /** The number of records. */
  @Param("10000000")
  public int keys;

  /**
   * The dense index: {@code blocked} (the builder's default; {@link #keysPerBlock}), {@code ect}
   * ({@link #bucketSize}, {@link #skipLevels}) or {@code paged} (pages and their table, for
   * variable-size {@link #values}).
   */
  @Param("blocked")
  public String index = "blocked";

  /** Keys per block of a blocked index. */
  @Param("300")
  public int keysPerBlock = 300;

  /** {@code g} of an ECT index. */
  @Param("64")
  public int bucketSize;

  /** Skip levels of an ECT index. */
  @Param("3")
  public int skipLevels;

  /**
   * 0 for a dense index; else the block size of a sparse one (built with g = 1024 and no skip
   * lengths, {@code StoreReindexer.DEFAULT_SPARSE_INDEX}, whatever {@link #bucketSize} says).
   */
  @Param("0")
  public int blockBytes;

  /**
   * How the store reaches its records: {@code MAPPED} ({@link Store#open}, the page cache warm) or
   * {@code LOADED} ({@link Store#load}, copied into memory in huge pages).
   */
  @Param("MAPPED")
  public DataAccess access;

  /**
   * How the builder writes the data file: {@code SMALL} (the default, 64 KiB writes) or {@code
   * HUGE_PAGES} (2 MiB writes, so that the mapping of this host's page cache gets huge pages; see
   * {@link PageCacheWrites}).
   */
  @Param("SMALL")
  public PageCacheWrites dataWrites = PageCacheWrites.SMALL;

  /**
   * Whether records end with checksums that every lookup checks (the builder's default), or not
   * ({@code -p recordChecksums=true,false} measures what the checks cost).
   */
  @Param("true")
  public boolean recordChecksums = true;

  /**
   * Whether the store is read from a one-file artifact ({@code store.varve}, packed from the
   * directory and mapped in place) instead of its directory: {@code -p artifact=false,true} compares
   * the two in one run, and the setup prints both open times.
   */
  @Param("false")
  public boolean artifact;

  Path directory;
  Store store;
  /** Member keys in lookup order. */
  byte[][] queries;
  /** The record number of each query (for tests: the value is {@link #value} of it). */
  long[] queryIds;
  /** Keys of no record ({@link #key} of numbers past the last record), in lookup order. */
  byte[][] absentQueries;

  /** The key of record {@code i}: 8 bytes derived from {@code i}. */
  static byte[] key(long i) {
    long mixed = i * 0x9E3779B97F4A7C15L;
    byte[] key = new byte[8];
    for (int j = 0; j < 8; j++) {
      key[j] = (byte) (mixed >>> (8 * j));
    }
    return key;
  }

  /** The value of record {@code i}: its number, 8 bytes little-endian. */
  static byte[] value(long i) {
    return value(i, 8, 8);
  }

  /**
   * The value of record {@code i} with lengths from {@code min} to {@code max} bytes: its number
   * little-endian, repeated, over a length that {@code i} determines.
   */
  static byte[] value(long i, int min, int max) {
    int length = min + (int) Long.remainderUnsigned(i * 0xC2B2AE3D27D4EB4FL, max - min + 1);
    byte[] value = new byte[length];
    for (int j = 0; j < length; j++) {
      value[j] = (byte) (i >>> (8 * (j % 8)));
    }
    return value;
  }

  /**
   * Value lengths: {@code 8} (every value 8 bytes: fixed-size records, no offsets file) or a range
   * such as {@code 4-36} (variable-size records, found through the offsets).
   */
  @Param("8")
  public String values = "8";

  /** The value of record {@code i} as {@link #values} says. */
  byte[] valueOf(long i) {
    String[] range = values.split("-");
    return value(i, Integer.parseInt(range[0]), Integer.parseInt(range[range.length - 1]));
  }

  @Setup(Level.Trial)
  public void setup() throws IOException {
    directory = Files.createTempDirectory("varve-lookup-bench").resolve("store");
    long start = System.nanoTime();
    StoreBuilder configured =
        blockBytes == 0
            ? StoreBuilder.create(directory).indexParameters(denseIndex())
            : StoreBuilder.create(directory).sparseIndex(blockBytes);
    try (StoreBuilder builder = configured.dataWrites(dataWrites).recordChecksums(recordChecksums)) {
      for (long i = 0; i < keys; i++) {
        builder.put(key(i), valueOf(i));
      }
      builder.build();
    }
    Path opened = directory;
    if (artifact) {
      opened = directory.resolveSibling("store.varve");
      StoreArtifacts.pack(directory, opened);
      System.out.printf("%n[open] directory %.3f ms, artifact %.3f ms (median of 9 warm opens)%n",
          medianOpenMillis(directory), medianOpenMillis(opened));
    }
    store = Store.open(opened, access);
    // Read the data once so that the page cache is warm.
    store.verify();
    SplittableRandom random = new SplittableRandom(BenchmarkData.LOOKUP_SEED);
    queries = new byte[BenchmarkData.MAX_LOOKUPS][];
    queryIds = new long[queries.length];
    for (int i = 0; i < queries.length; i++) {
      queryIds[i] = random.nextInt(keys);
      queries[i] = key(queryIds[i]);
    }
    absentQueries = new byte[queries.length][];
    for (int i = 0; i < absentQueries.length; i++) {
      absentQueries[i] = key(keys + (long) i);
    }
    StoreStats stats = store.stats();
    System.out.printf(
        "%n[space] store %s n=%d %s, record checksums %s: index %.3f bits/key (ECT tries %.3f + directory %.3f), offsets %.3f bits/key,"
            + " heap %.3f bits/key; built and verified in %.1f s%n",
        blockBytes == 0 ? denseIndex() : "sparse " + blockBytes,
        keys,
        access,
        recordChecksums,
        stats.indexBitsPerKey(),
        stats.trieBits() / (double) keys,
        stats.directoryBits() / (double) keys,
        stats.offsetsBitsPerKey(),
        stats.memoryBitsPerKey(),
        (System.nanoTime() - start) / 1e9);
  }

  /** The median time of 9 opens (and closes) of {@code path}, after one to warm the page cache. */
  private double medianOpenMillis(Path path) throws IOException {
    Store.open(path, access).close();
    double[] millis = new double[9];
    for (int i = 0; i < millis.length; i++) {
      long start = System.nanoTime();
      Store.open(path, access).close();
      millis[i] = (System.nanoTime() - start) / 1e6;
    }
    java.util.Arrays.sort(millis);
    return millis[millis.length / 2];
  }

  IndexParameters denseIndex() {
    return switch (IndexKind.fromLabel(index)) {
      case BLOCKED -> new BlockedIndexParameters(keysPerBlock);
      case ECT -> new EctParameters(bucketSize, 64, skipLevels);
      case PAGED -> PagedParameters.INSTANCE;
    };
  }

  /** Each thread walks the lookup order from its own starting point. */
  @State(Scope.Thread)
  public static class Cursor {
    int next;

    @Setup(Level.Trial)
    public void setup() {
      next = (int) (Thread.currentThread().getId() * 7919 % BenchmarkData.MAX_LOOKUPS);
    }
  }

  /** One lookup of a member key. */
  @Benchmark
  public byte[] get(Cursor cursor) {
    byte[] value = store.get(queries[cursor.next]);
    cursor.next = BenchmarkData.nextLookup(cursor.next, queries.length);
    return value;
  }

  /**
   * One lookup of an absent key (null): a blocked index turns a third of them away without reading
   * a record (their sub-range is empty); the others, and every one with an ECT index, read the
   * record the index names and compare its key.
   */
  @Benchmark
  public byte[] getAbsent(Cursor cursor) {
    byte[] value = store.get(absentQueries[cursor.next]);
    cursor.next = BenchmarkData.nextLookup(cursor.next, absentQueries.length);
    return value;
  }

  /** Keys per {@link #getAll} call. */
  static final int BATCH = 256;

  /** Where each thread's {@link #getAll} writes its values. */
  @State(Scope.Thread)
  public static class Batch {
    final byte[][] keys = new byte[BATCH][];
    final byte[][] values = new byte[BATCH][];
  }

  /**
   * {@link Store#getAll} of the next {@value #BATCH} keys of the lookup order; the score is per
   * key (a multi-get, for bulk work: joins, batched requests).
   */
  @Benchmark
  @OperationsPerInvocation(BATCH)
  public byte[][] getAll(Cursor cursor, Batch batch) {
    int next = cursor.next;
    for (int i = 0; i < BATCH; i++) {
      batch.keys[i] = queries[next];
      next = BenchmarkData.nextLookup(next, queries.length);
    }
    cursor.next = next;
    store.getAll(batch.keys, batch.values);
    return batch.values;
  }

  @TearDown(Level.Trial)
  public void tearDown() throws IOException {
    store.close();
    try (Stream<Path> files = Files.walk(directory.getParent())) {
      for (Path p : (Iterable<Path>) files.sorted(Comparator.reverseOrder())::iterator) {
        Files.delete(p);
      }
    }
  }
}
