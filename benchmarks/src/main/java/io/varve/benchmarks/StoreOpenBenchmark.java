package io.varve.benchmarks;

import io.varve.builder.StoreArtifacts;
import io.varve.builder.StoreBuilder;
import io.varve.core.files.FileTrees;
import io.varve.reader.DataAccess;
import io.varve.reader.Store;
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
 * How long {@link Store#open} takes on a one-file artifact ({@code store.varve}, mapped in place)
 * against the same store's directory: each trial builds the records of {@link
 * StoreLookupBenchmark} ({@code keys} records of 8 + 8 bytes) once and packs them; every
 * invocation is one fresh open of one of the two, timed alone ({@link Mode#SingleShotTime}; the
 * store is closed after the clock stops). The page cache is warm (the files were just written and
 * are read by every open): this is the open's own work, validating sizes and reading and
 * checksumming the index and meta, not disk reads.
 *
 * <pre>
 * java -jar benchmarks/target/benchmarks.jar StoreOpenBenchmark
 * </pre>
 *
 * {@code -p access=MAPPED,LOADED} adds {@link Store#load} (which also copies the records into
 * memory). Lookups on either, warm: {@code StoreLookupBenchmark.get -p artifact=false,true}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 10)
@Measurement(iterations = 40)
@Fork(value = 1, jvmArgsAppend = {"-Xms3g", "-Xmx3g", "-XX:+UseParallelGC",
    "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
    "--add-exports=java.base/sun.nio.ch=ALL-UNNAMED",
    "--add-exports=java.base/jdk.internal.ref=ALL-UNNAMED"})
public class StoreOpenBenchmark {
  /** The number of records (as {@link StoreLookupBenchmark#keys}). */
  @Param("10000000")
  public int keys;

  /** {@code MAPPED} ({@link Store#open}) or {@code LOADED} ({@link Store#load}). */
  @Param("MAPPED")
  public DataAccess access;

  /** The temporary directory holding the store directory and its artifact. */
  Path directory;
  /** The store's directory. */
  Path storeDirectory;
  /** The same store packed as one file. */
  Path artifact;
  /** The store the last invocation opened, closed after it. */
  Store opened;

  @Setup(Level.Trial)
  public void setup() throws IOException {
    directory = Files.createTempDirectory("varve-open-bench");
    storeDirectory = directory.resolve("store");
    artifact = directory.resolve("store.varve");
    try (StoreBuilder builder = StoreBuilder.create(storeDirectory)) {
      for (long i = 0; i < keys; i++) {
        builder.put(StoreLookupBenchmark.key(i), StoreLookupBenchmark.value(i));
      }
      builder.build();
    }
    StoreArtifacts.pack(storeDirectory, artifact);
    System.out.printf("%n[files] n=%d: directory %,d bytes, artifact %,d bytes%n",
        keys, WorkDirectory.treeBytes(storeDirectory), Files.size(artifact));
  }

  /** Opens the store's directory. */
  @Benchmark
  public Store openDirectory() throws IOException {
    opened = Store.open(storeDirectory, access);
    return opened;
  }

  /** Opens the artifact, in place. */
  @Benchmark
  public Store openArtifact() throws IOException {
    opened = Store.open(artifact, access);
    return opened;
  }

  /** Closes what the invocation opened, outside the measured time. */
  @TearDown(Level.Invocation)
  public void closeOpened() {
    if (opened != null) {
      opened.close();
      opened = null;
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() throws IOException {
    closeOpened();
    FileTrees.deleteTree(directory);
  }
}
