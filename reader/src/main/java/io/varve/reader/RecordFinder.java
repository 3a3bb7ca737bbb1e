package io.varve.reader;

import io.varve.core.ect.EctIndex;
import io.varve.core.format.CorruptStoreException;
import io.varve.core.hash.HashRange;
import io.varve.core.hash.KeyHasher;
import io.varve.core.index.RankIndex;
import io.varve.core.index.RecordPrefetcher;
import io.varve.core.store.KeyMode;
import io.varve.core.store.RecordBlocks;
import java.util.Arrays;

/**
 * How a lookup finds its key's record, chosen once when the store opens: {@link Indexed} asks a
 * dense index for the rank and compares the record there, {@link InBlock} asks a sparse index for
 * the block and compares the block's records in turn, {@link PageFinder} finds the frame through the
 * page table and the record through the frame's head, {@link BinarySearch} (a store opened without
 * its index) bisects the records, which lie in hash order. Every answer is a record whose key
 * matched ({@link KeyMatch}) and whose checksum held. Thread-safe (immutable; per-thread scratch
 * arrays).
 */
abstract sealed class RecordFinder
    permits RecordFinder.Indexed, RecordFinder.InBlock, PageFinder, RecordFinder.BinarySearch {
  final KeyHasher hasher;
  final Records records;
  final KeyMatch keyMatch;

  RecordFinder(KeyHasher hasher, Records records, KeyMatch keyMatch) {
    this.hasher = hasher;
    this.records = records;
    this.keyMatch = keyMatch;
  }

  /**
   * The finder for a store with {@code index} (null when opened without it) and, when its index is
   * sparse, {@code blocks}.
   */
  static RecordFinder of(
      KeyHasher hasher, Records records, KeyMatch keyMatch, RankIndex index, HashRange hashRange, RecordBlocks blocks) {
    if (records instanceof PagedRecords paged) {
      return new PageFinder(hasher, paged, keyMatch, hashRange);
    }
    if (index == null) {
      return new BinarySearch(hasher, records, keyMatch);
    }
    if (blocks != null) {
      return new InBlock(hasher, records, keyMatch, (EctIndex) index, hashRange, blocks);
    }
    return new Indexed(hasher, records, keyMatch, index, hashRange);
  }

  /** The value of {@code key[offset, offset + length)}, or null when absent. */
  final byte[] value(byte[] key, int offset, int length) {
    RecordCopy scratch = RecordCopy.ofThisThread();
    long[] hash = scratch.hash;
    hasher.hash(key, offset, length, hash);
    long position = position(hash[0], hash[1], key, offset, length, scratch);
    return position < 0 ? null : records.valueBytes(position, scratch);
  }

  /**
   * {@link #value} for a key whose hash is {@code hi:lo}, which the caller computed already (a
   * sharded store, routing by the same hash).
   */
  final byte[] value(long hi, long lo, byte[] key) {
    RecordCopy scratch = RecordCopy.ofThisThread();
    long position = position(hi, lo, key, 0, key.length, scratch);
    return position < 0 ? null : records.valueBytes(position, scratch);
  }

  /**
   * Copies the value of {@code key[offset, offset + length)} to {@code target[targetOffset]} when
   * it fits there; returns its length either way, or -1 when the key is absent.
   */
  final int copyValue(byte[] key, int offset, int length, byte[] target, int targetOffset) {
    RecordCopy scratch = RecordCopy.ofThisThread();
    long[] hash = scratch.hash;
    hasher.hash(key, offset, length, hash);
    long position = position(hash[0], hash[1], key, offset, length, scratch);
    return position < 0 ? -1 : records.copyValue(position, target, targetOffset, scratch);
  }

  /** The rank of the record of {@code key[offset, offset + length)} in hash order, or -1 when absent. */
  final long rank(byte[] key, int offset, int length) {
    RecordCopy scratch = RecordCopy.ofThisThread();
    long[] hash = scratch.hash;
    hasher.hash(key, offset, length, hash);
    return rank(hash[0], hash[1], key, offset, length, scratch);
  }

  /** {@link #rank(byte[], int, int)} for a key whose hash is {@code hi:lo}. */
  final long rank(long hi, long lo, byte[] key, int offset, int length) {
    return rank(hi, lo, key, offset, length, RecordCopy.ofThisThread());
  }

  /**
   * The position of the record of {@code key[offset, offset + length)}, whose hash is {@code hi:lo},
   * or -1 when absent: the record at the hash's candidate rank, if it matches the key. The record
   * is then in {@code scratch}, this thread's.
   */
  long position(long hi, long lo, byte[] key, int offset, int length, RecordCopy scratch) {
    long rank = rankOfHash(hi, lo);
    if (rank < 0) {
      return -1;
    }
    long position = records.start(rank);
    return keyMatch.matches(records, position, key, offset, length, lo, scratch) ? position : -1;
  }

  /** {@link #position(long, long, byte[], int, int, RecordCopy)}, answering the record's rank. */
  long rank(long hi, long lo, byte[] key, int offset, int length, RecordCopy scratch) {
    long rank = rankOfHash(hi, lo);
    return rank >= 0 && keyMatch.matches(records, records.start(rank), key, offset, length, lo, scratch) ? rank : -1;
  }

  /** The candidate rank of hash {@code hi:lo} (the record there is not compared), or -1. */
  abstract long rankOfHash(long hi, long lo);

  /**
   * {@code values[i] = value of keys[i]} or null, for {@code i} in {@code [0, keys.length)};
   * {@code hashes}, when not null, holds each key's hash ({@code hi, lo} at {@code 2i, 2i + 1}),
   * computed already by the caller.
   */
  void findAll(byte[][] keys, long[] hashes, byte[][] values) {
    for (int i = 0; i < keys.length; i++) {
      values[i] = hashes == null ? value(keys[i], 0, keys[i].length) : value(hashes[2 * i], hashes[2 * i + 1], keys[i]);
    }
  }

  /** What lookups read ahead for their record. */
  ReadAhead readAhead() {
    return ReadAhead.NONE;
  }

  /**
   * A candidate rank from the index, confirmed by the record there. The index answers in the
   * store's {@link HashRange}: hashes outside it are absent, the others are mapped into it.
   */
  static final class Indexed extends RecordFinder {
    /** Lookups that {@link #findAll} overlaps: their memory reads are issued together. */
    private static final int GROUP = 16;

    private final RankIndex index;
    private final HashRange hashRange;
    private final boolean fullHashRange;
    private final ReadAhead readAhead;
    /** Overlaps the record's cache misses with the index's; null where the record's place is not computable. */
    private final RecordPrefetcher prefetcher;

    private Indexed(KeyHasher hasher, Records records, KeyMatch keyMatch, RankIndex index, HashRange hashRange) {
      super(hasher, records, keyMatch);
      this.index = index;
      this.hashRange = hashRange;
      this.fullHashRange = hashRange.isFull();
      this.readAhead = ReadAhead.choose(index, records);
      this.prefetcher = readAhead.prefetcher(index, records);
    }

    @Override
    long rankOfHash(long hi, long lo) {
      if (!fullHashRange) {
        if (!hashRange.contains(hi, lo)) {
          return -1;
        }
        long mappedHi = hashRange.mapHi(hi, lo);
        lo = hashRange.mapLo(hi, lo);
        hi = mappedHi;
      }
      return prefetcher != null ? index.rank(hi, lo, prefetcher) : index.rank(hi, lo);
    }

    @Override
    ReadAhead readAhead() {
      return readAhead;
    }

    /**
     * The index reads of 16 lookups are issued before any is decoded, and the 16 records are then
     * touched before any is compared, so that their cache misses overlap instead of following one
     * another.
     */
    @Override
    void findAll(byte[][] keys, long[] hashes, byte[][] values) {
      long[] lo = new long[GROUP];
      long[] mappedHi = new long[GROUP];
      long[] mappedLo = new long[GROUP];
      long[] ranks = new long[GROUP];
      RecordCopy scratch = RecordCopy.ofThisThread();
      long[] hash = scratch.hash;
      for (int from = 0; from < keys.length; from += GROUP) {
        int count = Math.min(GROUP, keys.length - from);
        int outside = 0; // bit i: key i's hash lies outside the store's range
        for (int i = 0; i < count; i++) {
          byte[] key = keys[from + i];
          if (hashes == null) {
            hasher.hash(key, 0, key.length, hash);
          } else {
            hash[0] = hashes[2 * (from + i)];
            hash[1] = hashes[2 * (from + i) + 1];
          }
          lo[i] = hash[1];
          if (hashRange.contains(hash[0], hash[1])) {
            mappedHi[i] = hashRange.mapHi(hash[0], hash[1]);
            mappedLo[i] = hashRange.mapLo(hash[0], hash[1]);
          } else {
            outside |= 1 << i;
            mappedHi[i] = 0;
            mappedLo[i] = 0;
          }
        }
        index.rank(mappedHi, mappedLo, ranks, 0, count);
        long touched = 0;
        for (int i = 0; i < count; i++) {
          if ((outside & 1 << i) != 0) {
            ranks[i] = -1;
          } else if (ranks[i] >= 0) {
            ranks[i] = records.start(ranks[i]);
            touched += records.data.readByte(ranks[i]);
          }
        }
        for (int i = 0; i < count; i++) {
          long position = ranks[i];
          byte[] key = keys[from + i];
          values[from + i] =
              position >= 0 && keyMatch.matches(records, position, key, 0, key.length, lo[i], scratch)
                  ? records.valueBytes(position, scratch)
                  : null;
        }
        if (touched == Long.MIN_VALUE) {
          // Never true (at most 16 bytes are summed): it only keeps the touches, which bring the
          // records into the cache, from being optimized away, without a shared field write.
          throw new AssertionError();
        }
      }
    }
  }

  /**
   * A sparse store: the index gives the block, whose records lie back to back from its first start
   * and are compared key by key. The block is copied to a per-thread array once and searched there
   * (much faster than record-by-record reads of the mapping); a record that runs past the block
   * (one larger than a block) is searched in the mapping.
   */
  static final class InBlock extends RecordFinder {
    /** Compares the records past the block's copy, which lie in the mapping. */
    private static final KeyMatch FULL_KEY = KeyMatch.of(KeyMode.FULL);

    /** A copy of the block a lookup searches. */
    private static final ThreadLocal<byte[]> BLOCK = ThreadLocal.withInitial(() -> new byte[0]);

    private final EctIndex index;
    private final HashRange hashRange;
    private final RecordBlocks blocks;

    private InBlock(KeyHasher hasher, Records records, KeyMatch keyMatch, EctIndex index, HashRange hashRange, RecordBlocks blocks) {
      super(hasher, records, keyMatch);
      this.index = index;
      this.hashRange = hashRange;
      this.blocks = blocks;
    }

    @Override
    long position(long hi, long lo, byte[] key, int offset, int length, RecordCopy scratch) {
      return search(blockOf(hi, lo), key, offset, length, true, scratch);
    }

    @Override
    long rank(long hi, long lo, byte[] key, int offset, int length, RecordCopy scratch) {
      return search(blockOf(hi, lo), key, offset, length, false, scratch);
    }

    @Override
    long rankOfHash(long hi, long lo) {
      return hashRange.rank(index, hi, lo);
    }

    /** The block the index gives hash {@code hi:lo}, or -1. */
    private long blockOf(long hi, long lo) {
      return hashRange.contains(hi, lo) ? index.block(hashRange.mapHi(hi, lo), hashRange.mapLo(hi, lo)) : -1;
    }

    /** Searches block {@code b} for a key; returns the record's position (or its rank), or -1 when absent. */
    private long search(long b, byte[] key, int offset, int length, boolean wantPosition, RecordCopy scratch) {
      if (b < 0) {
        return -1;
      }
      if (b >= blocks.blockCount()) {
        throw new CorruptStoreException(records.faults.directory() + ": the index points to block " + b + " of " + blocks.blockCount());
      }
      long rank = blocks.firstRank(b);
      long end = blocks.firstRank(b + 1);
      long start = records.dataStart + blocks.firstStart(b);
      int span = (int) (Math.min(records.dataStart + records.dataBytes, records.dataStart + (b + 1) * blocks.blockBytes()) - start);
      byte[] block = BLOCK.get();
      if (block.length < span + Long.BYTES) {
        block = new byte[span + Long.BYTES];
        BLOCK.set(block);
      }
      records.data.read(start, block, 0, span);
      long firstRank = rank;
      int p = 0;
      for (; rank < end; rank++) {
        long lengths = records.lengthsIn(block, p, span);
        if (lengths < 0) {
          break; // the record runs past the copy: go on in the mapping
        }
        int keyLength = Records.keyLength(lengths);
        int keyAt = p + records.headerLength(lengths);
        int checkAt = keyAt + keyLength + Records.valueLength(lengths);
        if (keyLength == length && Arrays.equals(block, keyAt, keyAt + keyLength, key, offset, offset + length)) {
          records.checkCopy(block, p, checkAt, start + p);
          records.holdCopy(block, p, checkAt + records.checkBytes - p, start + p, lengths, scratch);
          return wantPosition ? start + p : checkedRank(firstRank, rank, start, start + p);
        }
        p = checkAt + records.checkBytes;
      }
      long position = start + p;
      for (; rank < end; rank++) {
        long lengths = records.lengthsAt(position);
        if (FULL_KEY.matches(records, position, key, offset, length, 0, scratch)) {
          return wantPosition ? position : checkedRank(firstRank, rank, start, position);
        }
        position = records.end(position, lengths);
      }
      checkRecords(firstRank, end, start);
      return -1;
    }

    /**
     * Checks the records of a block a search did not find its key in: the key is absent unless a
     * damaged record hid it, and only the records searched can tell. Only absent keys pay this.
     * Returns where the records end.
     */
    private long checkRecords(long firstRank, long end, long start) {
      long position = start;
      for (long rank = firstRank; rank < end; rank++) {
        long lengths = records.lengthsAt(position);
        records.check(position, lengths);
        position = records.end(position, lengths);
      }
      return position;
    }

    /**
     * {@code rank}, the count of records a block search walked past to its key's intact record at
     * {@code found}: a damaged record before it could have miscounted them, so a search that answers
     * with the rank checks them. A search for the value needs not: the record itself is intact and
     * in its place.
     */
    private long checkedRank(long firstRank, long rank, long start, long found) {
      if (records.checkBytes > 0 && checkRecords(firstRank, rank, start) != found) {
        throw records.faults.damagedRecord(found);
      }
      return rank;
    }
  }

  /** No index: the records lie in hash order, so their keys' hashes are bisected. */
  static final class BinarySearch extends RecordFinder {
    private BinarySearch(KeyHasher hasher, Records records, KeyMatch keyMatch) {
      super(hasher, records, keyMatch);
    }

    /** The rank of the record whose key has hash {@code hi:lo}; -1 if none. */
    @Override
    long rankOfHash(long hi, long lo) {
      long[] hash = RecordCopy.ofThisThread().hash; // the key's own hash is in hi:lo by now
      long low = 0;
      long high = records.recordCount - 1;
      while (low <= high) {
        long middle = (low + high) >>> 1;
        byte[] key = records.keyBytes(records.checked(records.start(middle)));
        hasher.hash(key, 0, key.length, hash);
        int order = KeyHasher.compare(hash[0], hash[1], hi, lo);
        if (order < 0) {
          low = middle + 1;
        } else if (order > 0) {
          high = middle - 1;
        } else {
          return middle;
        }
      }
      return -1;
    }
  }
}
