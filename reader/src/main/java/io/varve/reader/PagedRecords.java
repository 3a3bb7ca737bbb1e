package io.varve.reader;

import io.varve.core.store.PageTable;
import io.varve.core.store.PagedLayout;
import io.varve.core.store.RecordChecksum;
import io.varve.core.store.StoreMeta;

/**
 * Variable-size records packed into frames ({@link PagedLayout}): a record's place is in its
 * frame's head, which is checked before an entry is trusted for a rank. Thread-safe (immutable).
 */
final class PagedRecords extends Records.Variable {
  private final PageTable pages;
  private final RecordChecksum headChecksum;

  PagedRecords(RecordMemory data, DataFaults faults, long dataStart, StoreMeta meta, PageTable pages) {
    super(data, faults, dataStart, meta);
    this.pages = pages;
    this.headChecksum = PagedLayout.headChecksum(meta.recordChecksum());
  }

  PageTable pages() {
    return pages;
  }

  /** Where frame {@code f} starts in the data file. */
  long frameStart(int f) {
    return dataStart + (long) f * pageBytes;
  }

  /** Where the entries of frame {@code f} start in the data file. */
  long entriesStart(int f) {
    return frameStart(f) + pages.headerStart(f) + PagedLayout.HEAD_CHECK_BYTES;
  }

  /** Where entry {@code i} of frame {@code f} is in the data file. */
  long entryPosition(int f, int i) {
    return entriesStart(f) + (long) PagedLayout.ENTRY_BYTES * i;
  }

  /**
   * The position of the record that entry {@code entry} of frame {@code f} points to, checked to
   * lie among the frame's records.
   */
  long positionOf(int f, int entry) {
    int offset = PagedLayout.entryOffset(entry);
    if (offset < pages.recordsStart(f) || offset >= pageBytes || (long) f * pageBytes + offset >= dataBytes) {
      throw faults.damaged("an entry of frame " + f + " points to byte " + offset + ", outside the frame's records");
    }
    return frameStart(f) + offset;
  }

  /** Throws {@link CorruptStoreException} unless frame {@code f}'s entries match their check. */
  void checkHead(int f) {
    long head = frameStart(f) + pages.headerStart(f);
    int entryBytes = PagedLayout.ENTRY_BYTES * pages.count(f);
    if (data.checksum(head + PagedLayout.HEAD_CHECK_BYTES, entryBytes, head - dataStart + salt, headChecksum) != data.readLittleEndianInt(head)) {
      throw faults.damaged("the head of frame " + f + " (at byte " + head + ") does not match its check (damaged)");
    }
  }

  @Override
  long start(long rank) {
    int f = pages.frameOfRank(rank);
    checkHead(f);
    int i = (int) (rank - pages.firstRank(f));
    long position = positionOf(f, data.readLittleEndianInt(entryPosition(f, i)));
    // A faulted read of the entry could point at another intact record: settled before it is used.
    faults.settleReads();
    return position;
  }

  @Override
  long nextStart(long rank, long previousEnd) {
    int f = pages.frameOfRank(rank);
    return pages.firstRank(f) == rank ? frameStart(f) + pages.recordsStart(f) : previousEnd;
  }
}
