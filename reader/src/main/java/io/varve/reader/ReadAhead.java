package io.varve.reader;

import io.varve.core.index.RankIndex;
import io.varve.core.index.RecordPrefetcher;
import io.varve.core.store.RecordFormat;
import io.varve.core.succinct.EliasFano;
import java.util.Arrays;

/**
 * What a lookup reads ahead for its record while the index decodes its rank. The index guesses the
 * record's rank before decoding its own reads ({@link RankIndex#guessError()}: an ECT index within
 * about {@code sqrt(g) / 2} records, a blocked one about 69 at its default); where that guess,
 * turned into a place in the data, lands within {@value #MAX_GUESS_ERROR_BYTES} bytes of the
 * record, the lines around the guessed place are read, so that the record's miss overlaps the
 * index's. Beyond that the reads would mostly miss the record and still cost their own misses (a
 * read that misses the cache holds up the lookup as much as a useful one): for variable-size
 * records only the offsets' words are read ahead then. Fixed-size records whose guess lands within
 * {@value #MAX_PAGE_GUESS_ERROR_BYTES} bytes read the guessed line alone: it is mostly another
 * record's, but on the record's memory page, whose address translation (a walk of nested page
 * tables on a VM, the costliest part of a first touch) then overlaps the index's miss. A guess
 * farther off lands on a neighbouring page often enough that a store read from disk pays a second
 * read for it; so, for the same reason, does a fixed-size guess closer to its page's edge than the
 * guess's error, which is not read ahead. The measurements behind these thresholds are in {@code
 * docs/benchmarks/RESULTS.md} ("Read-ahead").
 */
enum ReadAhead {
  /** Nothing. */
  NONE,
  /** The offsets' words that the record's offset will be read from. */
  OFFSETS,
  /** The lines around the guessed record (and, for variable-size records, the offsets' words). */
  RECORD_LINES,
  /** The guessed fixed-size record's line alone: for its memory page, more than for the line. */
  RECORD_PAGE;

  /** The farthest from its record (in bytes, typically) that a guessed record may be worth reading. */
  private static final int MAX_GUESS_ERROR_BYTES = 128;

  /** The farthest from its record (in bytes, typically) that a guess is worth reading for its page. */
  private static final int MAX_PAGE_GUESS_ERROR_BYTES = 256;

  /** The memory page size the mapping is read in (at least; larger pages only help). */
  private static final long OS_PAGE = 4096;

  private static final long CACHE_LINE = 64;

  /**
   * The read-ahead for lookups that find ranks with {@code index} (dense) in {@code records}, of
   * fixed size or with offsets (a sparse store's blocks are searched, not read ahead).
   */
  static ReadAhead choose(RankIndex index, Records records) {
    if (records.data.length() < records.dataStart + Long.BYTES || records.recordCount == 0) {
      return NONE;
    }
    double rankError = index.guessError();
    if (records instanceof Records.Fixed fixed) {
      double errorBytes = rankError * fixed.recordLength();
      if (fixed.recordLength() == 0 || errorBytes > MAX_PAGE_GUESS_ERROR_BYTES) {
        return NONE;
      }
      return errorBytes <= MAX_GUESS_ERROR_BYTES ? RECORD_LINES : RECORD_PAGE;
    }
    EliasFano offsets = ((Records.WithOffsets) records).offsets();
    double averageRecord = records.dataBytes / (double) records.recordCount;
    return rankError * averageRecord + medianEstimateError(offsets) <= MAX_GUESS_ERROR_BYTES ? RECORD_LINES : OFFSETS;
  }

  /** What lookups in {@code records}, by ranks of {@code index}, tell the index to read ahead; null for nothing. */
  RecordPrefetcher prefetcher(RankIndex index, Records records) {
    return switch (this) {
      case NONE -> null;
      case OFFSETS -> ((Records.WithOffsets) records).offsets()::touch;
      case RECORD_LINES ->
          records instanceof Records.Fixed fixed
              ? fixedRecordLines(fixed, pageEdgeMargin(index, fixed))
              : variableRecordLines((Records.WithOffsets) records);
      case RECORD_PAGE -> fixedRecordLine((Records.Fixed) records, pageEdgeMargin(index, (Records.Fixed) records));
    };
  }

