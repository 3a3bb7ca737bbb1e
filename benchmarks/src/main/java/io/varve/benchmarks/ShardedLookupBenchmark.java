package io.varve.benchmarks;

import io.varve.builder.ShardedStoreBuilder;
import io.varve.builder.StoreBuilder;
import io.varve.core.files.FileTrees;
import io.varve.reader.ShardedStore;
import io.varve.reader.Store;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
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
 * {@link ShardedStore#get} against {@link Store#get} on the same records, page cache warm: each
 * trial builds one store with {@link StoreBuilder} and one sharded store of {@link #shards} shards
 * with {@link ShardedStoreBuilder} (both with the builder's defaults) from the records of {@link
 * StoreLookupBenchmark} ({@code keys} records of 8-byte keys and 8-byte values), opens both (mapped)
 * and looks up the same member keys in the same random order ({@link BenchmarkData#LOOKUP_SEED})
 * in each. {@code store*} and {@code sharded*} measure in the same JVM with both stores open, so
 * their scores at one {@code shards} are a ratio (the goal: sharded at 0.95 or more of the store).
 *
 * <pre>
 * java -jar benchmarks/target/benchmarks.jar ShardedLookupBenchmark -t 1
 * java -jar benchmarks/target/benchmarks.jar ShardedLookupBenchmark -t 2
 * </pre>
 *
 * {@code shards=1} measures the wrapper alone (routing, and the hash the route computes passed on
 * to the shard); 8 and 64 spread the same records over that many stores. {@code *GetAll} is
 * the multi-get of {@value StoreLookupBenchmark#BATCH} keys, scored per key. (Not named
 * ShardedStoreLookupBenchmark: JMH's pattern {@code StoreLookupBenchmark} would match it too.)
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
public class ShardedLookupBenchmark {
  /** The number of records (as {@link StoreLookupBenchmark#keys}). */
  @Param("10000000")
  public int keys;

  /** The shard count of the sharded store. */
  @Param({"1", "8", "64"})
  public int shards;

  /** The temporary directory of both stores. */
  Path directory;
  Store store;
  ShardedStore sharded;
  /** Member keys in lookup order (as {@link StoreLookupBenchmark}'s). */
  byte[][] queries;
  /** The record number of each query: its value is {@link StoreLookupBenchmark#value(long)} of it. */
  long[] queryIds;

  @Setup(Level.Trial)
  public void setup() throws IOException {
    directory = Files.createTempDirectory("varve-sharded-lookup-bench");
    long start = System.nanoTime();
    try (StoreBuilder builder = StoreBuilder.create(directory.resolve("store"))) {
      for (long i = 0; i < keys; i++) {
        builder.put(StoreLookupBenchmark.key(i), StoreLookupBenchmark.value(i));
      }
      builder.build();
    }
    long single = System.nanoTime();
    try (ShardedStoreBuilder builder = ShardedStoreBuilder.create(directory.resolve("sharded"), shards)) {
      for (long i = 0; i < keys; i++) {
        builder.put(StoreLookupBenchmark.key(i), StoreLookupBenchmark.value(i));
      }
      builder.build();
    }
    long built = System.nanoTime();
    store = Store.open(directory.resolve("store"));
    sharded = ShardedStore.open(directory.resolve("sharded"));
    // Read every byte of both once, so that the page cache is warm for each.
    store.verify();
    sharded.verify();
    SplittableRandom random = new SplittableRandom(BenchmarkData.LOOKUP_SEED);
    queries = new byte[BenchmarkData.MAX_LOOKUPS][];
    queryIds = new long[queries.length];
    for (int i = 0; i < queries.length; i++) {
      queryIds[i] = random.nextInt(keys);
      queries[i] = StoreLookupBenchmark.key(queryIds[i]);
    }
    System.out.printf("%n[build] n=%d: store %.1f s, %d shards %.1f s; index %.3f bits/key (store), %.3f (sharded)%n",
        keys, (single - start) / 1e9, shards, (built - single) / 1e9,
        store.stats().indexBitsPerKey(), sharded.stats().indexBitsPerKey());
  }

  /** One {@link Store#get} of a member key. */
  @Benchmark
  public byte[] storeGet(StoreLookupBenchmark.Cursor cursor) {
    byte[] value = store.get(queries[cursor.next]);
    cursor.next = BenchmarkData.nextLookup(cursor.next, queries.length);
    return value;
  }

  /** One {@link ShardedStore#get} of the same member key. */
  @Benchmark
  public byte[] shardedGet(StoreLookupBenchmark.Cursor cursor) {
    byte[] value = sharded.get(queries[cursor.next]);
    cursor.next = BenchmarkData.nextLookup(cursor.next, queries.length);
    return value;
  }

  /** {@link Store#getAll} of the next {@value StoreLookupBenchmark#BATCH} keys; scored per key. */
  @Benchmark
  @OperationsPerInvocation(StoreLookupBenchmark.BATCH)
  public byte[][] storeGetAll(StoreLookupBenchmark.Cursor cursor, StoreLookupBenchmark.Batch batch) {
    nextBatch(cursor, batch);
    store.getAll(batch.keys, batch.values);
    return batch.values;
  }

  /** {@link ShardedStore#getAll} of the same keys; scored per key. */
  @Benchmark
  @OperationsPerInvocation(StoreLookupBenchmark.BATCH)
  public byte[][] shardedGetAll(StoreLookupBenchmark.Cursor cursor, StoreLookupBenchmark.Batch batch) {
    nextBatch(cursor, batch);
    sharded.getAll(batch.keys, batch.values);
    return batch.values;
  }

  private void nextBatch(StoreLookupBenchmark.Cursor cursor, StoreLookupBenchmark.Batch batch) {
    int next = cursor.next;
    for (int i = 0; i < StoreLookupBenchmark.BATCH; i++) {
      batch.keys[i] = queries[next];
      next = BenchmarkData.nextLookup(next, queries.length);
    }
    cursor.next = next;
  }

  @TearDown(Level.Trial)
  public void tearDown() throws IOException {
    try {
      if (store != null) {
        store.close();
      }
      if (sharded != null) {
        sharded.close();
      }
    } finally {
      FileTrees.deleteTree(directory);
    }
  }
}
