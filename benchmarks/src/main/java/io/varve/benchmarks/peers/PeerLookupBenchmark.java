package io.varve.benchmarks.peers;

import io.varve.core.files.FileTrees;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
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
 * Warm random lookups of member keys in one system's store, the same for every system: the key
 * bytes are made before the measurement ({@value #QUERIES} random members, cycled through), each
 * operation is one {@code get} returning the value as a new array. The setup reads every file of
 * the store once, so that all of it is in the page cache. Readers that are not
 * thread-safe (PalDB) get one reader per thread. Run with {@code -t 1} and {@code -t 2}; the score
 * is lookups per second of all threads together.
 *
 * <pre>
 * java -jar benchmarks/target/benchmarks.jar PeerLookupBenchmark -p system=Sparkey \
 *     -p dataset=synthetic:8:8:10000000 -p directory=/tmp/stores/sparkey -t 1
 * </pre>
 *
 * With an empty {@code directory} the setup builds the store in a temporary directory (and deletes
 * it afterwards); {@link PeerComparison} passes the store it built and measured.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(value = 1, jvmArgsAppend = {PeerJvmOptions.HEAP, PeerJvmOptions.GC, PeerJvmOptions.OPEN_REFLECT,
    PeerJvmOptions.EXPORT_NIO_CH, PeerJvmOptions.EXPORT_REF, PeerJvmOptions.OPEN_IO, PeerJvmOptions.OPEN_NIO,
    PeerJvmOptions.OPEN_NIO_CH, PeerJvmOptions.NATIVE})
public class PeerLookupBenchmark {
  /** Member keys prepared per run; a power of two. */
  static final int QUERIES = 1 << 20;

  /** The system (see {@link Peers}). */
  @Param("Varve")
  public String system;

  /** The dataset spec (see {@link Dataset}). */
  @Param("synthetic:8:8:100000")
  public String dataset;

  /** The store directory, or empty to build one. */
  @Param("")
  public String directory;

  Peer.Reader reader;
  RecordSet records;
  byte[][] queries;
  long[] queryMembers;
  private Path built;
  private final AtomicInteger threadsSeen = new AtomicInteger();

  @Setup(Level.Trial)
  public void open() throws Exception {
    Peer peer = Peers.byName(system);
    records = Dataset.parse(dataset).base();
    Path dir;
    if (directory.isEmpty()) {
      built = Files.createTempDirectory("varve-peer-bench");
      dir = built.resolve("store");
      peer.build(records, dir);
    } else {
      dir = Path.of(directory);
    }
    readThrough(dir); // warm means cached: some writers (RocksDB's SstFileWriter) drop what they wrote from the cache
    reader = peer.open(dir);
    int count = (int) Math.min(QUERIES, Integer.highestOneBit((int) Math.min(Integer.MAX_VALUE, Math.max(1, records.size()))) * 2L);
    queries = new byte[count][];
    queryMembers = new long[count];
    SplittableRandom random = new SplittableRandom(PeerTask.SEED);
    for (int q = 0; q < count; q++) {
      queryMembers[q] = random.nextLong(records.size());
      queries[q] = records.key(queryMembers[q]);
    }
  }

  private static void readThrough(Path dir) throws java.io.IOException {
    try (java.util.stream.Stream<Path> files = Files.walk(dir)) {
      for (Path file : (Iterable<Path>) files.filter(Files::isRegularFile)::iterator) {
        PeerTask.readThrough(new Peer.FileRange(file, 0, Files.size(file)));
      }
    }
  }

  @TearDown(Level.Trial)
  public void close() throws Exception {
    reader.close();
    if (built != null) {
      io.varve.core.files.FileTrees.deleteTree(built);
    }
  }

  /** One thread's reader and position in the queries. */
  @State(Scope.Thread)
  public static class ThreadReader {
    Peer.Reader reader;
    int next;
    private boolean own;

    @Setup(Level.Trial)
    public void open(PeerLookupBenchmark benchmark) throws Exception {
      reader = benchmark.reader.forAnotherThread();
      own = reader != benchmark.reader;
      next = benchmark.threadsSeen.getAndIncrement() * 7919;
    }

    @TearDown(Level.Trial)
    public void close() {
      if (own) {
        reader.close();
      }
    }
  }

  @Benchmark
  public byte[] get(ThreadReader thread) throws Exception {
    return thread.reader.get(queries[thread.next++ & (queries.length - 1)]);
  }
}
