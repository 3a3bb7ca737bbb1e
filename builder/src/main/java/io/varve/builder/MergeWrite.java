package io.varve.builder;

import io.varve.core.hash.HashRange;
import io.varve.core.index.IndexParameters;
import io.varve.core.store.KeyMode;
import io.varve.core.store.PageCacheWrites;
import io.varve.core.store.StoreMeta;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SortedMap;

/**
 * The one sequential pass of a {@link StoreMerger}: the old stores and the sorted batch are read in
 * hash order and merged into a new store, written in a staging directory and then published at
 * the target. On failure the staging directory is removed and the error passes through unchanged
 * (the merger explains it). Not thread-safe; one run per instance.
 */
final class MergeWrite {
  private final Path target;
  private final Path temporary;
  private final MergeBases bases;
  private final MergeBatch batch;
  private final RecordHasher hasher;
  private Path staging;

  MergeWrite(Path target, Path temporary, MergeBases bases, MergeBatch batch, RecordHasher hasher) {
    this.target = target;
    this.temporary = temporary;
    this.bases = bases;
    this.batch = batch;
    this.hasher = hasher;
  }

  /** The staging directory once the run made it, else null. */
  Path staging() {
    return staging;
  }

  /**
   * Merges and publishes; {@code finishing} is asked, just before publishing, whether the merger was
   * closed meanwhile.
   */
  MergeSummary run(BuildOptions options, KeyMode keyMode, int pageBytes, long operations, FinishGuard finishing, long startNanos)
      throws IOException {
    BuildListener listener = options.listener();
    StoreWriter writer = null;
    List<RecordCursor> sources = new ArrayList<>();
    try {
      StoreDirectory.checkNew(target);
      long seed = bases.seed();
      for (int i = 0; i < bases.files().size(); i++) {
        sources.add(StoreScan.open(bases.files().get(i), bases.metas().get(i), hasher));
      }
      listener.progress(BuildListener.Phase.INPUT, operations, operations);
      listener.progress(BuildListener.Phase.SORT, 0, operations);
      // The batch is sorted partition by partition on the sort's thread while the merge reads it.
      sources.add(batch.sorted());
      listener.progress(BuildListener.Phase.SORT, operations, operations);
      long baseRecords = bases.records();
      long upperBound = batch.records() + baseRecords;
      IndexParameters parameters =
          options.isSparse()
              ? StoreBuilder.DEFAULT_INDEX
              : options.indexParameters().orElse(bases.newest().isSparse() ? StoreBuilder.DEFAULT_INDEX : bases.newest().indexParameters());
      boolean fixed = fixedOutput(keyMode);
      parameters = StoreWriter.suited(parameters, fixed, keyMode, pageBytes);
      staging = StoreDirectory.staging(target);
      writer = newWriter(options, keyMode, pageBytes, parameters, fixed, upperBound);
      MergeWalk walk = new MergeWalk(sources, bases.files(), bases.metas(), seed, writer, listener, upperBound);
      try (IndexFeeder index = new IndexFeeder(writer.index())) {
        walk.run(index);
        index.finish();
      }
      long written = writer.records();
      listener.progress(BuildListener.Phase.INDEX, 0, written);
      if (!writer.indexMatches()) {
        writer.replaceIndex(parameters, hasher);
      }
      StoreMeta meta = writer.finish(seed, parameters, mergedMetadata(options));
      finishing.checkNotClosed();
      meta = StoreReindexer.publish(staging, meta, target, options);
      return new MergeSummary(
          target,
          meta,
          baseRecords,
          operations,
          walk.inserted(),
          walk.replaced(),
          walk.deleted(),
          walk.absentDeletes(),
          walk.superseded(),
          batch.superseded(),
          System.nanoTime() - startNanos);
    } catch (IOException | RuntimeException | Error e) {
      abandon(writer, e);
      throw e;
    } finally {
      try {
        Closeables.closeAll(sources.toArray(new RecordCursor[0]));
      } finally {
        // A published staging directory was renamed away: deleting its old name does nothing.
        TemporaryDirectories.delete(staging);
      }
    }
  }

  /** The writer of the new store in {@link #staging}, for at most {@code upperBound} records. */
  private StoreWriter newWriter(
      BuildOptions options, KeyMode keyMode, int pageBytes, IndexParameters parameters, boolean fixed, long upperBound)
      throws IOException {
    StoreMeta newest = bases.newest();
    return new StoreWriter(
        staging,
        temporary,
        upperBound,
        false,
        fixed,
        fixed ? (keyMode.keepsKeys() ? newest.keyLength() : keyMode.storedKeyLength()) : -1,
        fixed ? newest.valueLength() : -1,
        pageBytes,
        parameters,
        keyMode,
        options.dataWrites(PageCacheWrites.SMALL),
        options.recordChecksums(),
        options.recordCheckSaltForNewFile(),
        mergedHashRange());
  }

  private static void abandon(StoreWriter writer, Throwable failure) {
    if (writer != null) {
      try {
        writer.abandon();
      } catch (IOException suppressed) {
        failure.addSuppressed(suppressed);
      }
    }
  }

  /**
   * A range holding every hash the new store can hold: the old stores' ranges and the batch's. An
   * old store of a version that records none gives the full range.
   */
  private HashRange mergedHashRange() {
    HashRange.Tracker range = new HashRange.Tracker();
    bases.addHashRanges(range);
    HashRange batchRange = batch.hashRange();
    if (batchRange != null) {
      range.add(batchRange);
    }
    return range.mapping();
  }

  /** Whether every old record and every upsert has one key size and one value size. */
  private boolean fixedOutput(KeyMode keyMode) {
    StoreMeta newest = bases.newest();
    return bases.shareOneFixedSize() && batch.upserts().allHave(newest.keyLength(), newest.valueLength(), keyMode.keepsKeys());
  }

  private SortedMap<String, String> mergedMetadata(BuildOptions options) {
    SortedMap<String, String> result = bases.userMetadata();
    result.putAll(options.metadata());
    return result;
  }
}
