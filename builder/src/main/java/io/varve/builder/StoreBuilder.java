package io.varve.builder;

import io.varve.core.ect.EctParameters;
import io.varve.core.store.RecordFormat;
import io.varve.core.store.StoreMeta;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.LongFunction;
import java.util.stream.Stream;

/**
 * Builds a store directory from records given in any order, in bounded memory.
 *
 * <pre>{@code
 * try (StoreBuilder builder = StoreBuilder.create(Path.of("/data/stores/2026-11-22"))
 *     .memoryBudget(256L << 20)
 *     .duplicates(DuplicatePolicy.LAST_WINS)) {
 *   for (Row row : rows) {
 *     builder.put(row.key(), row.value());
 *   }
 *   BuildSummary summary = builder.build();   // the directory appears, complete, only now
 * }
 * }</pre>
 *
 * <p>How it works: each key is hashed (seeded XXH3-128) and its record copied into an in-memory
 * buffer. When the buffer reaches half the memory budget, a background thread sorts it into hash
 * order and writes it to a temporary directory as a sorted run, while {@code put} fills the other
 * half. {@link #build()} merges the runs and the last buffer in one sequential pass that writes
 * the {@code data} file and builds the offsets and the ECT index as the records stream out, then
 * writes them and the {@code meta} file into a staging directory, forces everything to disk and
 * renames the staging directory to the target: readers see a complete store or none.
 *
 * <p>Duplicate keys follow {@link #duplicates(DuplicatePolicy)}. Two distinct keys with the same
 * 128-bit hash (expected about once in 2^64 builds of 2^32 keys) make the build rehash every record
 * with the next seed, which the meta file records. Temporary files are deleted when the build
 * ends, also when it fails, and by {@link #close()}.
 *
 * <p>Memory: the budget bounds the record buffers (record bytes plus 48 bytes per record); the
 * merge adds a read buffer per run and, until the end, the offsets and the index (a few bits per
 * record). A single record larger than the budget is still accepted, alone in its buffer.
 *
 * <p>Not thread-safe: one thread calls {@code put} and {@code build}.
 */
public final class StoreBuilder implements Closeable {
  /** The default memory budget: 256 MiB. */
  public static final long DEFAULT_MEMORY_BUDGET = 256L << 20;

  /** The smallest memory budget accepted: 2 MiB. */
  public static final long MIN_MEMORY_BUDGET = 2L << 20;

  /** The default index parameters: {@code g = 64, hmax = 64}, skip lengths on 3 levels. */
  public static final EctParameters DEFAULT_INDEX = new EctParameters(64, 64, 3);

  /** The most runs one merge reads at once; more are first merged in groups. */
  static final int MAX_MERGE_FAN_IN = 128;

  private static final int MAX_SEED_ATTEMPTS = 8;
  private static final long PROGRESS_INTERVAL = 1 << 20;

  private final Path target;
  private long memoryBudget = DEFAULT_MEMORY_BUDGET;
  private DuplicatePolicy duplicatePolicy = DuplicatePolicy.FAIL;
  private EctParameters indexParameters = DEFAULT_INDEX;
  private long seed;
  private Path temporaryParent;
  private BuildListener listener = BuildListener.NONE;
  private final SortedMap<String, String> metadata = new TreeMap<>();
  private LongFunction<RecordHasher> hashers = RecordHasher::xxh3;

  private Pipeline pipeline;
  private long recordsPut;
  private int minKeyLength = Integer.MAX_VALUE;
  private int maxKeyLength = -1;
  private int minValueLength = Integer.MAX_VALUE;
  private int maxValueLength = -1;
  private long startNanos;
  private boolean built;
  private boolean closed;

  private StoreBuilder(Path target) {
    this.target = target.toAbsolutePath().normalize();
  }

  /**
   * Starts a build of a store at {@code directory}, which must not exist yet (its parent must).
   *
   * @throws FileAlreadyExistsException if {@code directory} exists
   * @throws NoSuchFileException if its parent directory does not exist
   */
  public static StoreBuilder create(Path directory) throws IOException {
    StoreBuilder builder = new StoreBuilder(directory);
    builder.checkTarget();
    return builder;
  }

