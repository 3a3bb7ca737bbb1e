package io.varve.reader;

import io.varve.core.artifact.StoreFiles;
import io.varve.core.format.CorruptStoreException;
import io.varve.core.format.FileRegion;
import io.varve.core.hash.KeyHasher;
import io.varve.core.store.RecordBlocks;
import io.varve.core.store.HashesReader;
import io.varve.core.store.RecordFormat;
import io.varve.core.store.PageTable;
import io.varve.core.store.StoreFile;
import io.varve.core.store.StoreFileReader;
import io.varve.core.store.StoreMeta;
import java.io.IOException;
import java.nio.file.Path;

/**
 * {@link Store#verify()}: reads every byte of every file of an open store (in an artifact, first
 * every entry against its ZIP CRC-32), checks all checksums and
 * the records' layout, then finds every record by its own key (or, in a store that keeps no keys,
 * by its key's hash from the {@code hashes} file). Runs on the caller's thread; each pass over the
 * records counts as one lookup of the store's {@link LookupGuard}, so that the store cannot close
 * under it.
 */
final class StoreVerifier {
  /** Opens a store's hashes file for the pass over its records: {@link HashesReader#open(FileRegion, StoreMeta)}. */
  @FunctionalInterface
  interface HashesOpener {
    HashesReader open(FileRegion hashes, StoreMeta meta) throws IOException;
  }

  private final Store store;
  private final Path directory;
  private final StoreMeta meta;
  private final Records records;
  private final RecordFinder finder;
  private final RecordBlocks blocks;
  private final LookupGuard guard;
  private final HashesOpener hashesOpener;

  StoreVerifier(Store store, Records records, RecordFinder finder, RecordBlocks blocks, LookupGuard guard, HashesOpener hashesOpener) {
    this.store = store;
    this.directory = store.directory();
    this.meta = store.meta();
    this.records = records;
    this.finder = finder;
    this.blocks = blocks;
    this.guard = guard;
    this.hashesOpener = hashesOpener;
  }

  void verify() throws IOException {
    StoreFiles files = store.files();
    if (files.artifact() != null) {
      files.artifact().checkCrc32s();
    }
    for (StoreMeta.FileEntry entry : meta.files()) {
      StoreFile kind = kindOf(entry.name());
      if ((kind == StoreFile.INDEX && !store.hasIndex()) || (kind == StoreFile.HASHES && !meta.keyMode().keepsKeys())) {
        continue; // not read without an index; HashesReader checks the hashes as it opens them below
      }
      FileRegion region = files.listed(entry);
      int checksum = StoreFileReader.verify(region, kind);
      CorruptStoreException.check(checksum == entry.checksum(), region + ": checksum differs from the meta file's");
    }
    FileRegion metaRegion = files.find(StoreFile.META.fileName());
    CorruptStoreException.check(metaRegion != null, directory + ": the meta file is gone");
    StoreFileReader.verify(metaRegion, StoreFile.META);
    if (records instanceof Records.Variable) {
      int slot = guard.slot();
      try {
        guard.enter(slot);
        checkRecordLayout();
        records.faults.settleReads();
      } catch (InternalError fault) {
        throw records.faults.fault(fault);
      } finally {
        guard.exit(slot);
      }
    }
    if (!meta.keyMode().keepsKeys()) {
      verifyByKeptHashes();
      return;
    }
    StoreCursor cursor = store.cursor();
    while (cursor.next()) {
      if (store.indexOf(cursor.key()) != cursor.index()) {
        throw new CorruptStoreException(directory + ": record " + cursor.index() + " is not found by its own key");
      }
    }
  }