  /**
   * How close to a memory page's edge a guessed fixed-size record may start and still be read
   * ahead: the guess's typical error in bytes. Closer, the record is too often on the neighbouring
   * page, and on a cold store reading the guessed page costs a disk read the lookup does not need
   * (aligned to pages, as by default, a fixed-size record never crosses one, so a guess farther
   * inside reads the record's own page).
   */
  private static long pageEdgeMargin(RankIndex index, Records.Fixed records) {
    return (long) Math.ceil(index.guessError() * records.recordLength());
  }

  /** Whether {@code start} lies at least {@code margin} bytes inside its memory page. */
  static boolean awayFromPageEdges(long start, long margin) {
    long inPage = start & (OS_PAGE - 1);
    return inPage >= margin && inPage <= OS_PAGE - margin;
  }

  /** The median distance of {@link EliasFano#estimate} from the offset, over ranks spread evenly. */
  private static double medianEstimateError(EliasFano offsets) {
    long n = offsets.size() - 1;
    int samples = (int) Math.min(n, 255);
    long[] errors = new long[samples];
    for (int i = 0; i < samples; i++) {
      long rank = n * i / samples;
      errors[i] = Math.abs(offsets.estimate(rank) - offsets.get(rank));
    }
    Arrays.sort(errors);
    return samples == 0 ? 0 : errors[samples / 2];
  }

  /**
   * Reads the offsets' words for the variable-size record of rank {@code expected} and the lines
   * around where their select samples estimate it starts.
   */
  private static RecordPrefetcher variableRecordLines(Records.WithOffsets records) {
    EliasFano offsets = records.offsets();
    long dataBytes = records.dataBytes;
    return expected -> {
      long offset = offsets.estimate(expected);
      return offsets.touch(expected) + touchAround(records, records.dataStart + Math.max(0, Math.min(offset, dataBytes - 1)));
    };
  }

  /**
   * Reads the lines around where the fixed-size record of rank {@code expected} starts (one on
   * each side: two took 1.00-1.07 times as long with 16-byte records, pushing tries out of the
   * cache, and the guessed line alone was no faster).
   */
  private static RecordPrefetcher fixedRecordLines(Records.Fixed records, long margin) {
    int recordLength = records.recordLength();
    int pageBytes = records.pageBytes;
    return expected -> {
      long start = records.dataStart + RecordFormat.fixedRecordOffset(expected, recordLength, pageBytes);
      return awayFromPageEdges(start, margin) ? touchAround(records, start) : 0;
    };
  }

  /** Reads the line where the fixed-size record of rank {@code expected} starts. */
  private static RecordPrefetcher fixedRecordLine(Records.Fixed records, long margin) {
    int recordLength = records.recordLength();
    int pageBytes = records.pageBytes;
    RecordMemory data = records.data;
    long lastLong = data.length() - Long.BYTES;
    return expected -> {
      long start = records.dataStart + RecordFormat.fixedRecordOffset(expected, recordLength, pageBytes);
      return awayFromPageEdges(start, margin) ? data.readNativeLong(Math.min(start, lastLong)) : 0;
    };
  }

  /** Reads the line at {@code start} and the line on each side, all on start's memory page. */
  private static long touchAround(Records records, long start) {
    // Stay on the guessed record's memory page: on a cold store a touch of the next page would
    // be a disk read that the lookup may not need.
    RecordMemory data = records.data;
    long pageStart = start & -OS_PAGE;
    long last = Math.min(data.length(), pageStart + OS_PAGE) - Long.BYTES;
    return data.readNativeLong(Math.min(start, last))
        + data.readNativeLong(Math.max(Math.max(records.dataStart, pageStart), start - CACHE_LINE))
        + data.readNativeLong(Math.min(start + CACHE_LINE, last));
  }
}
