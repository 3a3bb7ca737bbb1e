package io.varve.bufferhash;

import static io.varve.bufferhash.LogFormat.HEADER_BYTES;
import static io.varve.bufferhash.LogFormat.PAGE_BYTES;

/**
 * What RAM keeps of one incarnation (a flushed buffer, now a small hash table in the log): where
 * it lies and, per unit, the top 32 bits of its first entry's hash, so that a lookup reads the
 * one unit (usually one page) that can hold its key. The bytes are laid out by {@link LogFormat}.
 *
 * <p>Immutable apart from {@link #ordinal}, which its super table sets under its lock when it
 * installs the incarnation.
 */
final class Incarnation {
  final int superTable;
  final long sequence;
  final int startPage;
  final int pages;
  final int entries;
  private final int[] fences;
  /** The first page of each unit within the incarnation, or null when unit {@code u} is page {@code u}. */
  private final int[] unitFirstPage;
  long ordinal = -1;

  Incarnation(int superTable, long sequence, int startPage, int pages, int entries, int[] fences, int[] unitFirstPage) {
    this.superTable = superTable;
    this.sequence = sequence;
    this.startPage = startPage;
    this.pages = pages;
    this.entries = entries;
    this.fences = fences;
    this.unitFirstPage = unitFirstPage;
  }

  int units() {
    return fences.length;
  }

  int unitFirstPage(int unit) {
    return unitFirstPage == null ? unit : unitFirstPage[unit];
  }

  /** The unit's first byte within the incarnation (unit 0 begins after the header). */
  int unitStart(int unit) {
    return unit == 0 ? HEADER_BYTES : unitFirstPage(unit) * PAGE_BYTES;
  }

  /** The byte after the unit within the incarnation. */
  int unitEnd(int unit) {
    return (unit + 1 < fences.length ? unitFirstPage(unit + 1) : pages) * PAGE_BYTES;
  }

  /** The unit's byte offset in the log file. */
  long unitPosition(int unit) {
    return (long) startPage * PAGE_BYTES + unitStart(unit);
  }

  /**
   * The last unit whose first hash prefix is at most {@code prefix} (unsigned), or -1 when the key
   * hashes below every entry. Earlier units can hold the prefix only while {@link #fence} of the
   * unit after them equals it.
   */
  int lastUnitAtMost(int prefix) {
    int lo = 0;
    int hi = fences.length - 1;
    int found = -1;
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      if (Integer.compareUnsigned(fences[mid], prefix) <= 0) {
        found = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return found;
  }

  int fence(int unit) {
    return fences[unit];
  }

  long ramBytesUsed() {
    return 64L + 16 + fences.length * 4L + (unitFirstPage == null ? 0 : 16 + unitFirstPage.length * 4L);
  }

  @Override
  public String toString() {
    return "incarnation " + sequence + " of super table " + superTable + " at page " + startPage + " (" + pages + " pages)";
  }
}