  /** Bytes of memory for record buffers (default {@value #DEFAULT_MEMORY_BUDGET}, at least 2 MiB). */
  public StoreBuilder memoryBudget(long bytes) {
    checkConfigurable();
    if (bytes < MIN_MEMORY_BUDGET) {
      throw new IllegalArgumentException("memory budget must be at least " + MIN_MEMORY_BUDGET + " bytes: " + bytes);
    }
    this.memoryBudget = bytes;
    return this;
  }

  /** What to do with repeated keys (default {@link DuplicatePolicy#FAIL}). */
  public StoreBuilder duplicates(DuplicatePolicy policy) {
    checkConfigurable();
    this.duplicatePolicy = Objects.requireNonNull(policy, "policy");
    return this;
  }

  /** The ECT index knobs (default {@link #DEFAULT_INDEX}). */
  public StoreBuilder indexParameters(EctParameters parameters) {
    checkConfigurable();
    this.indexParameters = Objects.requireNonNull(parameters, "parameters");
    return this;
  }

  /** The first hash seed to try (default 0). */
  public StoreBuilder seed(long seed) {
    checkConfigurable();
    this.seed = seed;
    return this;
  }

  /**
   * Where sorted runs are spilled (default: the target's parent directory, which is on the
   * store's file system and so has room for it).
   */
  public StoreBuilder temporaryDirectory(Path directory) {
    checkConfigurable();
    this.temporaryParent = Objects.requireNonNull(directory, "directory");
    return this;
  }

  /** Receives progress reports (default: none). */
  public StoreBuilder listener(BuildListener listener) {
    checkConfigurable();
    this.listener = Objects.requireNonNull(listener, "listener");
    return this;
  }

  /** Adds an entry to the user metadata map stored in the meta file. */
  public StoreBuilder metadata(String key, String value) {
    checkOpen();
    metadata.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
    return this;
  }

  /** Package-private: the hash function per seed (tests force collisions with it). */
  StoreBuilder hashers(LongFunction<RecordHasher> hashers) {
    checkConfigurable();
    this.hashers = hashers;
    return this;
  }

  /** Adds a record (the arrays are copied; empty keys and values are allowed). */
  public StoreBuilder put(byte[] key, byte[] value) throws IOException {
    return put(key, 0, key.length, value, 0, value.length);
  }

  /** Adds a record from array slices (copied). */
  public StoreBuilder put(byte[] key, int keyOffset, int keyLength, byte[] value, int valueOffset, int valueLength)
      throws IOException {
    checkOpen();
    Objects.checkFromIndexSize(keyOffset, keyLength, key.length);
    Objects.checkFromIndexSize(valueOffset, valueLength, value.length);
    if (keyLength > RecordFormat.MAX_LENGTH || valueLength > RecordFormat.MAX_LENGTH) {
      throw new IllegalArgumentException("keys and values are limited to " + RecordFormat.MAX_LENGTH + " bytes");
    }
    if (pipeline == null) {
      startNanos = System.nanoTime();
      pipeline = new Pipeline(seed, 1);
    }
    pipeline.add(key, keyOffset, keyLength, value, valueOffset, valueLength);
    minKeyLength = Math.min(minKeyLength, keyLength);
    maxKeyLength = Math.max(maxKeyLength, keyLength);
    minValueLength = Math.min(minValueLength, valueLength);
    maxValueLength = Math.max(maxValueLength, valueLength);
    if (++recordsPut % PROGRESS_INTERVAL == 0) {
      listener.progress(BuildListener.Phase.INPUT, recordsPut, -1);
    }
    return this;
  }

  /** Adds every entry of {@code records}. */
  public StoreBuilder putAll(Iterator<? extends Map.Entry<byte[], byte[]>> records) throws IOException {
    while (records.hasNext()) {
      Map.Entry<byte[], byte[]> record = records.next();
      put(record.getKey(), record.getValue());
    }
    return this;
  }

  /** The records put so far, duplicates included. */
  public long recordsPut() {
    return recordsPut;
  }

