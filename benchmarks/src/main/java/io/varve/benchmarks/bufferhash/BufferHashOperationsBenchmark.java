package io.varve.benchmarks.bufferhash;

import io.varve.bufferhash.BufferHash;
import io.varve.core.files.FileTrees;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * BufferHash's CPU cost per operation, grouped by operation, on {@link Fingerprints} records (20-byte
 * keys, 8-byte values) with the log in the page cache, so that no lookup waits for the device:
 * what is left is hashing, the buffers, the filters, the {@code pread} of a page and the check and
 * scan of the unit read. The device-bound rates are {@link BufferHashComparison}'s.
 *
 * <pre>
 * java -jar benchmarks/target/benchmarks.jar BufferHashOperationsBenchmark
 * java -jar benchmarks/target/benchmarks.jar BufferHashOperationsBenchmark -prof stack
 * </pre>
 *
 * {@code put} inserts new records into a full log, so every flush also evicts (the steady state
 * of a cache); {@code getPresent} looks up records of the data set, almost all of them in the
 * log; {@code getAbsent} keys never inserted. Not thread-safe (JMH gives each trial its state).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g", "-XX:+UseParallelGC"})
public class BufferHashOperationsBenchmark {
  /** Records loaded before the measurements. */
  @Param("2000000")
  public int records;

  /** RAM per record given to the table, in bytes (the target is 2). */
  @Param("2")
  public double bytesPerRecord = 2;

  Path directory;
  BufferHash table;
  private final byte[][] presentKeys = new byte[1 << 16][];
  private final long[] presentIndexes = new long[presentKeys.length];
  private final byte[][] absentKeys = new byte[1 << 16][];
  private final byte[] newKey = new byte[Fingerprints.KEY_BYTES];
  private final byte[] newValue = new byte[Fingerprints.VALUE_BYTES];
  private long nextNew;
  private int nextQuery;

  @Setup(Level.Trial)
  public void setup() throws IOException {
    directory = Files.createTempDirectory("varve-bufferhash-ops");
    // A log with room for the records and a fifth more, as BufferHashComparison gives it.
    long logBytes = Math.max(1L << 20, (long) (1.2 * records * Fingerprints.RECORD_BYTES));
    table = BufferHash.builder(directory)
        .logBytes(logBytes)
        .memoryBytes((long) (bytesPerRecord * records))
        .entryBytes(Fingerprints.RECORD_BYTES)
        .open();
    byte[] key = new byte[Fingerprints.KEY_BYTES];
    for (long i = 0; i < records; i++) {
      Fingerprints.key(i, key);
      table.put(key, Fingerprints.value(i));
    }
    Fingerprints.Lookups present = new Fingerprints.Lookups(records, 1.0, 42);
    Fingerprints.Lookups absent = new Fingerprints.Lookups(records, 0.0, 43);
    for (int i = 0; i < presentKeys.length; i++) {
      presentIndexes[i] = present.next();
      presentKeys[i] = Fingerprints.key(presentIndexes[i]);
      absentKeys[i] = Fingerprints.key(absent.next());
    }
    nextNew = records;
  }

  @TearDown(Level.Trial)
  public void tearDown() throws IOException {
    table.close();
    FileTrees.deleteTree(directory);
  }

  /** The index of the record {@link #getPresent} looks up next. */
  long nextPresentIndex() {
    return presentIndexes[nextQuery & (presentKeys.length - 1)];
  }

  @Benchmark
  public byte[] getPresent() {
    return table.get(presentKeys[nextQuery++ & (presentKeys.length - 1)]);
  }

  @Benchmark
  public byte[] getAbsent() {
    return table.get(absentKeys[nextQuery++ & (absentKeys.length - 1)]);
  }

  @Benchmark
  public void put() {
    long index = nextNew++;
    Fingerprints.key(index, newKey);
    for (int i = 0; i < newValue.length; i++) {
      newValue[i] = (byte) (index >>> (56 - 8 * i));
    }
    table.put(newKey, newValue);
  }
}
