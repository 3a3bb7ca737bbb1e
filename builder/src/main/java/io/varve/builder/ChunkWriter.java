package io.varve.builder;

import io.varve.core.index.RankIndexBuilder;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes a build's sorted chunks to a {@link StoreWriter}, in hash order: records of one hash are
 * resolved as {@link MergedRecords} does (a repeated key by the {@link DuplicatePolicy}; distinct
 * keys are a collision, all kept, and the attempt must rehash), and the index is fed each distinct
 * hash. Reports {@code WRITE} progress every {@value BuildListener#INTERVAL} records taken from
 * the sort. Not thread-safe: the build's thread.
 */
final class ChunkWriter {
  private final StoreWriter writer;
  private final DuplicatePolicy duplicatePolicy;
  private final BuildListener listener;
  private final long total;
  private final RankIndexBuilder index;
  private final RecordSlice slice = new RecordSlice();
  private boolean anyHash;
  private long lastHi;
  private long lastLo;
  private long taken;
  private long duplicates;
  private boolean collision;

  /** @param total the records the sort holds, for the progress reports */
  ChunkWriter(StoreWriter writer, DuplicatePolicy duplicatePolicy, BuildListener listener, long total) {
    this.writer = writer;
    this.duplicatePolicy = duplicatePolicy;
    this.listener = listener;
    this.total = total;
    this.index = writer.index();
  }

  /** Repeats of a key dropped so far under {@link DuplicatePolicy#LAST_WINS}. */
  long duplicates() {
    return duplicates;
  }

  /** Whether two distinct keys shared a hash: the attempt's store is unusable and must be rehashed. */
  boolean collision() {
    return collision;
  }

  /** Writes the chunk and feeds its hashes to the index. */
  void write(RecordBuffer chunk) throws IOException {
    // The index on this thread, loading and sorting on the sort's: the two halves of the work are
    // about equal.
    feedIndex(chunk);
    int n = chunk.size();
    for (int i = 0; i < n; ) {
      long hi = chunk.hi(i);
      long lo = chunk.lo(i);
      int end = i + 1;
      while (end < n && chunk.hi(end) == hi && chunk.lo(end) == lo) {
        end++;
      }
      if (end == i + 1) {
        // Nearly every record has a hash of its own: written without a copy.
        writer.add(chunk.record(i, slice), hi, lo);
      } else {
        writeGroup(chunk, i, end, hi, lo);
      }
      long before = taken;
      taken += end - i;
      if (before / BuildListener.INTERVAL != taken / BuildListener.INTERVAL) {
        listener.progress(BuildListener.Phase.WRITE, Math.min(taken, total), total);
      }
      i = end;
    }
  }

  /** Ends the writing: the phase's last report. */
  void finish() {
    listener.progress(BuildListener.Phase.WRITE, total, total);
  }

  /** Records {@code from} to {@code end} share one hash: one key's repeats, or a collision. */
  private void writeGroup(RecordBuffer chunk, int from, int end, long hi, long lo) throws IOException {
    List<RecordSlice> survivors = new ArrayList<>();
    for (int k = from; k < end; k++) {
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

  /**
   * Feeds the index with every distinct hash of the chunk, in order: equal hashes are one key's
   * duplicates (or a collision, which aborts the attempt), so the index needs no key comparisons.
   */
  private void feedIndex(RecordBuffer chunk) {
    if (index == null) {
      return; // a paged store: its page table comes with its data
    }
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