  /**
   * Sorts, merges and writes the store, then publishes it atomically at the target directory.
   * Call once; the builder is done afterwards (close it to release its thread).
   *
   * @throws DuplicateKeyException under {@link DuplicatePolicy#FAIL} when a key was put twice
   * @throws FileAlreadyExistsException if the target appeared meanwhile
   */
  public BuildSummary build() throws IOException {
    checkOpen();
    built = true;
    if (pipeline == null) {
      startNanos = System.nanoTime();
      pipeline = new Pipeline(seed, 1);
    }
    try {
      checkTarget();
      while (true) {
        StoreOutcome outcome = pipeline.writeStore();
        if (outcome.meta != null) {
          publish(outcome.staging);
          listener.progress(BuildListener.Phase.WRITE, outcome.meta.recordCount(), outcome.meta.recordCount());
          return new BuildSummary(
              target,
              outcome.meta,
              recordsPut,
              outcome.duplicatesDropped,
              pipeline.runsSpilled,
              pipeline.attempt,
              System.nanoTime() - startNanos);
        }
        if (pipeline.attempt == MAX_SEED_ATTEMPTS) {
          throw new IOException(
              "distinct keys share a 128-bit hash under " + MAX_SEED_ATTEMPTS + " seeds: is the hash function broken?");
        }
        pipeline = pipeline.rehash();
      }
    } finally {
      pipeline.discard();
    }
  }

  /** Stops the build if it has not completed and deletes its temporary files. */
  @Override
  public void close() throws IOException {
    if (closed) {
      return;
    }
    closed = true;
    if (pipeline != null) {
      pipeline.discard();
    }
  }

  private void checkTarget() throws IOException {
    if (Files.exists(target, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
      throw new FileAlreadyExistsException(target.toString(), null, "the store directory already exists");
    }
    Path parent = target.getParent();
    if (parent == null || !Files.isDirectory(parent)) {
      throw new NoSuchFileException(String.valueOf(parent), null, "the parent of the store directory does not exist");
    }
  }

  private void checkConfigurable() {
    checkOpen();
    if (pipeline != null) {
      throw new IllegalStateException("configure the builder before the first put()");
    }
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("the builder is closed");
    }
    if (built) {
      throw new IllegalStateException("build() was already called");
    }
  }

  private boolean fixedSize() {
    return recordsPut > 0 && minKeyLength == maxKeyLength && minValueLength == maxValueLength;
  }

  private void publish(Path staging) throws IOException {
    forceDirectory(staging);
    try {
      Files.move(staging, target, StandardCopyOption.ATOMIC_MOVE);
    } catch (FileAlreadyExistsException | java.nio.file.DirectoryNotEmptyException e) {
      throw new FileAlreadyExistsException(target.toString(), null, "the store directory appeared during the build");
    }
    forceDirectory(target.getParent());
  }

  private static void forceDirectory(Path directory) throws IOException {
    try (FileChannel channel = FileChannel.open(directory, StandardOpenOption.READ)) {
      channel.force(true);
    } catch (IOException unsupported) {
      // Some platforms cannot open directories; the files themselves are forced.
    }
  }

