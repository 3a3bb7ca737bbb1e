package io.varve.builder;

import io.varve.core.blocked.BlockedIndexParameters;
import io.varve.core.blocked.CrowdedHashesException;
import io.varve.core.ect.EctParameters;
import io.varve.core.index.IndexParameters;
import io.varve.core.shard.ShardRouter;
import io.varve.core.store.KeyMode;
import io.varve.core.store.PageCacheWrites;
import io.varve.core.store.StoreMeta;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Iterator;
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
 * file and feeds its hashes to the index (pages for variable-size records by default, a blocked
 * index for fixed-size ones, see {@link #indexParameters}). No k-way merge is needed. Offsets, index and {@code meta} follow; everything
 * goes into a staging directory that is forced to disk and renamed to the target: readers see a
 * complete store or none. A build that fits in memory is sorted and written without spilling.
 *
 * <p>Options: the setters below, or a {@link BuildOptions} value given to {@link #create(Path,
 * BuildOptions)} (which the setters then amend). Each setter checks its own value; how the
 * values go together (a sparse index, its block size, page alignment, key mode and index kind) is
 * checked once, when the build starts (the first {@code put}, or {@code build()}), whatever the
 * order of the calls.
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
 * <p>Not thread-safe: one thread calls {@code put} and {@code build}; {@link #close()} may come
 * from another thread to stop a build.
 */
public final class StoreBuilder implements Closeable {
  /** The default memory budget on a heap of 1 GiB or more: 256 MiB ({@link BuildOptions#defaultMemoryBudget()}). */
  public static final long DEFAULT_MEMORY_BUDGET = BuildOptions.DEFAULT_MEMORY_BUDGET;

  /** The smallest memory budget accepted: 2 MiB. */
  public static final long MIN_MEMORY_BUDGET = BuildOptions.MIN_MEMORY_BUDGET;

  /**
   * The default index of a dense store: a blocked index of 300 keys per block ({@link
   * BlockedIndexParameters#DEFAULT}: {@code 1024 / 300} bits per key plus a small spill stream),
   * whose lookups read one 128-byte block.
   */
  public static final IndexParameters DEFAULT_INDEX = BlockedIndexParameters.DEFAULT;

  /**
   * The ECT knobs for a dense store that trades lookup time for a smaller index: {@code g = 64,
   * hmax = 64}, skip lengths on 3 levels (the README's index results give its size and speed as
   * measured).
   */
  public static final EctParameters DEFAULT_ECT_INDEX = new EctParameters(64, 64, 3);

  private static final int MAX_SEED_ATTEMPTS = 8;

  private final Path target;
  private final BuildOptions.Builder settings;
  private DuplicatePolicy duplicatePolicy = DuplicatePolicy.FAIL;
  private long seed;
  private LongFunction<RecordHasher> hashers = RecordHasher::xxh3;
  private ShardCheck shard;

  /** The settings checked together when the build starts (first put, or build): null before. */
  private BuildOptions options;
  /** Metadata set after the build started, over the options'. */
  private final SortedMap<String, String> lateMetadata = new TreeMap<>();
  /** Volatile: a close from another thread during build() stops it. */
  private volatile BuildAttempt attempt;
  private final RecordShape shape = new RecordShape();
  private long recordsPut;
  private long startNanos;
  private final UseOrder order = new UseOrder("builder", "build()", "put()");
  private final FinishGuard finishing = new FinishGuard("builder", "build()");

  private StoreBuilder(Path target, BuildOptions options) {
    this.target = target.toAbsolutePath().normalize();
    this.settings = options.toBuilder();
  }

  /**
   * Starts a build of a store at {@code directory}, which must not exist yet (its parent must).
   *
   * @throws FileAlreadyExistsException if {@code directory} exists
   * @throws NoSuchFileException if its parent directory does not exist
   */
  public static StoreBuilder create(Path directory) throws IOException {
    return create(directory, BuildOptions.DEFAULTS);
  }

  /**
   * Starts a build of a store at {@code directory} with {@code options}, which the setters below
   * may still change before the first {@code put}.
   *
   * @throws FileAlreadyExistsException if {@code directory} exists
   * @throws NoSuchFileException if its parent directory does not exist
   */
  public static StoreBuilder create(Path directory, BuildOptions options) throws IOException {
    StoreBuilder builder = new StoreBuilder(directory, Objects.requireNonNull(options, "options"));
    StoreDirectory.checkNew(builder.target);
    return builder;
  }

  /**
   * Bytes of memory for record buffers (default {@value #DEFAULT_MEMORY_BUDGET}, or a quarter of a
   * smaller heap: {@link BuildOptions#defaultMemoryBudget()}; at least 2 MiB).
   *
   * @throws IllegalArgumentException below {@link #MIN_MEMORY_BUDGET}
   */
  public StoreBuilder memoryBudget(long bytes) {
    checkConfigurable();
    settings.memoryBudget(bytes);
    return this;
  }

  /** What to do with repeated keys (default {@link DuplicatePolicy#FAIL}). */
  public StoreBuilder duplicates(DuplicatePolicy policy) {
    checkConfigurable();
    this.duplicatePolicy = Objects.requireNonNull(policy, "policy");
    return this;
  }

  /**
   * The index kind and knobs: {@link io.varve.core.store.PagedParameters} for a paged store (the
   * default for variable-size records with full keys aligned to pages: a page table of about a bit
   * per key), {@link BlockedIndexParameters} for a blocked index (the default otherwise, {@link
   * #DEFAULT_INDEX}; with offsets for variable-size records), {@link EctParameters} for an ECT index
   * (smaller, slower; for example {@link #DEFAULT_ECT_INDEX}). Fixed-size records asked to be paged
   * keep their computed places and get {@link #DEFAULT_INDEX}. A sparse index ({@link #sparseIndex}) is an ECT index (default
   * {@link StoreReindexer#DEFAULT_SPARSE_INDEX}): blocked parameters for a sparse store fail the
   * build when it starts ({@link BuildOptions.Builder#build()}).
   */
  public StoreBuilder indexParameters(IndexParameters parameters) {
    checkConfigurable();
    settings.indexParameters(parameters);
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
    settings.temporaryDirectory(directory);
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
    settings.pageAlignment(pageBytes);
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
    settings.recordChecksums(checked);
    return this;
  }

  /**
   * The salt mixed into every record check (default: a new random one for each build, so that a
   * record of another build copied over this store's, intact and at the same place, fails its
   * check). Set it when a build must be reproducible byte for byte; 0 writes unsalted checks (meta
   * version 6), which readers older than meta version 7 read.
   */
  public StoreBuilder recordCheckSalt(long salt) {
    checkConfigurable();
    settings.recordCheckSalt(salt);
    return this;
  }

  /**
   * How the data file is handed to the kernel. The default, {@link PageCacheWrites#UNCACHED},
   * writes all of a large data file but its first 64 MiB past the page cache: the build does not
   * pay for copying it into the cache (the better part of a build of large records), and a store
   * copied to its servers has no use for this host's cache (a merge, which may run where its result
   * is served, defaults to {@link PageCacheWrites#SMALL}). {@link PageCacheWrites#SMALL} leaves the
   * store cached here; {@link PageCacheWrites#HUGE_PAGES} suits a store served from the host
   * that builds it: there a reader's mapping gets huge pages, but on a VM that returns free memory
   * to its host the build writes its data at a fraction of the speed (see {@link PageCacheWrites}).
   */
  public StoreBuilder dataWrites(PageCacheWrites writes) {
    checkConfigurable();
    settings.dataWrites(writes);
    return this;
  }

  /**
   * Gives the store a sparse index over blocks of {@code blockBytes} (ECT paper, section 2.6):
   * the index maps a key to its block, not its record, and takes a fraction of a bit per key; a
   * lookup reads the block and searches it. The block size must equal the page alignment (or be
   * any power of two from 512 bytes to 1 MiB when alignment is off); the store must keep full
   * keys. For now the store is written dense and then re-indexed ({@link StoreReindexer}): two
   * more sequential passes over the data.
   *
   * @throws IllegalArgumentException unless a power of two from 512 bytes to 1 MiB (whether it
   *     suits the page alignment and key mode is checked when the build starts)
   */
  public StoreBuilder sparseIndex(int blockBytes) {
    checkConfigurable();
    settings.sparseIndex(blockBytes);
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
    settings.keyMode(mode);
    return this;
  }

  /** Receives progress reports (default: none); see {@link BuildListener} for when. */
  public StoreBuilder listener(BuildListener listener) {
    checkConfigurable();
    settings.listener(listener);
    return this;
  }

  /** Adds an entry to the user metadata map stored in the meta file (also after the first put). */
  public StoreBuilder metadata(String key, String value) {
    checkOpen();
    if (options == null) {
      settings.metadata(key, value);
    } else {
      lateMetadata.put(Objects.requireNonNull(key, "metadata key"), Objects.requireNonNull(value, "metadata value"));
    }
    return this;
  }

  /** Package-private: the hash function per seed (tests force collisions with it). */
  StoreBuilder hashers(LongFunction<RecordHasher> hashers) {
    checkConfigurable();
    this.hashers = hashers;
    return this;
  }

  /**
   * Package-private: makes this the build of shard {@code shard} of {@code router}: the router's
   * seed, and every put checks on the key's hash that the key routes to the shard.
   */
  StoreBuilder shard(ShardRouter router, int shard) {
    checkConfigurable();
    this.shard = new ShardCheck(shard, router.shardCount());
    return seed(router.seed());
  }

  /** Adds a record (the arrays are copied; empty keys and values are allowed). */
  public StoreBuilder put(byte[] key, byte[] value) throws IOException {
    return put(key, 0, key.length, value, 0, value.length);
  }

  /**
   * Adds a record from array slices (copied). The first put checks the options together.
   *
   * @throws IllegalArgumentException at the first put, for options that do not go together
   *     ({@link BuildOptions.Builder#build()}); for a record whose header, key, value and checksum
   *     take more than {@link io.varve.core.store.RecordFormat#MAX_LENGTH} bytes (nothing is added,
   *     and the builder stays usable)
   */
  public StoreBuilder put(byte[] key, int keyOffset, int keyLength, byte[] value, int valueOffset, int valueLength)
      throws IOException {
    checkOpen();
    Objects.checkFromIndexSize(keyOffset, keyLength, key.length);
    Objects.checkFromIndexSize(valueOffset, valueLength, value.length);
    RecordLimit.check(keyLength, valueLength);
    if (attempt == null) {
      start();
    }
    attempt.add(key, keyOffset, keyLength, value, valueOffset, valueLength);
    shape.add(keyLength, valueLength);
    if ((++recordsPut & (BuildListener.INTERVAL - 1)) == 0) {
      options.listener().progress(BuildListener.Phase.INPUT, recordsPut, -1);
    }
    return this;
  }

  /**
   * Adds every entry of {@code records}. If it fails midway (the iterator throws, or a record is
   * refused), the records before stay added and the builder refuses every later call but {@link
   * #close()}, naming the failure: a build of part of the input would publish an incomplete store.
   */
  public StoreBuilder putAll(Iterator<? extends Map.Entry<byte[], byte[]>> records) throws IOException {
    checkOpen();
    long added = 0;
    try {
      while (records.hasNext()) {
        Map.Entry<byte[], byte[]> record = records.next();
        put(record.getKey(), record.getValue());
        added++;
      }
    } catch (IOException | RuntimeException | Error e) {
      order.fail("putAll failed after " + added + " of its records", e);
      throw e;
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
   * @throws IllegalArgumentException for options that do not go together (before anything is
   *     written, when nothing was put)
   */
  public BuildSummary build() throws IOException {
    checkOpen();
    if (attempt == null) {
      start();
    }
    order.finish();
    finishing.start();
    SortedMap<String, String> metadata = new TreeMap<>(options.metadata());
    metadata.putAll(lateMetadata);
    try {
      options.listener().progress(BuildListener.Phase.INPUT, recordsPut, recordsPut);
      StoreDirectory.checkNew(target);
      while (true) {
        BuildAttempt.Outcome outcome = attempt.writeStore(shape, metadata);
        if (outcome.meta() != null) {
          finishing.checkNotClosed();
          // Reports come before publishing: a listener that throws must fail the build, not follow it.
          StoreMeta meta = StoreReindexer.publish(outcome.staging(), outcome.meta(), target, options);
          return new BuildSummary(
              target,
              meta,
              recordsPut,
              outcome.duplicatesDropped(),
              attempt.spills(),
              attempt.attempt(),
              System.nanoTime() - startNanos);
        }
        if (attempt.attempt() == MAX_SEED_ATTEMPTS) {
          throw new IOException(
              "distinct keys share a 128-bit hash under " + MAX_SEED_ATTEMPTS + " seeds: is the hash function broken?");
        }
        attempt = attempt.rehash();
      }
    } catch (IOException | RuntimeException | Error e) {
      IllegalStateException closed = finishing.closedFailure(e);
      if (closed != null) {
        throw closed;
      }
      if (e instanceof CrowdedHashesException crowded) {
        throw CrowdedHashes.explain(crowded, attempt.seed());
      }
      throw e;
    } finally {
      try {
        attempt.discard();
      } finally {
        finishing.end();
      }
    }
  }

  /**
   * Stops the build if it has not completed and deletes its temporary files. Called from another
   * thread while {@link #build()} runs, it makes {@code build()} fail with an {@link
   * IllegalStateException} (unless it was already publishing: then the store is complete) and
   * returns once {@code build()} has removed its files.
   */
  @Override
  public void close() throws IOException {
    if (finishing.closeWhileRunning(() -> attempt.stop())) {
      order.close();
      return;
    }
    if (!order.close()) {
      return;
    }
    if (attempt != null) {
      attempt.discard();
    }
  }

  /**
   * Checks now how the options set so far go together, as the first {@code put} or {@link #build}
   * does anyway: for a caller that wants bad options refused before it reads its input.
   *
   * @throws IllegalArgumentException naming the options that do not go together
   */
  public StoreBuilder checkOptions() {
    checkConfigurable();
    checkedOptions();
    return this;
  }

  private BuildOptions checkedOptions() {
    BuildOptions checked = settings.build();
    checked.checkKeysSuit(checked.keyMode().orElse(KeyMode.FULL));
    checked.checkBlocksSuit(checked.pageAlignment().orElse(BuildOptions.DEFAULT_PAGE_ALIGNMENT));
    return checked;
  }

  /** Checks the options together and starts the first attempt. */
  private void start() {
    BuildOptions checked = checkedOptions();
    KeyMode keyMode = checked.keyMode().orElse(KeyMode.FULL);
    int pageBytes = checked.pageAlignment().orElse(BuildOptions.DEFAULT_PAGE_ALIGNMENT);
    options = checked;
    startNanos = System.nanoTime();
    attempt = new BuildAttempt(new BuildAttempt.Plan(target, checked, keyMode, pageBytes, duplicatePolicy, hashers, shard), seed, 1);
  }

  private void checkConfigurable() {
    order.checkConfigurable(options != null);
  }

  private void checkOpen() {
    order.checkOpen();
  }
}
