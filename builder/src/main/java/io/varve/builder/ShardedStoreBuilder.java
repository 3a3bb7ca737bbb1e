package io.varve.builder;

import io.varve.core.artifact.StoreArtifact;
import io.varve.core.files.FileTrees;
import io.varve.core.shard.ShardManifest;
import io.varve.core.shard.ShardRouter;
import io.varve.core.store.KeyMode;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Builds a sharded store in one process: a root directory of {@code shards} stores, each holding
 * the keys {@link ShardRouter} sends to it, and a {@value ShardManifest#FILE_NAME} that names them.
 *
 * <pre>{@code
 * try (ShardedStoreBuilder builder = ShardedStoreBuilder.create(Path.of("/data/users"), 8)) {
 *   for (Row row : rows) {
 *     builder.put(row.key(), row.value());
 *   }
 *   builder.build();     // the root appears, complete with its manifest, only now
 * }
 * }</pre>
 *
 * <p>How: every key is routed by its own hash to one {@link StoreBuilder} per shard, which sorts
 * (and spills) as a single build does, within the memory budget divided by the shard count, so the
 * whole build stays within the budget; each shard's thread and spill files exist only once it
 * spills (then up to 256 open spill files per shard: many spilling shards need a high limit of open
 * files, or shards built apart with {@link #buildShard}). {@link #build()} builds the shards one after the other into a staging directory beside
 * the root, writes the manifest last, forces everything to disk and renames the staging directory
 * to the root: readers see a complete sharded store or none, and a killed build leaves only a
 * staging directory that the next build beside it removes ({@link TemporaryDirectories}). A
 * duplicate key lands in one shard by construction, so {@link DuplicatePolicy} works as in a single
 * build.
 *
 * <p>The options are a single build's ({@link BuildOptions}): every shard gets them, with the
 * memory budget divided and the user metadata copied. Progress: {@link BuildListener.Phase#INPUT}
 * while records are put, {@link BuildListener.Phase#WRITE} over all shards, then {@link
 * BuildListener.Phase#PUBLISH} once.
 *
 * <p>A Spark-style job that builds each shard in a task of its own uses {@link #buildShard} per
 * task and writes the {@link ShardManifest} of the shards it built at commit.
 *
 * <p>Not thread-safe: one thread calls {@code put} and {@code build}; {@link #close()} may come
 * from another thread to stop a build.
 */
public final class ShardedStoreBuilder implements Closeable {
  private final Path root;
  private final int shardCount;
  private final BuildOptions options;
  private DuplicatePolicy duplicates = DuplicatePolicy.FAIL;
  private long seed;
  private ShardRouter router;
  private Path staging;
  private StoreBuilder[] shards;
  private long recordsPut;
  private long startNanos;
  /** Records written by the shards built before the one building now: WRITE progress adds to it. */
  private long writtenBefore;
  /** The last WRITE progress reported, -1 before the first. */
  private long writeReported = -1;
  private final UseOrder order = new UseOrder("builder", "build()", "put()");
  private final FinishGuard finishing = new FinishGuard("builder", "build()");
  private boolean artifacts;

  private ShardedStoreBuilder(Path root, int shardCount, BuildOptions options) {
    this.root = root.toAbsolutePath().normalize();
    this.shardCount = shardCount;
    this.options = options;
  }

  /**
   * Starts a build of a sharded store of {@code shards} shards at {@code root}, which must not
   * exist yet (its parent must), with every option at its default.
   *
   * @throws IllegalArgumentException unless {@code 1 <= shards <= 65536} and the memory budget
   *     gives each shard at least {@link BuildOptions#MIN_MEMORY_BUDGET}
   * @throws FileAlreadyExistsException if {@code root} exists
   * @throws NoSuchFileException if its parent directory does not exist
   */
  public static ShardedStoreBuilder create(Path root, int shards) throws IOException {
    return create(root, shards, BuildOptions.DEFAULTS);
  }

  /**
   * {@link #create(Path, int)} with {@code options}, which every shard is built with (the memory
   * budget divided among them).
   */
  public static ShardedStoreBuilder create(Path root, int shards, BuildOptions options) throws IOException {
    ShardRouter.checkShardCount(shards);
    Objects.requireNonNull(options, "options");
    if (options.memoryBudget() / shards < BuildOptions.MIN_MEMORY_BUDGET) {
      throw new IllegalArgumentException("a memory budget of " + options.memoryBudget() + " bytes gives each of " + shards
          + " shards less than " + BuildOptions.MIN_MEMORY_BUDGET + " bytes: raise it to at least "
          + shards * BuildOptions.MIN_MEMORY_BUDGET + " (option memoryBudget), or build the shards apart with buildShard");
    }
    ShardedStoreBuilder builder = new ShardedStoreBuilder(root, shards, options);
    StoreDirectory.checkNew(builder.root);
    return builder;
  }

  /** What to do with repeated keys (default {@link DuplicatePolicy#FAIL}). */
  public ShardedStoreBuilder duplicates(DuplicatePolicy policy) {
    checkConfigurable();
    this.duplicates = Objects.requireNonNull(policy, "policy");
    return this;
  }

  /**
   * Writes each shard as a one-file artifact, {@code shard-00000.varve}, instead of a directory
   * (default: directories): a root to ship shard by shard, which {@code ShardedStore} opens the same.
   */
  public ShardedStoreBuilder shardsAsArtifacts() {
    checkConfigurable();
    this.artifacts = true;
    return this;
  }

  /** The hash seed keys are routed by, and every shard's first seed (default 0). */
  public ShardedStoreBuilder seed(long seed) {
    checkConfigurable();
    this.seed = seed;
    return this;
  }

  /** Adds a record (the arrays are copied; empty keys and values are allowed). */
  public ShardedStoreBuilder put(byte[] key, byte[] value) throws IOException {
    return put(key, 0, key.length, value, 0, value.length);
  }

  /** Adds a record from array slices (copied). The first put checks the options together. */
  public ShardedStoreBuilder put(byte[] key, int keyOffset, int keyLength, byte[] value, int valueOffset, int valueLength)
      throws IOException {
    checkOpen();
    Objects.checkFromIndexSize(keyOffset, keyLength, key.length);
    if (shards == null) {
      start();
    }
    shards[router.shardOf(key, keyOffset, keyLength)].put(key, keyOffset, keyLength, value, valueOffset, valueLength);
    if ((++recordsPut & (BuildListener.INTERVAL - 1)) == 0) {
      options.listener().progress(BuildListener.Phase.INPUT, recordsPut, -1);
    }
    return this;
  }

  /** The records put so far, duplicates included. */
  public long recordsPut() {
    return recordsPut;
  }

  /**
   * Builds every shard, writes the manifest and publishes the root atomically. Call once.
   *
   * @throws DuplicateKeyException under {@link DuplicatePolicy#FAIL} when a key was put twice
   * @throws FileAlreadyExistsException if the root appeared meanwhile
   */
  public ShardedBuildSummary build() throws IOException {
    checkOpen();
    if (shards == null) {
      start();
    }
    order.finish();
    finishing.start();
    try {
      return buildShardsAndPublish();
    } catch (IOException | RuntimeException | Error e) {
      // Nothing was published: remove the shards built so far now, not only when closed.
      Path written = staging;
      order.close();
      try {
        discard();
      } catch (IOException suppressed) {
        e.addSuppressed(suppressed);
      }
      IllegalStateException closed = finishing.closedFailure(e);
      if (closed != null) {
        throw closed;
      }
      if (e instanceof IOException io) {
        throw FullDisk.named(io, written); // the shards' builds name their spills' and their own
      }
      throw e;
    } finally {
      finishing.end();
    }
  }

  private ShardedBuildSummary buildShardsAndPublish() throws IOException {
    BuildListener listener = options.listener();
    listener.progress(BuildListener.Phase.INPUT, recordsPut, recordsPut);
    StoreDirectory.checkNew(root);
    List<ShardManifest.Shard> entries = new ArrayList<>(shardCount);
    long dropped = 0;
    int spills = 0;
    reportWrite(0);
    for (int i = 0; i < shardCount; i++) {
      finishing.checkNotClosed();
      long put = shards[i].recordsPut();
      BuildSummary summary = shards[i].build();
      shards[i].close();
      writtenBefore += put;
      dropped += summary.duplicatesDropped();
      spills += summary.spills();
      entries.add(ShardManifest.describe(summary.directory(), ShardManifest.shardName(i)));
      if (artifacts) {
        StoreArtifacts.pack(summary.directory(), staging.resolve(ShardManifest.shardName(i) + StoreArtifact.SUFFIX));
        FileTrees.deleteTree(summary.directory());
      }
    }
    reportWrite(recordsPut);
    ShardManifest manifest = new ShardManifest(seed, keyMode(options), System.currentTimeMillis(), entries);
    manifest.write(staging.resolve(ShardManifest.FILE_NAME));
    listener.progress(BuildListener.Phase.PUBLISH, recordsPut, recordsPut);
    finishing.checkNotClosed();
    StoreDirectory.publish(staging, root);
    staging = null;
    return new ShardedBuildSummary(root, manifest, recordsPut, dropped, spills, System.nanoTime() - startNanos);
  }

  /**
   * Stops the build if it has not completed and deletes its staging and temporary files. Called
   * from another thread while {@link #build()} runs, it lets the shard being built finish, makes
   * {@code build()} fail with an {@link IllegalStateException} before the next shard (or before
   * publishing) and returns once {@code build()} has removed its files.
   */
  @Override
  public void close() throws IOException {
    if (finishing.closeWhileRunning(() -> {})) {
      order.close();
      return;
    }
    if (!order.close()) {
      return;
    }
    discard();
  }

  /** Closes the shards' builders and deletes the staging directory. */
  private void discard() throws IOException {
    IOException failure = null;
    if (shards != null) {
      for (StoreBuilder shard : shards) {
        try {
          shard.close();
        } catch (IOException e) {
          failure = failure == null ? e : failure;
        }
      }
    }
    TemporaryDirectories.delete(staging);
    staging = null;
    if (failure != null) {
      throw failure;
    }
  }

  /**
   * The records of one shard, put into the builder {@link #buildShard} hands over: a task that holds
   * its records as array slices puts them without making an entry per record. The builder checks
   * each key's route on the hash it computes anyway. Only put: {@code buildShard} builds. Called
   * once, from the build's thread: implementations need not be thread-safe.
   */
  @FunctionalInterface
  public interface ShardRecords {
    /** Puts every record of the shard into {@code builder}. */
    void putAll(StoreBuilder builder) throws IOException;

    /** The records of {@code entries}. */
    static ShardRecords of(Iterator<? extends Map.Entry<byte[], byte[]>> entries) {
      Objects.requireNonNull(entries, "entries");
      return builder -> builder.putAll(entries);
    }
  }

  /**
   * Builds shard {@code shard} of a sharded store routed by {@code router} as a store directory at
   * {@code directory} (which must not exist; its parent must) from {@code records}, and describes
   * it for the manifest: what a task of a distributed job calls for the shard it was given. Every
   * key must route to {@code shard}; a key that does not fails the build (a job that partitioned
   * its records another way would otherwise publish keys no reader finds).
   *
   * @throws IllegalArgumentException naming the first key of another shard
   * @throws DuplicateKeyException under {@link DuplicatePolicy#FAIL} when a key repeats
   */
  public static ShardManifest.Shard buildShard(
      Path directory,
      ShardRouter router,
      int shard,
      BuildOptions options,
      DuplicatePolicy duplicates,
      Iterator<? extends Map.Entry<byte[], byte[]>> records)
      throws IOException {
    return buildShard(directory, router, shard, options, duplicates, ShardRecords.of(records));
  }

  /** {@link #buildShard(Path, ShardRouter, int, BuildOptions, DuplicatePolicy, Iterator)} from records put by {@code records}. */
  public static ShardManifest.Shard buildShard(
      Path directory,
      ShardRouter router,
      int shard,
      BuildOptions options,
      DuplicatePolicy duplicates,
      ShardRecords records)
      throws IOException {
    Objects.checkIndex(shard, router.shardCount());
    Objects.requireNonNull(records, "records");
    try (StoreBuilder builder = StoreBuilder.create(directory, options).duplicates(duplicates).shard(router, shard)) {
      records.putAll(builder);
      builder.build();
    }
    return ShardManifest.describe(directory, directory.getFileName().toString());
  }

  /**
   * {@link #buildShard} written as the one-file artifact {@code artifact} ({@code NAME.varve}, which
   * must not exist; its parent must): the shard is built in a staging directory beside it, packed
   * ({@link StoreArtifacts#pack}) and the staging removed. What a task of a distributed job calls to
   * ship its shard as one file; the entry it returns names the shard {@code NAME}.
   *
   * @throws IllegalArgumentException if {@code artifact}'s name does not end in {@value
   *     StoreArtifact#SUFFIX}, or naming the first key of another shard
   */
  public static ShardManifest.Shard buildShardArtifact(
      Path artifact,
      ShardRouter router,
      int shard,
      BuildOptions options,
      DuplicatePolicy duplicates,
      Iterator<? extends Map.Entry<byte[], byte[]>> records)
      throws IOException {
    return buildShardArtifact(artifact, router, shard, options, duplicates, ShardRecords.of(records));
  }

  /** {@link #buildShardArtifact(Path, ShardRouter, int, BuildOptions, DuplicatePolicy, Iterator)} from records put by {@code records}. */
  public static ShardManifest.Shard buildShardArtifact(
      Path artifact,
      ShardRouter router,
      int shard,
      BuildOptions options,
      DuplicatePolicy duplicates,
      ShardRecords records)
      throws IOException {
    if (!StoreArtifact.isArtifactName(artifact)) {
      throw new IllegalArgumentException(artifact + ": a shard artifact's name ends in " + StoreArtifact.SUFFIX);
    }
    StoreDirectory.checkNew(artifact);
    String file = artifact.getFileName().toString();
    String name = file.substring(0, file.length() - StoreArtifact.SUFFIX.length());
    ShardManifest.checkName(name);
    Path staging = StoreDirectory.staging(artifact);
    try {
      Path directory = staging.resolve(name);
      ShardManifest.Shard entry = buildShard(directory, router, shard, options, duplicates, records);
      StoreArtifacts.pack(directory, artifact);
      return entry;
    } finally {
      TemporaryDirectories.delete(staging);
    }
  }

  private static KeyMode keyMode(BuildOptions options) {
    return options.keyMode().orElse(KeyMode.FULL);
  }

  /** Creates the staging directory and a builder per shard inside it. */
  private void start() throws IOException {
    router = ShardRouter.of(seed, shardCount);
    startNanos = System.nanoTime();
    BuildOptions perShard = options.toBuilder()
        .memoryBudget(options.memoryBudget() / shardCount)
        .listener(this::shardProgress)
        .build();
    staging = StoreDirectory.staging(root);
    shards = new StoreBuilder[shardCount];
    try {
      for (int i = 0; i < shardCount; i++) {
        shards[i] = StoreBuilder.create(staging.resolve(ShardManifest.shardName(i)), perShard).duplicates(duplicates).seed(seed);
      }
      shards[0].checkOptions();
    } catch (IOException | RuntimeException e) {
      try {
        close();
      } catch (IOException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
  }

  /** A shard's progress: its WRITE reports, added to the shards built before, are the whole build's. */
  private void shardProgress(BuildListener.Phase phase, long done, long total) {
    if (phase == BuildListener.Phase.WRITE) {
      reportWrite(Math.min(recordsPut, writtenBefore + done));
    }
  }

  private void reportWrite(long done) {
    // A shard under LAST_WINS writes twice: report only progress forward.
    if (done > writeReported) {
      writeReported = done;
      options.listener().progress(BuildListener.Phase.WRITE, done, recordsPut);
    }
  }

  private void checkConfigurable() {
    order.checkConfigurable(shards != null);
  }

  private void checkOpen() {
    order.checkOpen();
  }
}
