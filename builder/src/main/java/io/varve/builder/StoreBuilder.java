package io.varve.builder;

import io.varve.core.blocked.BlockedIndexParameters;
import io.varve.core.blocked.CrowdedHashesException;
import io.varve.core.ect.EctParameters;
import io.varve.core.hash.HashRange;
import io.varve.core.index.IndexKind;
import io.varve.core.index.IndexParameters;
import io.varve.core.index.RankIndexBuilder;
import io.varve.core.store.KeyMode;
import io.varve.core.store.PageCacheWrites;
import io.varve.core.store.RecordFormat;
import io.varve.core.store.StoreFile;
import io.varve.core.store.StoreMeta;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.LongFunction;

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
 * buffer. When the buffer reaches half the memory budget, a background thread appends its records
 * to 256 temporary files, one per hash prefix (a contiguous range of hash order), while {@code put}
 * fills the other half ({@link ExternalHashSort}). {@link #build()} then takes the partitions in
 * hash order: the background thread loads and sorts one (splitting it by the next hash bits if it
 * does not fit in memory), while the caller's thread writes the previous one to the {@code data}
 * file and feeds its hashes to the index (a blocked index by default, see {@link
 * #indexParameters}). No k-way merge is needed. Offsets, index and {@code meta} follow; everything
 * goes into a staging directory that is forced to disk and renamed to the target: readers see a
 * complete store or none. A build that fits in memory is sorted and written without spilling.
 *
 * <p>Duplicate keys follow {@link #duplicates(DuplicatePolicy)}. Two distinct keys with the same
 * 128-bit hash (expected about once in 2^64 builds of 2^32 keys) make the build rehash every record
 * with the next seed, which the meta file records. Temporary files are deleted when the build
 * ends, also when it fails, and by {@link #close()}.
 *
 * <p>Memory: the budget bounds the two record buffers (record bytes plus 48 bytes per record);
 * spilling adds a small write buffer per partition, and the end of the build the index (a few
 * bits per record). A single record larger than the budget is still accepted, alone in its buffer.
 * Under {@link DuplicatePolicy#LAST_WINS}, dropped duplicates make the counts known only after a
 * first writing pass, which is then repeated.
 *
 * <p>Not thread-safe: one thread calls {@code put} and {@code build}.
 */
public final class StoreBuilder implements Closeable {
  /** The default memory budget: 256 MiB. */
  public static final long DEFAULT_MEMORY_BUDGET = 256L << 20;

  /** The smallest memory budget accepted: 2 MiB. */
  public static final long MIN_MEMORY_BUDGET = 2L << 20;

  /**
   * The default index of a dense store: a blocked index of 300 keys per block ({@link
   * BlockedIndexParameters#DEFAULT}), about 3.45 bits per key, whose lookups read one 128-byte block.
   */
  public static final IndexParameters DEFAULT_INDEX = BlockedIndexParameters.DEFAULT;

  /**
   * The ECT knobs for a dense store that trades lookup time for a smaller index: {@code g = 64,
   * hmax = 64}, skip lengths on 3 levels (about 3.1 bits per key).
   */
  public static final EctParameters DEFAULT_ECT_INDEX = new EctParameters(64, 64, 3);

  private static final int MAX_SEED_ATTEMPTS = 8;
  private static final long PROGRESS_INTERVAL = 1 << 20;

  private final Path target;
  private long memoryBudget = DEFAULT_MEMORY_BUDGET;
  private DuplicatePolicy duplicatePolicy = DuplicatePolicy.FAIL;
  /** Null until set: the default then depends on the index kind. */
  private IndexParameters indexParameters;
  private long seed;
  private Path temporaryParent;
  private BuildListener listener = BuildListener.NONE;
  private int pageAlignment = StoreFile.DATA_PAYLOAD_OFFSET;
  private final SortedMap<String, String> metadata = new TreeMap<>();
  private LongFunction<RecordHasher> hashers = RecordHasher::xxh3;
  private int sparseBlockBytes = StoreReindexer.DENSE;
  private KeyMode keyMode = KeyMode.FULL;
  private boolean recordChecksums = true;
  private PageCacheWrites dataWrites = PageCacheWrites.SMALL;

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

  /**
   * The index kind and knobs: {@link BlockedIndexParameters} for a blocked index (the default,
   * {@link #DEFAULT_INDEX}), {@link EctParameters} for an ECT index (smaller, slower; for example
   * {@link #DEFAULT_ECT_INDEX}). A sparse index ({@link #sparseIndex}) is an ECT index (default
   * {@link StoreReindexer#DEFAULT_SPARSE_INDEX}).
   *
   * @throws IllegalArgumentException for blocked parameters on a sparse store
   */
  public StoreBuilder indexParameters(IndexParameters parameters) {
    checkConfigurable();
    Objects.requireNonNull(parameters, "parameters");
    checkSparseKind(sparseBlockBytes, parameters);
    this.indexParameters = parameters;
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

  /**
   * The page size that records are aligned to (default 4096; 0 turns alignment off): a record of
   * at most this size never crosses a page boundary of the data file, so that a lookup whose page
   * is not cached costs one read. Padding costs about {@code s / (2 * pageBytes)} of the data for
   * records of {@code s} bytes (1 % for 80-byte records, 25 % for 2 KiB ones).
   *
   * @throws IllegalArgumentException unless 0 or a power of two from 512 to 4096
   */
  public StoreBuilder pageAlignment(int pageBytes) {
    checkConfigurable();
    if (!RecordFormat.isValidPageSize(pageBytes)) {
      throw new IllegalArgumentException("page alignment must be 0 or a power of two from 512 to 4096: " + pageBytes);
    }
    if (sparseBlockBytes != StoreReindexer.DENSE && !io.varve.core.store.RecordBlocks.isValidBlockSize(sparseBlockBytes, pageBytes)) {
      throw new IllegalArgumentException("page alignment " + pageBytes + " does not suit the sparse block size " + sparseBlockBytes);
    }
    this.pageAlignment = pageBytes;
    return this;
  }

  /**
   * Whether each record ends with a 4-byte checksum (default true) that every lookup reading the
   * record checks, so that a damaged record surfaces as {@code CorruptStoreException} instead of
   * being served. Off saves the 4 bytes per record (a fifth of a 16-byte record) and the check's
   * time; the README gives both as measured. 
   */
  public StoreBuilder recordChecksums(boolean checked) {
    checkConfigurable();
    this.recordChecksums = checked;
    return this;
  }

  /**
   * How the data file is handed to the kernel (default {@link PageCacheWrites#SMALL}, 64 KiB
   * writes). {@link PageCacheWrites#HUGE_PAGES} suits a store served from the host that builds it:
   * there a reader's mapping gets huge pages (warm lookups in 0.92 of the time here), but on a VM
   * that returns free memory to its host the build writes its data at a fraction of the speed
   * (see {@link PageCacheWrites}). A store copied to its servers gains nothing from it.
   */
  public StoreBuilder dataWrites(PageCacheWrites writes) {
    checkConfigurable();
    this.dataWrites = Objects.requireNonNull(writes, "writes");
    return this;
  }

  /**
   * Gives the store a sparse index over blocks of {@code blockBytes} (ECT paper, section 2.6):
   * the index maps a key to its block, not its record, and takes a fraction of a bit per key; a
   * lookup reads the block and searches it. The block size must equal the page alignment (or be
   * any power of two from 512 bytes to 1 MiB when alignment is off). For now the store is
   * written dense and then re-indexed ({@link StoreReindexer}): two more sequential passes over
   * the data.
   *
   * @throws IllegalArgumentException if the block size does not suit the page alignment
   */
  public StoreBuilder sparseIndex(int blockBytes) {
    checkConfigurable();
    if (!io.varve.core.store.RecordBlocks.isValidBlockSize(blockBytes, pageAlignment)) {
      throw new IllegalArgumentException(
          "block size " + blockBytes + " does not suit page alignment " + pageAlignment
              + ": use the page size, or turn alignment off (0) for any power of two from 512 bytes to 1 MiB");
    }
    if (!keyMode.keepsKeys()) {
      throw new IllegalArgumentException("a sparse index needs full keys: key mode " + keyMode + " cannot be sparse");
    }
    checkSparseKind(blockBytes, indexParameters);
    this.sparseBlockBytes = blockBytes;
    return this;
  }

  /**
   * What records keep of their keys (default {@link KeyMode#FULL}): a signature of
   * {@code k} bits ({@link KeyMode#signature}; an absent key is then reported present
   * with probability {@code 2^-k}) or nothing ({@link KeyMode#NONE}: lookups of absent
   * keys are undefined). Either way the keys' hashes are kept in a {@code hashes} file, which
   * lookups never read, so that the store can still be merged and re-indexed. Stores without full
   * keys cannot have a sparse index (a block search compares keys) and cannot be opened without
   * their index.
   */
  public StoreBuilder keyMode(KeyMode mode) {
    checkConfigurable();
    if (!Objects.requireNonNull(mode, "mode").keepsKeys() && sparseBlockBytes != StoreReindexer.DENSE) {
      throw new IllegalArgumentException("a sparse index needs full keys: key mode " + mode + " cannot be sparse");
    }
    this.keyMode = mode;
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

  /** The range of the hashes of the keys put so far (under the current seed); null if none was. */
  HashRange hashRangePut() {
    return pipeline == null || recordsPut == 0 ? null : pipeline.hashes.range();
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
          // Report before publishing: a listener that throws must fail the build, not follow it.
          listener.progress(BuildListener.Phase.WRITE, outcome.meta.recordCount(), outcome.meta.recordCount());
          StoreMeta meta = outcome.meta;
          if (sparseBlockBytes != StoreReindexer.DENSE && (meta.dataBytes() > 0 || meta.recordCount() == 0)) {
            meta = StoreReindexer.reindex(outcome.staging, target, sparseBlockBytes, (EctParameters) indexParameters);
          } else {
            StoreDirectory.publish(outcome.staging, target);
          }
          return new BuildSummary(
              target,
              meta,
              recordsPut,
              outcome.duplicatesDropped,
              pipeline.sort.spills(),
              pipeline.attempt,
              System.nanoTime() - startNanos);
        }
        if (pipeline.attempt == MAX_SEED_ATTEMPTS) {
          throw new IOException(
              "distinct keys share a 128-bit hash under " + MAX_SEED_ATTEMPTS + " seeds: is the hash function broken?");
        }
        pipeline = pipeline.rehash();
      }
    } catch (CrowdedHashesException e) {
      throw crowded(e, pipeline.seed);
    } finally {
      pipeline.discard();
    }
  }

  /**
   * What a blocked index that cannot hold the key set means to whoever built it: keys chosen for
   * their hashes (hashes spread evenly otherwise, and a narrow range of them is spread out first).
   */
  static IllegalArgumentException crowded(CrowdedHashesException e, long seed) {
    return new IllegalArgumentException(
        e.getMessage() + " under hash seed " + seed + ", as keys chosen for their hashes do: build with another seed"
            + " (StoreBuilder.seed) or an ECT index (indexParameters(StoreBuilder.DEFAULT_ECT_INDEX), varve --index ect)",
        e);
  }

  /**
   * Package-private, for a merge: instead of writing a store, the records in hash order, one per
   * key as {@link #duplicates} decides, sorted partition by partition on the builder's thread
   * while the caller reads. Two distinct keys with one hash make {@code next()} throw (a merge in
   * the seed's order is then impossible). Call once, instead of {@link #build()}; close the
   * cursor, then the builder.
   */
  RecordCursor sortedRecords() throws IOException {
    checkOpen();
    built = true;
    if (pipeline == null) {
      startNanos = System.nanoTime();
      pipeline = new Pipeline(seed, 1);
    }
    return pipeline.sortedRecords();
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
    StoreDirectory.checkNew(target);
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

  /** Refuses a sparse store with a blocked index: blocks of records are indexed by ECT tries. */
  static void checkSparseKind(int blockBytes, IndexParameters parameters) {
    if (blockBytes != StoreReindexer.DENSE && parameters != null && parameters.kind() != IndexKind.ECT) {
      throw new IllegalArgumentException("a sparse index is an ECT index: it cannot be " + parameters);
    }
  }

  /** The knobs of the dense index written first (the final one, unless the store is to be sparse). */
  private IndexParameters denseParameters() {
    return indexParameters != null && sparseBlockBytes == StoreReindexer.DENSE ? indexParameters : DEFAULT_INDEX;
  }

  private boolean fixedSize() {
    boolean keysOfOneLength = !keyMode.keepsKeys() || minKeyLength == maxKeyLength;
    return recordsPut > 0 && keysOfOneLength && minValueLength == maxValueLength;
  }

  /** The result of one attempt to write the store: a staging directory with meta, or a collision. */
  private record StoreOutcome(Path staging, StoreMeta meta, long duplicatesDropped) {}

  /**
   * The state of a build under one seed: the records hashed into an {@link ExternalHashSort},
   * whose sorted chunks are written out in hash order, the index fed on this thread while the
   * sort loads the next chunk on its own. A collision moves every record into a new pipeline with
   * the next seed.
   */
  private final class Pipeline {
    final long seed;
    final int attempt;
    final RecordHasher hasher;
    final long[] hash = new long[2];
    final ExternalHashSort sort;
    Path temporary;
    Path staging;
    long records;
    /** Repeats of a key dropped by earlier attempts: they stay counted. */
    long earlierDuplicates;
    /** The writer of an attempt that met a hash collision: its data feeds the rehash. */
    StoreWriter collided;
    /** The range of the hashes put under this seed: it maps them for the index. */
    final HashRange.Tracker hashes = new HashRange.Tracker();
    long droppedBeforeCollision;

    Pipeline(long seed, int attempt) {
      this.seed = seed;
      this.attempt = attempt;
      this.hasher = hashers.apply(seed);
      this.sort = new ExternalHashSort(memoryBudget, hasher, duplicatePolicy, this::temporaryDirectory);
    }

    void add(byte[] key, int keyOffset, int keyLength, byte[] value, int valueOffset, int valueLength) throws IOException {
      hasher.hash(key, keyOffset, keyLength, hash);
      hashes.add(hash[0], hash[1]);
      sort.add(hash[0], hash[1], key, keyOffset, keyLength, value, valueOffset, valueLength);
      records++;
    }

    private Path temporaryDirectory() throws IOException {
      if (temporary == null) {
        Path parent = temporaryParent != null ? temporaryParent : target.getParent();
        temporary = TemporaryDirectories.create(parent, ".varve-build-", true);
      }
      return temporary;
    }

    /**
     * Writes everything into a staging directory in one pass. A null meta means a hash collision:
     * {@link #rehash} then takes the records from the data just written.
     */
    StoreOutcome writeStore() throws IOException {
      ExternalHashSort.Chunks chunks = sort.finish();
      staging = StoreDirectory.staging(target);
      boolean fixed = fixedSize();
      StoreWriter writer =
          new StoreWriter(
              staging,
              temporaryDirectory(),
              records,
              true,
              fixed,
              keyMode.keepsKeys() ? minKeyLength : keyMode.storedKeyLength(),
              minValueLength,
              pageAlignment,
              denseParameters(),
              keyMode,
              dataWrites,
              recordChecksums,
              hashes.mapping());
      long duplicates = 0;
      boolean collision = false;
      long written = 0;
      try {
        DistinctHashes index = new DistinctHashes(writer.index());
        try {
          RecordBuffer chunk;
          while ((chunk = chunks.next()) != null) {
            // The index on this thread, loading and sorting on the other: the two halves of the
            // work are about equal.
            index.feed(chunk);
            ChunkResult result = writeChunk(chunk, writer);
            duplicates += result.duplicates();
            collision |= result.collision();
            long before = written;
            written += chunk.size();
            for (long m = before / PROGRESS_INTERVAL + 1; m <= written / PROGRESS_INTERVAL; m++) {
              listener.progress(BuildListener.Phase.WRITE, m * PROGRESS_INTERVAL, records);
            }
            chunks.release(chunk);
          }
        } finally {
          chunks.close();
        }
        if (collision && !keyMode.keepsKeys()) {
          throw new IOException(
              "two distinct keys share a 128-bit hash under seed " + seed + ": a store without full keys cannot be rehashed"
                  + " from what it wrote; build it again with another seed");
        }
        if (collision) {
          collided = writer;
          droppedBeforeCollision = duplicates;
          return new StoreOutcome(null, null, 0);
        }
        if (!writer.indexMatches()) {
          // LAST_WINS dropped duplicates: the index was sized for every record put.
          writer.replaceIndex(denseParameters(), hasher);
        }
        StoreMeta meta = writer.finish(seed, denseParameters(), metadata);
        return new StoreOutcome(staging, meta, duplicates + sort.reducedDuplicates() + earlierDuplicates);
      } catch (IOException | RuntimeException | Error e) {
        writer.abandon();
        throw e;
      }
    }

    /** The records in hash order, one per key: see {@link StoreBuilder#sortedRecords()}. */
    RecordCursor sortedRecords() throws IOException {
      return new ChunkCursor(sort.finish());
    }

    /** Walks sorted chunks record by record, resolving records of one hash as {@link #writeChunk} does. */
    private final class ChunkCursor extends RecordCursor {
      private final ExternalHashSort.Chunks chunks;
      private RecordBuffer chunk;
      private int next;
      private boolean ended;

      ChunkCursor(ExternalHashSort.Chunks chunks) {
        this.chunks = chunks;
      }

      @Override
      boolean next() throws IOException {
        while (chunk == null || next == chunk.size()) {
          if (ended) {
            return false;
          }
          if (chunk != null) {
            chunks.release(chunk);
          }
          chunk = chunks.next();
          next = 0;
          if (chunk == null) {
            ended = true;
            return false;
          }
        }
        hi = chunk.hi(next);
        lo = chunk.lo(next);
        int end = next + 1;
        while (end < chunk.size() && chunk.hi(end) == hi && chunk.lo(end) == lo) {
          end++;
        }
        int survivor = next;
        RecordSlice first = chunk.record(next, new RecordSlice());
        for (int k = next + 1; k < end; k++) {
          RecordSlice other = chunk.record(k, new RecordSlice());
          if (!other.sameKey(first)) {
            throw new IOException(
                "two distinct keys share a 128-bit hash under seed " + seed + ": they cannot be merged in this seed's order");
          }
          if (duplicatePolicy == DuplicatePolicy.FAIL) {
            throw new DuplicateKeyException(other.key());
          }
          survivor = k;
        }
        chunk.record(survivor, record);
        next = end;
        return true;
      }

      @Override
      public void close() throws IOException {
        chunks.close();
      }
    }

    private record ChunkResult(long duplicates, boolean collision) {}

    /**
     * Writes a sorted chunk, resolving records with equal hashes as {@link MergedRecords} does
     * (repeated key: {@link DuplicatePolicy}; distinct keys: a collision, all kept), without
     * copying the records that have a hash of their own, which is nearly all of them.
     */
    private ChunkResult writeChunk(RecordBuffer chunk, StoreWriter writer) throws IOException {
      RecordSlice slice = new RecordSlice();
      long duplicates = 0;
      boolean collision = false;
      int n = chunk.size();
      for (int i = 0; i < n; ) {
        long hi = chunk.hi(i);
        long lo = chunk.lo(i);
        int end = i + 1;
        while (end < n && chunk.hi(end) == hi && chunk.lo(end) == lo) {
          end++;
        }
        if (end == i + 1) {
          writer.add(chunk.record(i, slice), hi, lo);
        } else {
          List<RecordSlice> survivors = new ArrayList<>();
          for (int k = i; k < end; k++) {
            RecordSlice record = chunk.record(k, new RecordSlice());
            int same = -1;
            for (int s = 0; s < survivors.size() && same < 0; s++) {
              if (survivors.get(s).sameKey(record)) {
                same = s;
              }
            }
            if (same < 0) {
              survivors.add(record);
            } else if (duplicatePolicy == DuplicatePolicy.FAIL) {
              throw new DuplicateKeyException(record.key());
            } else {
              survivors.set(same, record);
              duplicates++;
            }
          }
          collision |= survivors.size() > 1;
          for (RecordSlice survivor : survivors) {
            writer.add(survivor, hi, lo);
          }
        }
        i = end;
      }
      return new ChunkResult(duplicates, collision);
    }

    /**
     * Feeds the index with every distinct hash of the sorted chunks, in order: equal hashes are one
     * key's duplicates (or a collision, which aborts the attempt), so the index needs no key
     * comparisons.
     */
    private static final class DistinctHashes {
      private final RankIndexBuilder index;
      private boolean anyHash;
      private long lastHi;
      private long lastLo;

      DistinctHashes(RankIndexBuilder index) {
        this.index = index;
      }

      void feed(RecordBuffer chunk) {
        for (int i = 0; i < chunk.size(); i++) {
          long hi = chunk.hi(i);
          long lo = chunk.lo(i);
          if (!anyHash || hi != lastHi || lo != lastLo) {
            if (index.added() == index.declared()) {
              // More distinct hashes than expected records cannot happen; stop feeding.
              return;
            }
            index.add(hi, lo);
            anyHash = true;
            lastHi = hi;
            lastLo = lo;
          }
        }
      }
    }

    /** Moves every record, in input order per key, into a pipeline with the next seed. */
    Pipeline rehash() throws IOException {
      Pipeline next = new Pipeline(seed + 1, attempt + 1);
      // Duplicates dropped so far are not moved: they stay counted.
      next.earlierDuplicates = earlierDuplicates + sort.reducedDuplicates() + droppedBeforeCollision;
      try {
        // The data just written holds every record once per key (colliding keys all kept): the
        // input of the next attempt, in which no key repeats, so order does not matter.
        try (RecordCursor written = collided.readBack(next.hasher)) {
          while (written.next()) {
            RecordSlice r = written.record;
            next.add(r.bytes, r.keyOffset(), r.keyLength, r.bytes, r.valueOffset(), r.valueLength);
          }
        }
      } catch (IOException | RuntimeException | Error e) {
        // The caller still holds (and discards) this pipeline; the new one is referenced nowhere.
        try {
          next.discard();
        } catch (IOException | RuntimeException suppressed) {
          e.addSuppressed(suppressed);
        }
        throw e;
      }
      discard();
      return next;
    }

    /** Stops the background thread and deletes the temporary and staging files. */
    void discard() throws IOException {
      if (collided != null) {
        try {
          collided.abandon();
        } catch (IOException ignored) {
          // its files are deleted below
        }
        collided = null;
      }
      sort.close();
      try {
        TemporaryDirectories.delete(temporary);
        TemporaryDirectories.delete(staging);
      } catch (IOException | UncheckedIOException e) {
        throw new IOException("could not delete temporary files of the build", e);
      }
      temporary = null;
      staging = null;
    }
  }

}