  /**
   * Checks that every variable-size record starts where the writer puts it: right after the
   * previous one, or at the next page boundary when it would cross one ({@link
   * RecordFormat#alignedStart}), and that the last one ends the data. Offsets that point elsewhere
   * (a byte into a record, say) can otherwise parse as a record whose garbage key the index sends
   * back to the same rank, so that it is found by its own key while the real record is hidden.
   * (Fixed-size records are where {@link RecordFormat#fixedRecordOffset} says by construction.)
   */
  private void checkRecordLayout() {
    if (records instanceof PagedRecords paged) {
      checkPagedLayout(paged);
      return;
    }
    long dataStart = records.dataStart;
    long end = 0; // where the previous record ends, in the payload
    for (long i = 0; i < records.recordCount; i++) {
      long start = records.nextStart(i, dataStart + end);
      if (blocks != null && (start - dataStart) / blocks.blockBytes() != blocks.blockOf(i)) {
        throw new CorruptStoreException(directory + ": record " + i + " lies outside its block " + blocks.blockOf(i));
      }
      long lengths = records.lengthsAt(start);
      long length = records.end(start, lengths) - start;
      long expected = dataStart + RecordFormat.alignedStart(end, length, records.pageBytes);
      if (start != expected) {
        throw new CorruptStoreException(
            directory + ": record " + i + " starts at byte " + start + " of the data file, but should at byte " + expected);
      }
      end = start - dataStart + length;
    }
    if (end != records.dataBytes) {
      throw new CorruptStoreException(directory + ": the records end at payload byte " + end + " of " + records.dataBytes);
    }
  }

  /**
   * Checks that every frame of a paged store is laid out as the writer lays it out ({@link
   * io.varve.core.store.PagedLayout}): its head intact, starting right after the tail of the record
   * before it (or at the frame's start), its entries pointing at its records in order, back to back
   * from the head's end; and that the last record ends the data.
   */
  private void checkPagedLayout(PagedRecords paged) {
    PageTable pages = paged.pages();
    long end = paged.dataStart; // where the previous record ends, in the data file
    for (int f = 0; f < pages.frameCount(); f++) {
      int count = pages.count(f);
      if (count == 0) {
        continue;
      }
      long frame = paged.frameStart(f);
      long head = frame + pages.headerStart(f);
      if (head != Math.max(frame, end) || end > frame + pages.pageBytes()) {
        throw new CorruptStoreException(
            directory + ": the head of frame " + f + " starts at byte " + head + ", but the records before it end at byte " + end);
      }
      paged.checkHead(f);
      long position = frame + pages.recordsStart(f);
      long entries = paged.entriesStart(f);
      for (int i = 0; i < count; i++) {
        long listed = paged.positionOf(f, records.data.readLittleEndianInt(entries + 4L * i));
        if (listed != position) {
          throw new CorruptStoreException(
              directory + ": entry " + i + " of frame " + f + " lists byte " + listed + ", but its record starts at byte " + position);
        }
        position = records.end(position, records.lengthsAt(position));
      }
      end = position;
    }
    if (end != paged.dataStart + records.dataBytes) {
      throw new CorruptStoreException(
          directory + ": the records end at payload byte " + (end - paged.dataStart) + " of " + records.dataBytes);
    }
  }

  /**
   * Without full keys, checks each record against its key's hash from the hash file: the index must
   * rank the hash at the record, whose signature (if kept) must match it.
   */
  private void verifyByKeptHashes() throws IOException {
    FileRegion hashes = store.files().listed(meta, StoreFile.HASHES);
    long[] hash = new long[2];
    try (HashesReader in = hashesOpener.open(hashes, meta)) {
      long previousHi = 0;
      long previousLo = 0;
      int slot = guard.slot();
      try {
        guard.enter(slot);
        for (long i = 0; i < in.count(); i++) {
          in.next(hash);
          long hi = hash[0];
          long lo = hash[1];
          if (i > 0 && KeyHasher.compare(previousHi, previousLo, hi, lo) >= 0) {
            throw new CorruptStoreException(hashes + ": hash " + i + " is not in hash order");
          }
          previousHi = hi;
          previousLo = lo;
          if (finder.rankOfHash(hi, lo) != i || !finder.keyMatch.matches(records, records.start(i), null, 0, 0, lo)) {
            throw new CorruptStoreException(directory + ": record " + i + " is not found by its key's hash");
          }
        }
        records.faults.settleReads();
      } catch (InternalError fault) {
        throw records.faults.fault(fault);
      } finally {
        guard.exit(slot);
      }
    }
  }

  private static StoreFile kindOf(String name) {
    for (StoreFile kind : StoreFile.values()) {
      if (kind.fileName().equals(name)) {
        return kind;
      }
    }
    throw new CorruptStoreException("unknown file " + name);
  }
}
