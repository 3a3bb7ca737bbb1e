package io.varve.core.store;

import io.varve.core.format.CorruptStoreException;
import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The in-memory table of a paged store's frames ({@link PagedLayout}): per frame, the top 32 bits
 * of its first record's hash, its record count and where its head starts. A lookup finds its key's
 * frame from the hash alone: an interpolation guess, then a gallop over {@code first}; ranks come
 * from the counts. Written by its {@link Builder}. 64 bits per frame on the heap (about one bit per key at 60 records per page),
 * plus a rank every 64 frames.
 *
 * <pre>
 * Payload := pageBytes:int32 frameCount:int32 Frame^frameCount     (the {@code pages} file; big-endian)
 * Frame   := first:int32          top 32 bits of the mapped hash of the frame's first record;
 *                                 of a frame without records, the previous frame's (0 for none)
 *            count:uint16         records starting in the frame
 *            headerStart:uint16   where the head starts (the tail's length); 0 when count = 0
 *            recordsEnd:uint16    where the frame's records end, from its start, at most pageBytes;
 *                                 0 when count = 0
 * </pre>
 *
 * {@code frameCount} is {@code ceil(dataBytes / pageBytes)}. Validated when read ({@link
 * #readFrom}): every field's range, the firsts in order, the counts summing to the record count,
 * every head and its records inside the data. Immutable; thread-safe.
 */
public final class PageTable {
  private static final int SAMPLE_SHIFT = 6;
  private static final int COUNT_BITS = 10;
  private static final int START_BITS = 12;
  private static final int COUNT_MASK = (1 << COUNT_BITS) - 1;
  private static final int START_MASK = (1 << START_BITS) - 1;
  /** Bytes of a frame in the {@code pages} file. */
  private static final int FRAME_BYTES = 10;

  private final int pageBytes;
  private final int frameCount;
  private final long recordCount;
  /**
   * Per frame, one long, so that a lookup's reads of a frame share a cache line: the first (bits
   * 32-63), then the count (bits 0-9), headerStart (bits 10-21) and recordsEnd / 4, at most 1023
   * (bits 22-31).
   */
  private final long[] rows;
  /** The rank of the first record of frames 0, 64, 128, ..., then the record count. */
  private final long[] rankSamples;

  private PageTable(int pageBytes, long recordCount, long[] rows) {
    this.pageBytes = pageBytes;
    this.frameCount = rows.length;
    this.recordCount = recordCount;
    this.rows = rows;
    this.rankSamples = new long[(frameCount >>> SAMPLE_SHIFT) + 2];
    long rank = 0;
    for (int f = 0; f < frameCount; f++) {
      if ((f & ((1 << SAMPLE_SHIFT) - 1)) == 0) {
        rankSamples[f >>> SAMPLE_SHIFT] = rank;
      }
      rank += count(f);
    }
    Arrays.fill(rankSamples, ((frameCount + (1 << SAMPLE_SHIFT) - 1) >>> SAMPLE_SHIFT), rankSamples.length, rank);
  }

  /** Starts a table of frames of {@code pageBytes}, added in order. */
  public static Builder builder(int pageBytes) {
    return new Builder(pageBytes);
  }

  public int pageBytes() {
    return pageBytes;
  }

  public int frameCount() {
    return frameCount;
  }

  public long recordCount() {
    return recordCount;
  }

  /** Records starting in frame {@code f}. */
  public int count(int f) {
    return (int) rows[f] & COUNT_MASK;
  }

  /** Where frame {@code f}'s head starts, from the frame's start. */
  public int headerStart(int f) {
    return (int) rows[f] >>> COUNT_BITS & START_MASK;
  }

  /** Where frame {@code f}'s first record starts, from the frame's start: the head's end. */
  public int recordsStart(int f) {
    return headerStart(f) + PagedLayout.headBytes(count(f));
  }

  /** About where frame {@code f}'s records end, from its start (within 4 bytes, for guesses only). */
  public int recordsEndEstimate(int f) {
    return ((int) rows[f] >>> (COUNT_BITS + START_BITS)) << 2;
  }

  /** The top 32 bits of frame {@code f}'s first (mapped) hash, unsigned. */
  public long first(int f) {
    return rows[f] >>> 32;
  }

  /** The first of the next frame after {@code f} that holds records; {@code 2^32} when there is none. */
  public long nextFirst(int f) {
    for (int g = f + 1; g < frameCount; g++) {
      if (count(g) > 0) {
        return first(g);
      }
    }
    return 1L << 32;
  }

  /**
   * The last frame holding records whose first is at most {@code top} (the top 32 bits of a mapped
   * hash, unsigned), or -1 when {@code top} lies below every frame's first.
   */
  public int frameOf(long top) {
    int n = frameCount;
    if (n == 0) {
      return -1;
    }
    // Hashes are uniform: the guess is near; gallop from it to bracket the frame, then bisect.
    int guess = (int) ((top * n) >>> 32);
    // Usually a step or two away: walk; gallop only when the guess is far off.
    for (int step = 0; step < 4; step++) {
      if (first(guess) > top) {
        if (guess == 0) {
          return -1;
        }
        guess--;
      } else if (guess + 1 < n && first(guess + 1) <= top) {
        guess++;
      } else {
        return previousWithRecords(guess + 1);
      }
    }
    int low;
    int high; // the answer lies in [low, high): first(low) <= top, first(high) > top or high = n
    if (first(guess) <= top) {
      low = guess;
      int step = 1;
      high = guess + 1;
      while (high < n && first(high) <= top) {
        low = high;
        high = (int) Math.min(n, (long) high + step);
        step <<= 1;
      }
    } else {
      high = guess;
      int step = 1;
      low = guess - 1;
      if (low < 0) {
        return -1;
      }
      while (low > 0 && first(low) > top) {
        high = low;
        low = Math.max(0, low - step);
        step <<= 1;
      }
      if (first(low) > top) {
        return -1; // low is 0: the hash lies below every frame
      }
    }
    while (high - low > 1) {
      int middle = (low + high) >>> 1;
      if (first(middle) <= top) {
        low = middle;
      } else {
        high = middle;
      }
    }
    return previousWithRecords(low + 1);
  }

  /** The last frame before {@code f} that holds records, or -1. */
  public int previousWithRecords(int f) {
    for (int g = f - 1; g >= 0; g--) {
      if (count(g) > 0) {
        return g;
      }
    }
    return -1;
  }

  /** The rank of frame {@code f}'s first record ({@code recordCount} for {@code f = frameCount}). */
  public long firstRank(int f) {
    int sample = f >>> SAMPLE_SHIFT;
    long rank = rankSamples[sample];
    for (int g = sample << SAMPLE_SHIFT; g < f; g++) {
      rank += count(g);
    }
    return rank;
  }

  /** The frame that record {@code rank} starts in. */
  public int frameOfRank(long rank) {
    if (rank < 0 || rank >= recordCount) {
      throw new IndexOutOfBoundsException("rank " + rank + " of " + recordCount + " records");
    }
    int low = 0;
    int high = rankSamples.length - 1; // rankSamples[high] > rank
    while (high - low > 1) {
      int middle = (low + high) >>> 1;
      if (rankSamples[middle] <= rank) {
        low = middle;
      } else {
        high = middle;
      }
    }
    int f = low << SAMPLE_SHIFT;
    long first = rankSamples[low];
    while (first + count(f) <= rank) {
      first += count(f);
      f++;
    }
    return f;
  }

  /** Bits of the table as a lookup holds it: 64 per frame. */
  public long encodedBits() {
    return 64L * frameCount;
  }

  /** Bytes of heap held by this table. */
  public long ramBytesUsed() {
    return 2L * 16 + 8L * rows.length + 8L * rankSamples.length + 48;
  }

  /**
   * Reads and validates a table of a store of {@code recordCount} records in {@code dataBytes},
   * aligned to {@code pageBytes}, with {@code checkBytes} after each record, from a payload of
   * {@code payloadBytes}. The rows are read straight into the table's array, sized from the
   * payload, so that opening a store of millions of pages takes its 8 bytes a frame and no more.
   *
   * @throws CorruptStoreException on any field out of range or out of order
   */
  public static PageTable readFrom(DataInput in, long payloadBytes, long recordCount, long dataBytes, int pageBytes, int checkBytes)
      throws IOException {
    int storedPageBytes = in.readInt();
    CorruptStoreException.check(storedPageBytes == pageBytes, "frames of " + storedPageBytes + " bytes, the meta says " + pageBytes);
    int frameCount = in.readInt();
    long expected = (dataBytes + pageBytes - 1) / pageBytes;
    CorruptStoreException.check(
        frameCount == expected, frameCount + " frames for " + dataBytes + " bytes of " + pageBytes + "-byte pages");
    CorruptStoreException.check(
        payloadBytes == 8 + (long) FRAME_BYTES * frameCount, payloadBytes + " bytes cannot hold " + frameCount + " frames");
    long[] rows = new long[frameCount];
    int lastFirst = 0;
    long records = 0;
    int maxCount = PagedLayout.maxRecordsPerFrame(pageBytes, checkBytes);
    for (int f = 0; f < frameCount; f++) {
      int first = in.readInt();
      int count = in.readUnsignedShort();
      int headerStart = in.readUnsignedShort();
      int recordsEnd = in.readUnsignedShort();
      // The checks build their messages only on failure: a store has millions of frames.
      if (count == 0) {
        if (headerStart != 0 || recordsEnd != 0 || first != lastFirst || (f == 0 && recordCount != 0)) {
          throw new CorruptStoreException("frame " + f + " holds no record but has a head, an end or a first of its own");
        }
        rows[f] = row(lastFirst, 0, 0, 0, pageBytes);
        continue;
      }
      int recordsStart = headerStart + PagedLayout.headBytes(count);
      boolean fits = count <= maxCount
          && (f > 0 || headerStart == 0)
          && PagedLayout.takesRecords(headerStart, pageBytes)
          && recordsStart < recordsEnd
          && recordsEnd <= pageBytes
          && (long) f * pageBytes + recordsEnd <= dataBytes;
      if (!fits) {
        throw new CorruptStoreException("frame " + f + ": " + count + " records, head at " + headerStart
            + ", records ending at " + recordsEnd + " do not fit a " + pageBytes + "-byte page of " + dataBytes
            + " bytes of data");
      }
      if (Integer.compareUnsigned(first, lastFirst) < 0) {
        throw new CorruptStoreException("frame " + f + "'s first hash lies below the previous frame's");
      }
      rows[f] = row(first, count, headerStart, recordsEnd, pageBytes);
      lastFirst = first;
      records += count;
    }
    CorruptStoreException.check(records == recordCount, "the frames hold " + records + " records, the meta says " + recordCount);
    return new PageTable(pageBytes, records, rows);
  }

  /** A frame's row: its first (bits 32-63), count (0-9), headerStart (10-21) and recordsEnd / 4 (22-31). */
  private static long row(int first, int count, int headerStart, int recordsEnd, int pageBytes) {
    int endQuarter = Math.min(recordsEnd, pageBytes - 1) >>> 2;
    return (long) first << 32 | Integer.toUnsignedLong(count | headerStart << COUNT_BITS | endQuarter << (COUNT_BITS + START_BITS));
  }

  /**
   * Collects the frames of a table in order, in chunks of {@value #CHUNK_FRAMES} frames, so that a
   * table of millions of frames never holds a doubled array and its copy at once: 10 bytes a frame
   * while it grows. Not thread-safe.
   */
  public static final class Builder {
    /** Frames per chunk: 640 KiB of rows and ends. */
    static final int CHUNK_FRAMES = 1 << 16;

    private final int pageBytes;
    /** Per frame, its row as {@link PageTable} holds it. */
    private final List<long[]> rowChunks = new ArrayList<>();
    /** Per frame, its exact recordsEnd (the row keeps it in quarters), for {@link #writeTo}. */
    private final List<char[]> endChunks = new ArrayList<>();
    private int frames;
    private long records;
    private int lastFirst;
    private boolean built;

    private Builder(int pageBytes) {
      if (!RecordFormat.isValidPageSize(pageBytes) || pageBytes == 0) {
        throw new IllegalArgumentException("frames are pages of 512 to 4096 bytes, a power of two: " + pageBytes);
      }
      this.pageBytes = pageBytes;
    }

    /** Adds a frame of {@code count > 0} records. */
    public Builder add(int first, int count, int headerStart, int recordsEnd) {
      if (count <= 0 || count > COUNT_MASK || headerStart > START_MASK || recordsEnd > pageBytes || recordsEnd <= headerStart) {
        throw new IllegalArgumentException("frame of " + count + " records, head at " + headerStart + ", end at " + recordsEnd);
      }
      append(row(first, count, headerStart, recordsEnd, pageBytes), recordsEnd);
      records += count;
      lastFirst = first;
      return this;
    }

    /** Adds a frame without records (one a longer record's tail covers, or too short a rest of one). */
    public Builder addEmpty() {
      append(row(lastFirst, 0, 0, 0, pageBytes), 0);
      return this;
    }

    /** Frames added so far. */
    public int frames() {
      return frames;
    }

    private void checkNotBuilt() {
      if (built) {
        throw new IllegalStateException("the table was built: its builder holds no frames any more");
      }
    }

    private void append(long row, int recordsEnd) {
      checkNotBuilt();
      if (frames == Integer.MAX_VALUE - 8) {
        throw new IllegalStateException("more than " + frames + " frames");
      }
      int at = frames % CHUNK_FRAMES;
      if (at == 0) {
        rowChunks.add(new long[CHUNK_FRAMES]);
        endChunks.add(new char[CHUNK_FRAMES]);
      }
      rowChunks.get(rowChunks.size() - 1)[at] = row;
      endChunks.get(endChunks.size() - 1)[at] = (char) recordsEnd;
      frames++;
    }

    /** Bytes of heap the frames added so far hold. */
    public long ramBytesUsed() {
      return 64 + (long) rowChunks.size() * (16 + 8L * CHUNK_FRAMES + 16 + 2L * CHUNK_FRAMES + 16);
    }

    /**
     * Adds the frames without records that the end of a payload of {@code dataBytes} still covers:
     * the table is then complete.
     */
    public Builder finish(long dataBytes) {
      long frameCount = (dataBytes + pageBytes - 1) / pageBytes;
      if (frameCount < frames) {
        throw new IllegalArgumentException(frames + " frames do not fit " + dataBytes + " bytes");
      }
      while (frames < frameCount) {
        addEmpty();
      }
      return this;
    }

    /** Writes the payload of the {@code pages} file: the frames added, after {@link #finish}. */
    public void writeTo(DataOutput out) throws IOException {
      checkNotBuilt();
      out.writeInt(pageBytes);
      out.writeInt(frames);
      for (int f = 0; f < frames; f++) {
        long row = rowChunks.get(f / CHUNK_FRAMES)[f % CHUNK_FRAMES];
        int shape = (int) row;
        out.writeInt((int) (row >>> 32));
        out.writeShort(shape & COUNT_MASK);
        out.writeShort(shape >>> COUNT_BITS & START_MASK);
        out.writeShort(endChunks.get(f / CHUNK_FRAMES)[f % CHUNK_FRAMES]);
      }
    }

    /**
     * The table of the frames added, after {@link #finish} with the payload's length. The builder's
     * chunks are released as they are copied, so this is its last use.
     */
    public PageTable build(long dataBytes) {
      checkNotBuilt();
      finish(dataBytes);
      built = true;
      long[] rows = new long[frames];
      for (int c = 0; c < rowChunks.size(); c++) {
        int from = c * CHUNK_FRAMES;
        System.arraycopy(rowChunks.get(c), 0, rows, from, Math.min(CHUNK_FRAMES, frames - from));
        rowChunks.set(c, null);
        endChunks.set(c, null);
      }
      rowChunks.clear();
      endChunks.clear();
      return new PageTable(pageBytes, records, rows);
    }
  }
}