  static void deleteRecursively(Path path) throws IOException {
    if (path == null || !Files.exists(path, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(path)) {
      for (Path p : (Iterable<Path>) walk.sorted(Comparator.reverseOrder())::iterator) {
        Files.deleteIfExists(p);
      }
    }
  }

  /** The result of one attempt to write the store: a staging directory with meta, or a collision. */
  private record StoreOutcome(Path staging, StoreMeta meta, long duplicatesDropped) {}

  /**
   * The state of a build under one seed: buffers, the spill thread and the runs. A collision
   * moves every record into a new pipeline with the next seed.
   */
  private final class Pipeline {
    final long seed;
    final int attempt;
    final RecordHasher hasher;
    final long[] hash = new long[2];
    final List<SortedRun> runs = new ArrayList<>();
    RecordBuffer filling;
    RecordBuffer spare;
    ExecutorService spiller;
    Future<SortedRun> pendingSpill;
    Path temporary;
    Path staging;
    int runsSpilled;
    volatile boolean collisionSeen;
    long spilledDuplicates;

    Pipeline(long seed, int attempt) {
      this.seed = seed;
      this.attempt = attempt;
      this.hasher = hashers.apply(seed);
      this.filling = new RecordBuffer(memoryBudget / 2);
      this.spare = new RecordBuffer(memoryBudget / 2);
    }

    void add(byte[] key, int keyOffset, int keyLength, byte[] value, int valueOffset, int valueLength) throws IOException {
      hasher.hash(key, keyOffset, keyLength, hash);
      if (!filling.add(hash[0], hash[1], key, keyOffset, keyLength, value, valueOffset, valueLength)) {
        spill();
        if (!filling.add(hash[0], hash[1], key, keyOffset, keyLength, value, valueOffset, valueLength)) {
          throw new IllegalStateException("an empty buffer refused a record");
        }
      }
    }

    private void spill() throws IOException {
      awaitSpill();
      RecordBuffer full = filling;
      filling = spare;
      spare = full;
      if (spiller == null) {
        spiller =
            Executors.newSingleThreadExecutor(
                task -> {
                  Thread thread = new Thread(task, "varve-spill");
                  thread.setDaemon(true);
                  return thread;
                });
      }
      Path runPath = temporaryDirectory().resolve("run-" + runsSpilled++);
      pendingSpill = spiller.submit(() -> spillBuffer(full, runPath));
    }

    private SortedRun spillBuffer(RecordBuffer full, Path runPath) throws IOException {
      full.sort();
      MergedRecords deduplicated = new MergedRecords(List.of(SortedRecords.of(full)), duplicatePolicy);
      SortedRun run = SortedRun.write(runPath, deduplicated);
      if (deduplicated.collisionSeen()) {
        collisionSeen = true;
      }
      spilledDuplicates += deduplicated.duplicatesDropped();
      full.clear();
      return run;
    }

    private void awaitSpill() throws IOException {
      if (pendingSpill == null) {
        return;
      }
      try {
        runs.add(pendingSpill.get());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted while spilling", e);
      } catch (ExecutionException e) {
        Throwable cause = e.getCause();
        if (cause instanceof IOException io) {
          throw io;
        }
        if (cause instanceof RuntimeException runtime) {
          throw runtime;
        }
        throw new IOException(cause);
      } finally {
        pendingSpill = null;
      }
    }

    private Path temporaryDirectory() throws IOException {
      if (temporary == null) {
        Path parent = temporaryParent != null ? temporaryParent : target.getParent();
        temporary = Files.createTempDirectory(parent, ".varve-build-");
      }
      return temporary;
    }

    /** Merges everything into a staging directory; a null meta means a hash collision. */
    StoreOutcome writeStore() throws IOException {
      awaitSpill();
      spare.release();
      filling.sort();
      mergeRunsDownTo(MAX_MERGE_FAN_IN);
      if (collisionSeen) {
        return new StoreOutcome(null, null, 0);
      }
      long records = 0;
      long recordBytes = 0;
      for (SortedRun run : runs) {
        records += run.records;
        recordBytes += run.bytes - 16 * run.records;
      }
      try (MergedRecords memory = new MergedRecords(List.of(SortedRecords.of(filling)), duplicatePolicy)) {
        while (memory.next()) {
          records++;
          recordBytes += memory.record.length();
        }
        if (memory.collisionSeen()) {
          return new StoreOutcome(null, null, 0);
        }
      }
      boolean fixed = fixedSize();
      long dataBytes = fixed ? records * ((long) minKeyLength + minValueLength) : recordBytes;
      // Not createTempDirectory: the store gets the permissions the umask gives, not 0700.
      staging =
          Files.createDirectory(
              target.resolveSibling("." + target.getFileName() + ".staging-" + Long.toHexString(System.nanoTime() ^ new java.util.Random().nextLong())));
      Attempt first = writeOnce(records, dataBytes, fixed);
      if (first.collision) {
        return new StoreOutcome(null, null, 0);
      }
      if (first.meta != null) {
        return new StoreOutcome(staging, first.meta, first.duplicates + spilledDuplicates);
      }
      // Duplicates across runs were dropped: the counts are now known exactly; write again.
      deleteRecursively(staging);
      Files.createDirectory(staging);
      Attempt second = writeOnce(first.records, first.dataBytes, fixed);
      if (second.meta == null) {
        throw new IllegalStateException("the merge gave different records on a second pass");
      }
      return new StoreOutcome(staging, second.meta, second.duplicates + spilledDuplicates);
    }

    private record Attempt(StoreMeta meta, boolean collision, long records, long dataBytes, long duplicates) {}

    private Attempt writeOnce(long records, long dataBytes, boolean fixed) throws IOException {
      StoreWriter writer = new StoreWriter(staging, records, dataBytes, fixed, indexParameters);
      try (MergedRecords merged = openMerge(runs, true)) {
        long written = 0;
        while (merged.next()) {
          writer.add(merged.hi, merged.lo, merged.record);
          if (++written % PROGRESS_INTERVAL == 0) {
            listener.progress(BuildListener.Phase.WRITE, written, records);
          }
        }
        if (merged.collisionSeen()) {
          writer.abandon();
          return new Attempt(null, true, 0, 0, 0);
        }
        if (!writer.matchesExpectation()) {
          writer.abandon();
          return new Attempt(null, false, writer.records(), writer.dataBytes(), merged.duplicatesDropped());
        }
        StoreMeta meta = writer.finish(seed, indexParameters, minKeyLength, minValueLength, metadata);
        return new Attempt(meta, false, records, dataBytes, merged.duplicatesDropped());
      } catch (IOException | RuntimeException e) {
        writer.abandon();
        throw e;
      }
    }

    /** A merge of the given runs and, when {@code withMemory}, the records still in memory. */
    private MergedRecords openMerge(List<SortedRun> sources, boolean withMemory) throws IOException {
      int bufferBytes = (int) Math.max(64 << 10, Math.min(1 << 20, memoryBudget / 2 / Math.max(1, sources.size())));
      List<SortedRecords> cursors = new ArrayList<>();
      try {
        for (SortedRun run : sources) {
          cursors.add(run.open(bufferBytes));
        }
      } catch (IOException e) {
        for (SortedRecords cursor : cursors) {
          cursor.close();
        }
        throw e;
      }
      if (withMemory) {
        cursors.add(SortedRecords.of(filling));
      }
      return new MergedRecords(cursors, duplicatePolicy);
    }

    /** Merges the oldest runs in groups until at most {@code fanIn} remain. */
    private void mergeRunsDownTo(int fanIn) throws IOException {
      while (runs.size() > fanIn) {
        List<SortedRun> group = new ArrayList<>(runs.subList(0, fanIn));
        SortedRun merged;
        try (MergedRecords records = openMerge(group, false)) {
          merged = SortedRun.write(temporaryDirectory().resolve("run-" + runsSpilled++), records);
          if (records.collisionSeen()) {
            collisionSeen = true;
          }
          spilledDuplicates += records.duplicatesDropped();
        }
        for (SortedRun run : group) {
          run.delete();
        }
        runs.subList(0, fanIn).clear();
        runs.add(0, merged);
      }
    }

    /** Moves every record, in input order, into a pipeline with the next seed. */
    Pipeline rehash() throws IOException {
      Pipeline next = new Pipeline(seed + 1, attempt + 1);
      List<SortedRecords> sources = new ArrayList<>();
      for (SortedRun run : runs) {
        sources.add(run.open(1 << 16));
      }
      sources.add(SortedRecords.of(filling));
      for (SortedRecords source : sources) {
        try (source) {
          while (source.next()) {
            RecordSlice r = source.record;
            next.add(r.bytes, r.keyOffset(), r.keyLength, r.bytes, r.valueOffset(), r.valueLength);
          }
        }
      }
      discard();
      return next;
    }

    /** Stops the spill thread and deletes the temporary and staging files. */
    void discard() throws IOException {
      if (spiller != null) {
        spiller.shutdownNow();
        try {
          spiller.awaitTermination(1, java.util.concurrent.TimeUnit.MINUTES);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        spiller = null;
      }
      pendingSpill = null;
      try {
        deleteRecursively(temporary);
        if (staging != null && Files.exists(staging)) {
          deleteRecursively(staging);
        }
      } catch (IOException | UncheckedIOException e) {
        throw new IOException("could not delete temporary files of the build", e);
      }
      temporary = null;
      staging = null;
      filling.release();
      spare.release();
    }
  }
}
