package io.varve.builder;

import io.varve.core.ect.EctIndex;
import io.varve.core.ect.EctIndexBuilder;
import io.varve.core.ect.EctParameters;
import io.varve.core.store.RecordFormat;
import io.varve.core.store.StoreFile;
import io.varve.core.store.StoreFileWriter;
import io.varve.core.store.StoreFileWriter.FileSummary;
import io.varve.core.store.StoreMeta;
import io.varve.core.succinct.EliasFano;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SortedMap;

/**
 * Writes the files of one store into a directory from records fed in hash order, in one pass:
 * the data file streams out (records placed by {@link RecordFormat}'s page alignment), the index
 * grows in memory (fed through {@link #index()}), and each record's start goes to a temporary
 * file from which {@link #finish} builds the offsets once their exact span is known. The record
 * count and the records' total size must be known in advance (the index is sized by the count);
 * {@link #finish} refuses a mismatch, so that the caller can repeat the pass with the counts this
 * one measured. Not thread-safe.
 */
final class StoreWriter {
  private final Path directory;
  private final long expectedRecords;
  private final long expectedRecordBytes;
  private final boolean fixedSize;
  private final int pageBytes;
  private final StoreFileWriter data;
  private final Path startsPath;
  private final DataOutputStream starts;
  private final EctIndexBuilder index;
  private final byte[] zeros;
  private long records;
  private long recordBytes;
  private long payloadEnd;

  /**
   * @param expectedRecordBytes the records' total size without padding: keys and values in a
   *     fixed-size store, whole records (headers included) otherwise
   * @param pageBytes the page size records are aligned to, or 0
   */
  StoreWriter(Path directory, Path scratch, long expectedRecords, long expectedRecordBytes, boolean fixedSize, int pageBytes, EctParameters parameters)
      throws IOException {
    this.directory = directory;
    this.expectedRecords = expectedRecords;
    this.expectedRecordBytes = expectedRecordBytes;
    this.fixedSize = fixedSize;
    this.pageBytes = pageBytes;
    this.zeros = new byte[Math.max(1, pageBytes)];
    this.index = EctIndex.builder(expectedRecords, parameters);
    this.startsPath = fixedSize ? null : Files.createTempFile(scratch, "starts", ".tmp");
    this.starts = fixedSize ? null : new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(startsPath), 1 << 16));
    this.data = StoreFileWriter.create(directory.resolve(StoreFile.DATA.fileName()), StoreFile.DATA);
  }

  /**
   * Appends a record; false (and nothing written) once the records exceed the expected count or
   * size, after which only {@link #abandon} may be called.
   */
  boolean add(RecordSlice record) throws IOException {
    int length = fixedSize ? record.keyLength + record.valueLength : record.length();
    if (records == expectedRecords || recordBytes + length > expectedRecordBytes) {
      records++;
      return false;
    }
    // For fixed sizes this is RecordFormat.fixedRecordOffset(records, ...), without divisions.
    long start = RecordFormat.alignedStart(payloadEnd, length, pageBytes);
    pad(start - payloadEnd);
    if (fixedSize) {
      data.write(record.bytes, record.keyOffset(), length);
    } else {
      starts.writeLong(start);
      data.write(record.bytes, record.offset, length);
    }
    records++;
    recordBytes += length;
    payloadEnd = start + length;
    return true;
  }

  private void pad(long bytes) throws IOException {
    while (bytes > 0) {
      int n = (int) Math.min(bytes, zeros.length);
      data.write(zeros, 0, n);
      bytes -= n;
    }
  }

  /**
   * The index being built. It is fed separately from {@link #add} (possibly by another thread,
   * with each distinct hash once, in hash order), so that its work overlaps the data's.
   */
  EctIndexBuilder index() {
    return index;
  }

  long records() {
    return records;
  }

  /** The records' total size so far, without padding (comparable to the expected size). */
  long recordBytes() {
    return recordBytes;
  }

  /** Whether the records added, and the hashes given to the index, match the expected count and size. */
  boolean matchesExpectation() {
    return records == expectedRecords && recordBytes == expectedRecordBytes && index.added() == expectedRecords;
  }

  /** Closes the files without finishing them. */
  void abandon() throws IOException {
    try {
      data.close();
    } finally {
      if (starts != null) {
        starts.close();
        Files.deleteIfExists(startsPath);
      }
    }
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
      files.add(entry(StoreFile.OFFSETS, writeOffsets()));
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
            pageBytes,
            payloadEnd,
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

  /** Builds the Elias-Fano offsets from the recorded starts, now that the data's end is known. */
  private FileSummary writeOffsets() throws IOException {
    starts.close();
    EliasFano.Builder offsets = EliasFano.builder(records + 1, payloadEnd);
    try (DataInputStream in = new DataInputStream(new BufferedInputStream(Files.newInputStream(startsPath), 1 << 16))) {
      for (long i = 0; i < records; i++) {
        offsets.add(in.readLong());
      }
    }
    Files.delete(startsPath);
    offsets.add(payloadEnd);
    EliasFano sequence = offsets.build();
    try (StoreFileWriter out = StoreFileWriter.create(directory.resolve(StoreFile.OFFSETS.fileName()), StoreFile.OFFSETS)) {
      DataOutputStream payload = new DataOutputStream(out);
      sequence.writeTo(payload);
      payload.flush();
      return out.finish();
    }
  }

  private static StoreMeta.FileEntry entry(StoreFile kind, FileSummary summary) {
    return new StoreMeta.FileEntry(kind.fileName(), summary.size(), summary.checksum());
  }
}
