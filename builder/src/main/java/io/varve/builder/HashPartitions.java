package io.varve.builder;

import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Spill files for the 256 hash-prefix partitions of a range of hash order: the records whose
 * hashes share {@code sharedPrefixBits} leading bits are split by the next 8 bits, each partition
 * appended to its own {@link SpillFile} in input order. A partition is a contiguous range of hash
 * order, so sorting each one in memory, in partition order, sorts everything: no k-way merge.
 * Not thread-safe, except that threads may spill and flush disjoint ranges of partitions at once.
 */
final class HashPartitions implements Closeable {
  static final int BITS = 8;
  static final int COUNT = 1 << BITS;

  private final Path directory;
  private final int sharedPrefixBits;
  private final int bufferBytes;
  private final SpillFile.Writer[] writers = new SpillFile.Writer[COUNT];

  /** Partitions spilled into {@code directory} (created if needed). */
  HashPartitions(Path directory, int sharedPrefixBits, int bufferBytes) throws IOException {
    if (sharedPrefixBits > 128 - BITS) {
      throw new IllegalArgumentException("no hash bits left to partition by");
    }
    try {
      this.directory = Files.createDirectories(directory);
    } catch (IOException e) {
      throw FullDisk.named(e, directory);
    }
    this.sharedPrefixBits = sharedPrefixBits;
    this.bufferBytes = bufferBytes;
  }

  /** The bits every hash of these partitions shares with the others of the same partition. */
  int partitionPrefixBits() {
    return sharedPrefixBits + BITS;
  }

  int partitionOf(long hi, long lo) {
    int s = sharedPrefixBits;
    long bits;
    if (s + BITS <= 64) {
      bits = (hi << s) >>> (64 - BITS);
    } else if (s >= 64) {
      bits = (lo << (s - 64)) >>> (64 - BITS);
    } else {
      // The 8 bits straddle hi and lo.
      bits = ((hi << s) >>> (64 - BITS)) | (lo >>> (128 - s - BITS));
    }
    return (int) bits;
  }

  void append(long hi, long lo, RecordSlice record) throws IOException {
    int p = partitionOf(hi, lo);
    SpillFile.Writer writer = writers[p];
    if (writer == null) {
      writer = writers[p] = new SpillFile.Writer(directory.resolve("p" + p), bufferBytes);
    }
    writer.append(hi, lo, record);
  }

  /** Appends every record of {@code buffer}, in input order ({@code buffer} must be unsorted). */
  void spill(RecordBuffer buffer) throws IOException {
    spill(buffer, 0, COUNT);
  }

  /** {@link #spill} of the records that fall into partitions {@code [from, to)}. */
  void spill(RecordBuffer buffer, int from, int to) throws IOException {
    if (buffer.isSorted() && buffer.size() > 1) {
      throw new IllegalStateException("spill needs the records in input order");
    }
    RecordSlice slice = new RecordSlice();
    for (int i = 0; i < buffer.size(); i++) {
      long hi = buffer.hi(i);
      long lo = buffer.lo(i);
      int p = partitionOf(hi, lo);
      if (p >= from && p < to) {
        append(hi, lo, buffer.record(i, slice));
      }
    }
  }

  /** The file of partition {@code p}, or null if no record fell into it. */
  Path path(int p) {
    return writers[p] == null ? null : writers[p].path();
  }

  /** Flushes every partition file to the operating system. */
  void flush() throws IOException {
    flush(0, COUNT);
  }

  /** Flushes the files of partitions {@code [from, to)} to the operating system. */
  void flush(int from, int to) throws IOException {
    for (int p = from; p < to; p++) {
      if (writers[p] != null) {
        writers[p].flush();
      }
    }
  }

  @Override
  public void close() throws IOException {
    Closeables.closeAll(writers);
  }
}
