package io.varve.builder;

import io.varve.core.hash.HashRange;
import java.io.IOException;

/**
 * A merge's batch of upserts and deletes, hashed with the old stores' seed and sorted in their
 * hash order by an {@link ExternalHashSort}. Each operation is a record whose value starts with a
 * tag byte ({@link #UPSERT} or {@link #DELETE}); of the operations on one key, the last wins, and
 * the ones it supersedes are counted. Not thread-safe: the merge's thread (the sort has a thread
 * of its own).
 */
final class MergeBatch {
  /** The first byte of a batch record's value: what the operation is. The rest is the value. */
  static final byte UPSERT = 0;

  static final byte DELETE = 1;

  private final RecordHasher hasher;
  private final long seed;
  private final ExternalHashSort sort;
  private final HashRange.Tracker hashes = new HashRange.Tracker();
  private final RecordShape upserts = new RecordShape();
  private final long[] hash = new long[2];
  private byte[] tagged = new byte[256];
  private long records;
  private long superseded;

  /**
   * @param hasher the old stores' hash, under {@code seed}
   * @param workspace where the sort spills: the merge's temporary directory
   */
  MergeBatch(long memoryBudget, RecordHasher hasher, long seed, ExternalHashSort.Workspace workspace) {
    this.hasher = hasher;
    this.seed = seed;
    this.sort = new ExternalHashSort(memoryBudget, hasher, DuplicatePolicy.LAST_WINS, workspace);
  }

  void upsert(byte[] key, int keyOffset, int keyLength, byte[] value, int valueOffset, int valueLength) throws IOException {
    if (tagged.length < valueLength + 1) {
      tagged = new byte[Math.max(valueLength + 1, 2 * tagged.length)];
    }
    tagged[0] = UPSERT;
    System.arraycopy(value, valueOffset, tagged, 1, valueLength);
    add(key, keyOffset, keyLength, valueLength + 1);
    upserts.add(keyLength, valueLength);
  }

  void delete(byte[] key, int keyOffset, int keyLength) throws IOException {
    tagged[0] = DELETE;
    add(key, keyOffset, keyLength, 1);
  }

  private void add(byte[] key, int keyOffset, int keyLength, int taggedLength) throws IOException {
    hasher.hash(key, keyOffset, keyLength, hash);
    hashes.add(hash[0], hash[1]);
    sort.add(hash[0], hash[1], key, keyOffset, keyLength, tagged, 0, taggedLength);
    records++;
  }

  /** The operations added. */
  long records() {
    return records;
  }

  /** The key and value lengths of the upserts. */
  RecordShape upserts() {
    return upserts;
  }

  /** The range of the batch's hashes; null if the batch is empty. */
  HashRange hashRange() {
    return records == 0 ? null : hashes.range();
  }

  /**
   * Operations superseded by a later operation on the same key in the batch: final once the
   * cursor of {@link #sorted()} has ended.
   */
  long superseded() {
    return superseded + sort.reducedDuplicates();
  }

  /**
   * Ends the input: the operations in hash order, the last one of each key, sorted partition by
   * partition on the sort's thread while the caller reads. Two distinct keys with one hash make
   * {@code next()} throw (a merge in the seed's order is then impossible). Call once.
   */
  RecordCursor sorted() throws IOException {
    return new LastPerKey(sort.finish());
  }

  /** Stops the sort's background threads, from any thread ({@link ExternalHashSort#stop}). */
  void stop() {
    sort.stop();
  }

  /** Stops the sort's thread and frees its buffers; its files are in the caller's workspace. */
  void close() {
    sort.close();
  }

  /** Walks the sorted chunks record by record, keeping the last record of each hash. */
  private final class LastPerKey extends RecordCursor {
    private final ExternalHashSort.Chunks chunks;
    private final RecordSlice first = new RecordSlice();
    private final RecordSlice other = new RecordSlice();
    private RecordBuffer chunk;
    private int next;
    private boolean ended;

    LastPerKey(ExternalHashSort.Chunks chunks) {
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
      if (end > next + 1) {
        chunk.record(next, first);
        for (int k = next + 1; k < end; k++) {
          if (!chunk.record(k, other).sameKey(first)) {
            throw new IOException(
                "two distinct keys share a 128-bit hash under seed " + seed + ": they cannot be merged in this seed's order");
          }
        }
        superseded += end - next - 1;
      }
      // Records of one key keep the order of the operations: the last wins.
      chunk.record(end - 1, record);
      next = end;
      return true;
    }

    @Override
    public void close() throws IOException {
      chunks.close();
    }
  }
}
