package io.varve.reader;

import io.varve.core.hash.HashRange;
import io.varve.core.hash.KeyHasher;
import io.varve.core.store.PageTable;
import io.varve.core.store.PagedLayout;

/**
 * A paged store ({@link PagedLayout}): the page table gives the frame, and the frame's head the
 * record. The entry is guessed by interpolation (hashes are uniform), and its line and the lines
 * around its probable record are read before any is used, so that their cache misses overlap;
 * the entries are then searched outwards from the guess. A search that finds no record checks the
 * frame's head, so that a damaged entry cannot hide a record. A batch ({@link #findAll}) touches
 * the pages of 16 lookups before it searches any. Thread-safe (immutable; per-thread scratch).
 */
final class PageFinder extends RecordFinder {
  /** Lines read on either side of the probable record's: its guess is off by a few records. */
  private static final int LINES_AROUND = 3;

  private static final int LINE = 64;

  private final PagedRecords paged;
  private final PageTable pages;
  private final HashRange hashRange;
  private final boolean fullHashRange;
  private final int pageBytes;
  /** Where the records end in the data file: an eight-byte read may start there, since the footer follows. */
  private final long dataEnd;

  PageFinder(KeyHasher hasher, PagedRecords records, KeyMatch keyMatch, HashRange hashRange) {
    super(hasher, records, keyMatch);
    this.paged = records;
    this.pages = records.pages();
    this.hashRange = hashRange;
    this.fullHashRange = hashRange.isFull();
    this.pageBytes = pages.pageBytes();
    this.dataEnd = records.dataStart + records.dataBytes;
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
    long rank = -1;
    for (int i = 0; i < pages.count(f) && rank < 0; i++) {
      if (PagedLayout.entryFragment(paged.data.readLittleEndianInt(paged.entryPosition(f, i))) == fragment) {
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

  /** The top 32 bits of the key's hash as the page table holds them (mapped into the store's range). */
  private long top(long hi, long lo) {
    return (fullHashRange ? hi : hashRange.mapHi(hi, lo)) >>> 32;
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
    long top = top(hi, lo);
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
    long touched = touch(f, guess, scratch);
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
  private long touch(int f, int guess, RecordCopy scratch) {
    long[] lines = scratch.touchedLines;
    int n = linesToTouch(f, guess, lines, 0);
    long touched = 0;
    for (int i = 0; i < n; i++) {
      touched += paged.data.readNativeLong(lines[i]);
    }
    return touched;
  }

  /** Lines {@link #touch} reads for entry {@code guess} of frame {@code f}. */
  private static final int TOUCHED_LINES = 2 + 2 * LINES_AROUND;

  /**
   * Puts into {@code lines} from {@code at} the positions of the line of entry {@code guess} of
   * frame {@code f} and of the lines around its probable record; returns the next free index.
   */
  private int linesToTouch(int f, int guess, long[] lines, int at) {
    long likely = likelyRecord(f, guess);
    long firstTouch = paged.frameStart(f) + pages.recordsStart(f);
    long lastTouchHere = lastTouch(f);
    lines[at++] = paged.entryPosition(f, guess);
    for (int line = -LINES_AROUND; line <= LINES_AROUND; line++) {
      lines[at++] = Math.max(firstTouch, Math.min(lastTouchHere, likely + (long) LINE * line));
    }
    return at;
  }

  /** Where record {@code guess} of frame {@code f} probably starts, if the frame's records were of one size. */
  private long likelyRecord(int f, int guess) {
    int recordsStart = pages.recordsStart(f);
    int recordsEnd = Math.max(recordsStart + 1, pages.recordsEndEstimate(f));
    return paged.frameStart(f) + recordsStart + (long) guess * (recordsEnd - recordsStart) / pages.count(f);
  }

  /** The last position of frame {@code f} an eight-byte read may start at. */
  private long lastTouch(int f) {
    return Math.min(dataEnd, paged.frameStart(f) + pageBytes - Long.BYTES);
  }

  /**
   * The pages of 16 lookups are read before any is searched, so that their cache misses overlap
   * instead of following one another: first every key's frame and guessed entry, then, in a loop
   * that does nothing else (so that all its reads fit in the processor's window of instructions in
   * flight), the lines {@link #touch} reads for each.
   */
  @Override
  void findAll(byte[][] keys, long[] hashes, byte[][] values) {
    RecordMemory data = paged.data;
    long[] hi = new long[GROUP];
    long[] lo = new long[GROUP];
    long[] lines = new long[TOUCHED_LINES * GROUP];
    long[] hash = RecordCopy.ofThisThread().hash;
    for (int from = 0; from < keys.length; from += GROUP) {
      int count = Math.min(GROUP, keys.length - from);
      int touches = 0;
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
          int guess = guessEntry(f, top(hi[i], lo[i]));
          touches = linesToTouch(f, guess, lines, touches);
        }
      }
      long touched = 0;
      for (int t = 0; t < touches; t++) {
        touched += data.readNativeLong(lines[t]);
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
