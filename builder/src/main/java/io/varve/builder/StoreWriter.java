package io.varve.builder;

import io.varve.core.ect.EctIndex;
import io.varve.core.ect.EctIndexBuilder;
import io.varve.core.ect.EctParameters;
import io.varve.core.store.StoreFile;
import io.varve.core.store.StoreFileWriter;
import io.varve.core.store.StoreFileWriter.FileSummary;
import io.varve.core.store.StoreMeta;
import io.varve.core.succinct.EliasFano;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SortedMap;

/**
 * Writes the files of one store into a directory from records fed in hash order, in one pass:
 * the data file streams out, while the offsets and the index grow in memory (a few bits per
 * record) and are written at {@link #finish}. The index is fed through {@link #index()}. The record count and data size must be known in
 * advance (the index and the offsets are sized by them); {@link #finish} reports a mismatch
 * instead of writing, so the caller can repeat the pass with the counts this one measured.
 * Not thread-safe.
 */
final class StoreWriter {
  private final Path directory;
  private final long expectedRecords;
  private final long expectedDataBytes;
  private final boolean fixedSize;
  private final StoreFileWriter data;
  private final EliasFano.Builder offsets;
  private final EctIndexBuilder index;
  private long records;
  private long dataBytes;

  StoreWriter(Path directory, long expectedRecords, long expectedDataBytes, boolean fixedSize, EctParameters parameters)
      throws IOException {
    this.directory = directory;
    this.expectedRecords = expectedRecords;
    this.expectedDataBytes = expectedDataBytes;
    this.fixedSize = fixedSize;
    this.offsets = fixedSize ? null : EliasFano.builder(expectedRecords + 1, expectedDataBytes);
    this.index = EctIndex.builder(expectedRecords, parameters);
    this.data = StoreFileWriter.create(directory.resolve(StoreFile.DATA.fileName()), StoreFile.DATA);
  }

  /**
   * Appends a record; false (and nothing written) once the records exceed the expected count or
   * size, after which only {@link #abandon} may be called.
   */
  boolean add(long hi, long lo, RecordSlice record) throws IOException {
    int length = fixedSize ? record.keyLength + record.valueLength : record.length();
    if (records == expectedRecords || dataBytes + length > expectedDataBytes) {
      records++;
      return false;
    }
    if (fixedSize) {
      data.write(record.bytes, record.keyOffset(), length);
    } else {
      offsets.add(dataBytes);
      data.write(record.bytes, record.offset, length);
    }
    records++;
    dataBytes += length;
    return true;
  }

  long records() {
    return records;
  }

  long dataBytes() {
    return dataBytes;
  }

  /**
   * The index being built. It is fed separately from {@link #add} (possibly by another thread,
   * with each distinct hash once, in hash order), so that its work overlaps the data's.
   */
  EctIndexBuilder index() {
    return index;
  }

  /** Whether the records added, and the hashes given to the index, match the expected count and size. */
  boolean matchesExpectation() {
    return records == expectedRecords && dataBytes == expectedDataBytes && index.added() == expectedRecords;
  }

  /** Closes the data file without finishing it. */
  void abandon() throws IOException {
    data.close();
  }

  /**
   * Writes offsets, index and meta; requires {@link #matchesExpectation()}.
   *
   * @return the meta written
   */
  StoreMeta finish(long seed, EctParameters parameters, int keyLength, int valueLength, SortedMap<String, String> userMetadata)
      throws IOException {
    if (!matchesExpectation()) {
      throw new IllegalStateException("records do not match the expected count and size");
    }
    List<StoreMeta.FileEntry> files = new ArrayList<>();
    files.add(entry(StoreFile.DATA, data.finish()));
    if (!fixedSize) {
      offsets.add(dataBytes);
      EliasFano sequence = offsets.build();
      try (StoreFileWriter out = StoreFileWriter.create(directory.resolve(StoreFile.OFFSETS.fileName()), StoreFile.OFFSETS)) {
        DataOutputStream payload = new DataOutputStream(out);
        sequence.writeTo(payload);
        payload.flush();
        files.add(entry(StoreFile.OFFSETS, out.finish()));
      }
    }
    EctIndex built = index.finish();
    try (StoreFileWriter out = StoreFileWriter.create(directory.resolve(StoreFile.INDEX.fileName()), StoreFile.INDEX)) {
      built.writeTo(out);
      out.flush();
      files.add(entry(StoreFile.INDEX, out.finish()));
    }
    StoreMeta meta =
        new StoreMeta(
            records,
            seed,
            parameters,
            StoreMeta.KeyMode.FULL,
            fixedSize ? keyLength : -1,
            fixedSize ? valueLength : -1,
            dataBytes,
            System.currentTimeMillis(),
            files,
            userMetadata);
    try (StoreFileWriter out = StoreFileWriter.create(directory.resolve(StoreFile.META.fileName()), StoreFile.META)) {
      DataOutputStream payload = new DataOutputStream(out);
      meta.writeTo(payload);
      payload.flush();
      out.finish();
    }
    return meta;
  }

  private static StoreMeta.FileEntry entry(StoreFile kind, FileSummary summary) {
    return new StoreMeta.FileEntry(kind.fileName(), summary.size(), summary.checksum());
  }
}
