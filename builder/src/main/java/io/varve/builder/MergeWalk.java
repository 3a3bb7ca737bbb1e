package io.varve.builder;

import io.varve.core.artifact.StoreFiles;
import io.varve.core.format.CorruptStoreException;
import io.varve.core.store.StoreMeta;
import java.io.IOException;
import java.util.List;

/**
 * The walk of a merge: the sources (old stores oldest first, then the sorted batch) are read in
 * step, smallest hash first; of the records of one hash, the last source's wins, and a batch
 * record whose operation is a delete writes nothing. Counts what became of the records and
 * reports {@code WRITE} progress every {@value BuildListener#INTERVAL} records written. Not
 * thread-safe: the merge's thread.
 */
final class MergeWalk {
  private final RecordCursor[] sources;
  private final boolean[] live;
  private final int batchSource;
  private final List<StoreFiles> bases;
  private final List<StoreMeta> baseMetas;
  private final boolean oldKeysKept;
  private final long seed;
  private final StoreWriter writer;
  private final BuildListener listener;
  private final long upperBound;
  private long written;
  private long inserted;
  private long replaced;
  private long deleted;
  private long absentDeletes;
  private long superseded;

  /**
   * @param sources a cursor per old store, in the order of {@code bases}, then the batch's
   * @param upperBound the most records the merge can write, for the progress reports
   */
  MergeWalk(
      List<RecordCursor> sources,
      List<StoreFiles> bases,
      List<StoreMeta> baseMetas,
      long seed,
      StoreWriter writer,
      BuildListener listener,
      long upperBound) {
    this.sources = sources.toArray(new RecordCursor[0]);
    this.live = new boolean[this.sources.length];
    this.batchSource = this.sources.length - 1;
    this.bases = bases;
    this.baseMetas = baseMetas;
    this.oldKeysKept = baseMetas.get(0).keyMode().keepsKeys();
    this.seed = seed;
    this.writer = writer;
    this.listener = listener;
    this.upperBound = upperBound;
  }

  /** Batch records whose key no old store held. */
  long inserted() {
    return inserted;
  }

  /** Batch records that replaced an old store's record. */
  long replaced() {
    return replaced;
  }

  /** Old records dropped by a delete. */
  long deleted() {
    return deleted;
  }

  /** Deletes of keys no old store held. */
  long absentDeletes() {
    return absentDeletes;
  }

  /** Records of an old store replaced by a newer old store's record of the key. */
  long superseded() {
    return superseded;
  }

  /** Merges every source into the writer, feeding the index each written hash. */
  void run(IndexFeeder index) throws IOException {
    for (int s = 0; s < sources.length; s++) {
      live[s] = sources[s].next();
    }
    while (true) {
      if (sources.length == 2) {
        copyOldRecordsBeforeTheBatch(index);
      }
      int first = -1;
      for (int s = 0; s < sources.length; s++) {
        if (live[s] && (first < 0 || HashOrderSort.less(sources[s].hi, sources[s].lo, sources[first].hi, sources[first].lo))) {
          first = s;
        }
      }
      if (first < 0) {
        listener.progress(BuildListener.Phase.WRITE, written, written);
        return;
      }
      long hi = sources[first].hi;
      long lo = sources[first].lo;
      int winner = first;
      int oldHolders = first == batchSource ? 0 : 1;
      for (int s = first + 1; s < sources.length; s++) {
        if (live[s] && sources[s].hi == hi && sources[s].lo == lo) {
          // Without full keys (old stores keep signatures or nothing), one hash is one key.
          if (oldKeysKept && !sources[s].record.sameKey(sources[winner].record)) {
            throw new IOException(
                "two distinct keys share a 128-bit hash under seed " + seed
                    + ": merge impossible in hash order; rebuild the store with StoreBuilder, which picks another seed");
          }
          winner = s;
          if (s != batchSource) {
            oldHolders++;
          }
        }
      }
      superseded += Math.max(0, oldHolders - 1);
      if (write(winner, oldHolders, hi, lo)) {
        index.add(hi, lo);
      }
      for (int s = first; s < sources.length; s++) {
        if (live[s] && sources[s].hi == hi && sources[s].lo == lo) {
          advance(s, hi, lo);
        }
      }
    }
  }

  /**
   * With one old store, copies its records up to the batch's next hash: most of a merge, done
   * without the general step's search over the sources.
   */
  private void copyOldRecordsBeforeTheBatch(IndexFeeder index) throws IOException {
    RecordCursor old = sources[0];
    RecordCursor batch = sources[1];
    while (live[0] && (!live[1] || HashOrderSort.less(old.hi, old.lo, batch.hi, batch.lo))) {
      long hi = old.hi;
      long lo = old.lo;
      write(0, 1, hi, lo);
      index.add(hi, lo);
      advance(0, hi, lo);
    }
  }

  /** Writes the winning record, unless it is a delete; returns whether it wrote. */
  private boolean write(int winner, int oldHolders, long hi, long lo) throws IOException {
    RecordSlice record = sources[winner].record;
    if (winner == batchSource) {
      if (record.valueLength < 1) {
        throw new CorruptStoreException("a batch record lost its operation byte");
      }
      int valueOffset = record.valueOffset();
      if (record.bytes[valueOffset] == MergeBatch.DELETE) {
        if (oldHolders > 0) {
          deleted++;
        } else {
          absentDeletes++;
        }
        return false;
      }
      writer.add(record.bytes, record.keyOffset(), record.keyLength, record.bytes, valueOffset + 1, record.valueLength - 1, hi, lo);
      if (oldHolders > 0) {
        replaced++;
      } else {
        inserted++;
      }
    } else if (baseMetas.get(winner).isFixedSize() == writer.fixedSize()) {
      writer.add(record, hi, lo);
    } else {
      writer.add(record.bytes, record.keyOffset(), record.keyLength, record.bytes, record.valueOffset(), record.valueLength, hi, lo);
    }
    if ((++written & (BuildListener.INTERVAL - 1)) == 0) {
      listener.progress(BuildListener.Phase.WRITE, written, Math.max(written, upperBound));
    }
    return true;
  }

  private void advance(int s, long hi, long lo) throws IOException {
    RecordCursor source = sources[s];
    live[s] = source.next();
    if (live[s] && !HashOrderSort.less(hi, lo, source.hi, source.lo)) {
      throw new CorruptStoreException(
          (s == batchSource ? "the sorted batch" : bases.get(s).toString()) + ": records not in strictly increasing hash order");
    }
  }
}
