package io.varve.builder;

import io.varve.core.hash.HashRange;
import io.varve.core.index.IndexParameters;
import io.varve.core.store.KeyMode;
import io.varve.core.store.PagedParameters;
import io.varve.core.store.StoreMeta;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.SortedMap;
import java.util.function.LongFunction;

/**
 * A build under one hash seed: the records hashed into an {@link ExternalHashSort}, whose sorted
 * chunks are written out in hash order by a {@link ChunkWriter} into a staging directory. A
 * collision of two distinct keys moves every record into an attempt with the next seed ({@link
 * #rehash}). Not thread-safe: the build's thread (the sort has a thread of its own).
 */
final class BuildAttempt {
  /** What every attempt of one build shares: its target, options resolved, and the hash per seed. */
  record Plan(
      Path target,
      BuildOptions options,
      KeyMode keyMode,
      int pageBytes,
      DuplicatePolicy duplicates,
      LongFunction<RecordHasher> hashers,
      ShardCheck shard) {
    /**
     * The index written first for records of one size ({@code fixed}) or not: the one asked for,
     * else pages for variable-size records with full keys aligned to pages (a table of about a bit
     * per key, {@link PagedParameters}), else {@link StoreBuilder#DEFAULT_INDEX}. Fixed-size records
     * keep their computed places, so pages asked for give way to the default index; a sparse store
     * is written dense first, with the default index, then re-indexed.
     */
    IndexParameters firstIndex(boolean fixed) {
      if (options.isSparse()) {
        return StoreBuilder.DEFAULT_INDEX;
      }
      return StoreWriter.suited(options.indexParameters().orElse(PagedParameters.INSTANCE), fixed, keyMode, pageBytes);
    }
  }

  /** What an attempt wrote: a staging directory with meta, or (null meta) a collision. */
  record Outcome(Path staging, StoreMeta meta, long duplicatesDropped) {}

  private final Plan plan;
  private final long seed;
  private final int attempt;
  private final RecordHasher hasher;
  private final long[] hash = new long[2];
  /** Null unless this is a shard's first attempt: the router's seed is the first seed's. */
  private final ShardCheck shardCheck;
  private final ExternalHashSort sort;
  /** The range of the hashes put under this seed: it maps them for the index. */
  private final HashRange.Tracker hashes = new HashRange.Tracker();
  private Path temporary;
  private Path staging;
  private long records;
  /** Repeats of a key dropped by earlier attempts: they stay counted. */
  private long earlierDuplicates;
  /** The writer of an attempt that met a hash collision: its data feeds the rehash. */
  private StoreWriter collided;
  private long droppedBeforeCollision;

  BuildAttempt(Plan plan, long seed, int attempt) {
    this.plan = plan;
    this.seed = seed;
    this.attempt = attempt;
    this.hasher = plan.hashers().apply(seed);
    this.shardCheck = attempt == 1 ? plan.shard() : null;
    this.sort = new ExternalHashSort(plan.options().memoryBudget(), hasher, plan.duplicates(), this::temporaryDirectory);
  }

  long seed() {
    return seed;
  }

  /** 1 for the first seed tried. */
  int attempt() {
    return attempt;
  }

  /** Buffers the sort spilled. */
  int spills() {
    return sort.spills();
  }

  void add(byte[] key, int keyOffset, int keyLength, byte[] value, int valueOffset, int valueLength) throws IOException {
    hasher.hash(key, keyOffset, keyLength, hash);
    if (shardCheck != null) {
      shardCheck.check(hash[1], key, keyOffset, keyLength);
    }
    hashes.add(hash[0], hash[1]);
    sort.add(hash[0], hash[1], key, keyOffset, keyLength, value, valueOffset, valueLength);
    records++;
  }

  private Path temporaryDirectory() throws IOException {
    if (temporary == null) {
      Path parent = plan.options().temporaryDirectory().orElse(plan.target().getParent());
      temporary = TemporaryDirectories.create(parent, ".varve-build-", true);
    }
    return temporary;
  }

  /**
   * Writes everything into a staging directory in one pass. A null meta means a hash collision:
   * {@link #rehash} then takes the records from the data just written.
   *
   * @param shape the lengths of the records put
   * @param metadata the user metadata of the store
   */
  Outcome writeStore(RecordShape shape, SortedMap<String, String> metadata) throws IOException {
    BuildListener listener = plan.options().listener();
    listener.progress(BuildListener.Phase.SORT, 0, records);
    ExternalHashSort.Chunks chunks = sort.finish();
    listener.progress(BuildListener.Phase.SORT, records, records);
    staging = StoreDirectory.staging(plan.target());
    KeyMode keyMode = plan.keyMode();
    BuildOptions options = plan.options();
    IndexParameters index = plan.firstIndex(shape.isFixed(keyMode));
    StoreWriter writer;
    try {
      writer =
          new StoreWriter(
              staging,
              temporaryDirectory(),
              records,
              true,
              shape.isFixed(keyMode),
              keyMode.keepsKeys() ? shape.minKeyLength() : keyMode.storedKeyLength(),
              shape.minValueLength(),
              plan.pageBytes(),
              index,
              keyMode,
              options.dataWrites(),
              options.recordChecksums(),
              options.recordCheckSaltForNewFile(),
              hashes.mapping());
    } catch (IOException e) {
      throw FullDisk.named(e, staging);
    }
    try {
      ChunkWriter chunkWriter = new ChunkWriter(writer, plan.duplicates(), listener, records);
      try {
        RecordBuffer chunk;
        while ((chunk = chunks.next()) != null) {
          chunkWriter.write(chunk);
          chunks.release(chunk);
        }
      } finally {
        chunks.close();
      }
      chunkWriter.finish();
      if (chunkWriter.collision() && !keyMode.keepsKeys()) {
        throw new IOException(
            "two distinct keys share a 128-bit hash under seed " + seed + ": a store without full keys cannot be rehashed"
                + " from what it wrote; build it again with another seed");
      }
      if (chunkWriter.collision()) {
        collided = writer;
        droppedBeforeCollision = chunkWriter.duplicates();
        return new Outcome(null, null, 0);
      }
      long distinct = writer.records();
      listener.progress(BuildListener.Phase.INDEX, 0, distinct);
      if (!writer.indexMatches()) {
        // LAST_WINS dropped duplicates: the index was sized for every record put.
        writer.replaceIndex(index, hasher);
      }
      // The phase ends as the store is published (StoreReindexer.publish).
      StoreMeta meta = writer.finish(seed, index, metadata);
      return new Outcome(staging, meta, chunkWriter.duplicates() + sort.reducedDuplicates() + earlierDuplicates);
    } catch (IOException | RuntimeException | Error e) {
      try {
        writer.abandon();
      } catch (IOException | RuntimeException suppressed) {
        e.addSuppressed(suppressed); // closing fails too on a full disk: report the first failure
      }
      if (e instanceof IOException io) {
        throw FullDisk.named(io, staging); // spills name their own full disk: one unnamed here is the store's
      }
      throw e;
    }
  }

  /** Moves every record, in input order per key, into an attempt with the next seed. */
  BuildAttempt rehash() throws IOException {
    BuildAttempt next = new BuildAttempt(plan, seed + 1, attempt + 1);
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
      // The caller still holds (and discards) this attempt; the new one is referenced nowhere.
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

  /** Stops the sort's background threads, from any thread ({@link ExternalHashSort#stop}). */
  void stop() {
    sort.stop();
  }

  /** Stops the sort's thread and deletes the temporary and staging files. */
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
