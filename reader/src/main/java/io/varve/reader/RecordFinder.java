package io.varve.reader;

import io.varve.core.ect.EctIndex;
import io.varve.core.format.CorruptStoreException;
import io.varve.core.hash.HashRange;
import io.varve.core.hash.KeyHasher;
import io.varve.core.index.RankIndex;
import io.varve.core.index.RecordPrefetcher;
import io.varve.core.store.KeyMode;
import io.varve.core.store.PageTable;
import io.varve.core.store.PagedLayout;
import io.varve.core.store.RecordBlocks;
import java.util.Arrays;

/**
 * How a lookup finds its key's record, chosen once when the store opens: {@link Indexed} asks a
 * dense index for the rank and compares the record there, {@link InBlock} asks a sparse index for
 * the block and compares the block's records in turn, {@link InPage} finds the frame through the
 * page table and the record through the frame's head, {@link BinarySearch} (a store opened without
 * its index) bisects the records, which lie in hash order. Every answer is a record whose key
 * matched ({@link KeyMatch}) and whose checksum held. Thread-safe (immutable; per-thread scratch
 * arrays).
 */
abstract sealed class RecordFinder
    permits RecordFinder.Indexed, RecordFinder.InBlock, RecordFinder.InPage, RecordFinder.BinarySearch {
  final KeyHasher hasher;
  final Records records;
  final KeyMatch keyMatch;

  private RecordFinder(KeyHasher hasher, Records records, KeyMatch keyMatch) {
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
    if (records instanceof Records.Paged paged) {
      return new InPage(hasher, paged, keyMatch, hashRange);
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
      this.prefetcher = readAhead.prefetcher(records);
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

  /**
   * A paged store ({@link PagedLayout}): the page table gives the frame, and the frame's head the
   * record. The entry is guessed by interpolation (hashes are uniform), and its line and the lines
   * around its probable record are read before any is used, so that their cache misses overlap;
   * the entries are then searched outwards from the guess. A search that finds no record checks the
   * frame's head, so that a damaged entry cannot hide a record. A batch ({@link #findAll}) touches
   * the pages of 16 lookups before it searches any.
   */
  static final class InPage extends RecordFinder {
    /** Lines read on either side of the probable record's: its guess is off by a few records. */
    private static final int LINES_AROUND = 3;

    private static final int LINE = 64;

    private final Records.Paged paged;
    private final PageTable pages;
    private final HashRange hashRange;
    private final boolean fullHashRange;
    private final int pageBytes;
    /** The last position an eight-byte touch may start at: the data's end (the footer follows). */
    private final long lastTouch;

    private InPage(KeyHasher hasher, Records.Paged records, KeyMatch keyMatch, HashRange hashRange) {
      super(hasher, records, keyMatch);
      this.paged = records;
      this.pages = records.pages();
      this.hashRange = hashRange;
      this.fullHashRange = hashRange.isFull();
      this.pageBytes = pages.pageBytes();
      this.lastTouch = records.dataStart + records.dataBytes;
    }

    @Override
    long position(long hi, long lo, byte[] key, int offset, int length, RecordCopy scratch) {
      return find(hi, lo, key, offset, length, true, scratch);
    }

    @Override
    long rank(long hi, long lo, byte[] key, int offset, int length, RecordCopy scratch) {
      long found = find(hi, lo, key, offset, length, false, scratch);
      if (found < 0) {
        return -1;
      }
      int f = frame(found);
      // The entry's index is a rank only if the head is intact: a damaged one could list records out
      // of place. Its reads, in the mapping, are settled before the rank leaves the store.
      paged.checkHead(f);
      records.faults.settleReads();
      return pages.firstRank(f) + entry(found);
    }

    /** A candidate rank: the first record of the frame whose entry carries the hash's fragment, or -1. */
    @Override
    long rankOfHash(long hi, long lo) {
      int f = frameOf(hi, lo);
      if (f < 0) {
        return -1;
      }
      int fragment = PagedLayout.fragment(lo);
      long entries = paged.entriesStart(f);
      long rank = -1;
      for (int i = 0; i < pages.count(f) && rank < 0; i++) {
        if (PagedLayout.entryFragment(paged.data.readLittleEndianInt(entries + (long) PagedLayout.ENTRY_BYTES * i)) == fragment) {
          rank = pages.firstRank(f) + i;
        }
      }
      records.faults.settleReads();
      return rank;
    }

    /** The last frame with records whose first hash is not above the key's, or -1. */
    private int frameOf(long hi, long lo) {
      if (!fullHashRange) {
        if (!hashRange.contains(hi, lo)) {
          return -1;
        }
        hi = hashRange.mapHi(hi, lo);
      }
      return pages.frameOf(hi >>> 32);
    }

    /**
     * The position of the key's record ({@code wantPosition}) or its frame and entry ({@code frame
     * << 32 | entry}), or -1 when absent; the record is then in {@code scratch}, checked.
     */
    private long find(long hi, long lo, byte[] key, int offset, int length, boolean wantPosition, RecordCopy scratch) {
      int f = frameOf(hi, lo);
      if (f < 0) {
        return -1;
      }
      long top = (fullHashRange ? hi : hashRange.mapHi(hi, lo)) >>> 32;
      int fragment = PagedLayout.fragment(lo);
      while (true) {
        long found = search(f, top, fragment, key, offset, length, lo, wantPosition, scratch);
        if (found >= 0) {
          return wantPosition ? found : (long) f << 32 | found;
        }
        // Records of one top can spread over several frames: each frame's first is its lowest.
        if (pages.first(f) != top || (f = pages.previousWithRecords(f)) < 0) {
          // "Absent" rests on reads of the mapping (the entries, the head's check), not on a checked
          // copy: a faulted read (a file cut under the store) must be thrown before it leaves.
          records.faults.settleReads();
          return -1;
        }
      }
    }

    private static int frame(long found) {
      return (int) (found >>> 32);
    }

    private static int entry(long found) {
      return (int) found;
    }

    /**
     * Searches frame {@code f} for the key; returns its record's position ({@code wantPosition}) or
     * its entry's index, or -1 once the head is checked.
     */
    private long search(
        int f, long top, int fragment, byte[] key, int offset, int length, long lo, boolean wantPosition, RecordCopy scratch) {
      RecordMemory data = paged.data;
      int count = pages.count(f);
      long entries = paged.entriesStart(f);
      int guess = guessEntry(f, top);
      long touched = touch(f, guess);
      if (touched == TOUCH_SENTINEL) {
        touchSink = touched; // almost never: keeps the touches from being dropped
      }
      for (int step = 0; step < 2 * count; step++) {
        int i = (step & 1) == 0 ? guess + (step >>> 1) : guess - 1 - (step >>> 1);
        if (i < 0 || i >= count) {
          continue;
        }
        int entry = data.readLittleEndianInt(entries + (long) PagedLayout.ENTRY_BYTES * i);
        if (PagedLayout.entryFragment(entry) == fragment) {
          long position = paged.positionOf(f, entry);
          if (keyMatch.matches(records, position, key, offset, length, lo, scratch)) {
            return wantPosition ? position : i;
          }
        }
      }
      paged.checkHead(f);
      return -1;
    }

    /** The entry of frame {@code f} a hash of top bits {@code top} probably has: hashes are uniform. */
    private int guessEntry(int f, long top) {
      int count = pages.count(f);
      long first = pages.first(f);
      long span = Math.max(1, pages.nextFirst(f) - first);
      return (int) Math.min(count - 1, Math.max(0, top - first) * count / span);
    }

    /**
     * Reads the line of entry {@code guess} of frame {@code f} and the lines around its probable
     * record, so that their cache misses overlap; returns their sum, for the caller to keep.
     */
    private long touch(int f, int guess) {
      RecordMemory data = paged.data;
      int count = pages.count(f);
      long frame = paged.frameStart(f);
      int recordsStart = pages.recordsStart(f);
      int recordsEnd = Math.max(recordsStart + 1, pages.recordsEndEstimate(f));
      long likely = frame + recordsStart + (long) guess * (recordsEnd - recordsStart) / count;
      long firstTouch = frame + recordsStart;
      long lastTouchHere = Math.min(lastTouch, frame + pageBytes - Long.BYTES);
      long touched = data.readNativeLong(paged.entriesStart(f) + (long) PagedLayout.ENTRY_BYTES * guess);
      for (int line = -LINES_AROUND; line <= LINES_AROUND; line++) {
        touched += data.readNativeLong(Math.max(firstTouch, Math.min(lastTouchHere, likely + (long) LINE * line)));
      }
      return touched;
    }

    /**
     * The pages of 16 lookups are touched before any is searched, so that their cache misses
     * overlap instead of following one another.
     */
    @Override
    void findAll(byte[][] keys, long[] hashes, byte[][] values) {
      long[] hi = new long[GROUP];
      long[] lo = new long[GROUP];
      long[] hash = RecordCopy.ofThisThread().hash;
      for (int from = 0; from < keys.length; from += GROUP) {
        int count = Math.min(GROUP, keys.length - from);
        long touched = 0;
        for (int i = 0; i < count; i++) {
          byte[] key = keys[from + i];
          if (hashes == null) {
            hasher.hash(key, 0, key.length, hash);
            hi[i] = hash[0];
            lo[i] = hash[1];
          } else {
            hi[i] = hashes[2 * (from + i)];
            lo[i] = hashes[2 * (from + i) + 1];
          }
          int f = frameOf(hi[i], lo[i]);
          if (f >= 0) {
            touched += touch(f, guessEntry(f, (fullHashRange ? hi[i] : hashRange.mapHi(hi[i], lo[i])) >>> 32));
          }
        }
        if (touched == TOUCH_SENTINEL) {
          touchSink = touched;
        }
        for (int i = 0; i < count; i++) {
          values[from + i] = value(hi[i], lo[i], keys[from + i]);
        }
      }
    }

    /** Lookups that {@link #findAll} overlaps. */
    private static final int GROUP = 16;

    private static final long TOUCH_SENTINEL = 0x7A6E_D5EE_D000_0001L;

    /** Written only if the touches sum to the sentinel: the JIT cannot drop reads whose sum may be stored. */
    @SuppressWarnings("unused")
    private static long touchSink;
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
