package io.varve.builder;

import io.varve.builder.ExternalHashSort.Leaf;
import io.varve.core.files.FileTrees;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * What {@link ExternalHashSort} does with a spilled partition that does not fit in memory: splits it
 * by further hash bits, and when all its records share one 128-bit hash (a key put more often than
 * memory holds, or a collision) keeps only that hash's distinct keys. Used by the one thread that
 * loads the partitions back; {@link #reducedDuplicates()} may be read from any thread.
 */
final class OversizedPartitions {
  private final long memoryBudget;
  private final RecordHasher hasher;
  private final DuplicatePolicy duplicatePolicy;
  private final int spillBufferBytes;
  /**
   * Records dropped before the chunks reach the caller: repeats of a key whose records, all of one
   * hash, were too many for memory. Written before the last chunk is handed over.
   */
  private volatile long reducedDuplicates;

  OversizedPartitions(long memoryBudget, RecordHasher hasher, DuplicatePolicy duplicatePolicy, int spillBufferBytes) {
    this.memoryBudget = memoryBudget;
    this.hasher = hasher;
    this.duplicatePolicy = duplicatePolicy;
    this.spillBufferBytes = spillBufferBytes;
  }

  /** Repeats of a key dropped while reducing a leaf of one hash; final once the last chunk was handed over. */
  long reducedDuplicates() {
    return reducedDuplicates;
  }

  /**
   * The leaves that replace {@code leaf}, a partition too large for memory: split by the next 8
   * hash bits into files beside it, or, when all its records share one hash, reduced to that hash's
   * distinct keys. Deletes the leaf.
   */
  List<Leaf> split(Leaf leaf) throws IOException {
    if (leaf.sharedPrefixBits() + HashPartitions.BITS > 128) {
      throw new IOException(
          "more records share one 128-bit hash than the memory budget holds: raise the memory budget");
    }
    Path directory = leaf.path().resolveSibling(leaf.path().getFileName() + ".split");
    HashPartitions parts = new HashPartitions(directory, leaf.sharedPrefixBits(), spillBufferBytes);
    boolean oneHash = true;
    try (parts;
        RecordCursor cursor = SpillFile.read(leaf.path(), 1 << 16, hasher)) {
      boolean first = true;
      long firstHi = 0;
      long firstLo = 0;
      while (cursor.next()) {
        if (first) {
          first = false;
          firstHi = cursor.hi;
          firstLo = cursor.lo;
        } else if (cursor.hi != firstHi || cursor.lo != firstLo) {
          oneHash = false;
        }
        parts.append(cursor.hi, cursor.lo, cursor.record);
      }
    }
    if (oneHash) {
      // No split can divide records of one hash: resolve their repeated keys instead.
      FileTrees.deleteTree(directory);
      return List.of(reduceSingleHash(leaf));
    }
    Files.delete(leaf.path());
    List<Leaf> result = new ArrayList<>();
    for (int p = 0; p < HashPartitions.COUNT; p++) {
      if (parts.path(p) != null) {
        result.add(new Leaf(parts.path(p), parts.partitionPrefixBits()));
      }
    }
    return result;
  }

  /**
   * Replaces a leaf whose records all have one hash by its distinct keys, each with its last
   * record (under FAIL a repeated key throws): a key put more often than memory holds.
   * Distinct keys with one hash are a collision; they are all kept for the rehash.
   */
  private Leaf reduceSingleHash(Leaf leaf) throws IOException {
    List<RecordSlice> survivors = new ArrayList<>();
    long survivorBytes = 0;
    long dropped = 0;
    long hi = 0;
    long lo = 0;
    try (RecordCursor cursor = SpillFile.read(leaf.path(), 1 << 16, hasher)) {
      while (cursor.next()) {
        hi = cursor.hi;
        lo = cursor.lo;
        RecordSlice r = cursor.record;
        RecordSlice same = null;
        for (RecordSlice s : survivors) {
          if (s.sameKey(r)) {
            same = s;
            break;
          }
        }
        if (same != null) {
          if (duplicatePolicy == DuplicatePolicy.FAIL) {
            throw new DuplicateKeyException(r.key());
          }
          survivorBytes += r.length() - same.length();
          r.copyTo(same);
          dropped++;
        } else {
          RecordSlice copy = new RecordSlice();
          r.copyTo(copy);
          survivors.add(copy);
          survivorBytes += r.length() + 64;
        }
        if (survivors.size() > 1 && survivorBytes > memoryBudget / 4) {
          throw new IOException(
              "more distinct keys share one 128-bit hash than the memory budget holds: is the hash function broken?");
        }
      }
    }
    Path reduced = leaf.path().resolveSibling(leaf.path().getFileName() + ".reduced");
    try (SpillFile.Writer writer = new SpillFile.Writer(reduced, spillBufferBytes)) {
      for (RecordSlice s : survivors) {
        writer.append(hi, lo, s);
      }
    }
    Files.delete(leaf.path());
    reducedDuplicates += dropped; // only the one loading thread writes it
    return new Leaf(reduced, 128);
  }
}
