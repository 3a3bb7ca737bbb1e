package io.varve.silt;

import io.varve.core.cuckoo.CuckooTagTable;
import io.varve.core.files.FileTrees;
import io.varve.core.format.CorruptStoreException;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;

/**
 * Copies a frozen log store's live records in its table's slot order, the order a hash store
 * keeps them in, while reading the log once from start to end.
 *
 * <p>Reading the records in slot order instead costs a random read each as soon as the log is
 * larger than the page cache left to it, as under a tight memory bound with records near a
 * kilobyte. Here the records are read in the log's order and dealt to partitions of consecutive
 * slots, each sized to fit {@code memoryBytes}; each partition is then put in slot order in memory
 * and written out. A log that fits in memory makes one partition, kept in memory; a larger one's
 * partitions go to files in a scratch directory (deleted afterwards), read back one at a time.
 *
 * <pre>
 * Partition := (index:int32 Record)*   (index: the slot's rank among occupied slots)
 * </pre>
 *
 * Every record's CRC32C is checked when it is read from the log, and again when it is read back
 * from its partition. Not thread-safe: one per conversion.
 */
final class SlotOrderCopy {
  private static final int SPILL_BUFFER = 32 << 10;
  private static final int READ_PIECE = 1 << 20;

  private final Path logFile;
  /** The log's record check (its store's). */
  private final SiltCheck check;
  private final Path scratch;
  private final Partition[] partitions;
  private final int occupied;

  private SlotOrderCopy(Path logFile, SiltCheck check, Path scratch, int partitionCount, int occupied) {
    this.logFile = logFile;
    this.check = check;
    this.scratch = scratch;
    this.partitions = new Partition[partitionCount];
    this.occupied = occupied;
  }

  /**
   * Writes the record of every occupied slot of {@code table} (slots {@code 0 .. slotCount()}),
   * in slot order, to {@code out}.
   *
   * @param log the log the table's payloads point into, read from its start to {@code logBytes}
   * @param check the log's record check
   * @param scratch a directory that does not exist, for partitions that do not fit in memory
   * @return each record's length in bytes (its header included), in the same order
   * @throws CorruptStoreException if a record the table points to is damaged
   */
  static int[] copy(CuckooTagTable table, FileAccess log, SiltCheck check, long logBytes, Path scratch, long memoryBytes, OutputStream out)
      throws IOException {
    long[] byOffset = occupiedByOffset(table);
    int partitionCount = (int) Math.max(1, Math.min(byOffset.length, (logBytes + memoryBytes - 1) / memoryBytes));
    SlotOrderCopy copy = new SlotOrderCopy(log.file(), check, scratch, partitionCount, byOffset.length);
    try {
      int[] lengths = copy.deal(byOffset, log, logBytes);
      copy.writeInSlotOrder(out);
      return lengths;
    } finally {
      if (partitionCount > 1) {
        FileTrees.deleteTree(scratch);
      }
    }
  }

  /** Each occupied slot's record offset in the high 32 bits and its rank in the low, in offset order. */
  private static long[] occupiedByOffset(CuckooTagTable table) {
    int slots = table.slotCount() + 1;
    int n = 0;
    for (int slot = 0; slot < slots; slot++) {
      n += table.tagAt(slot) != 0 ? 1 : 0;
    }
    long[] byOffset = new long[n];
    int rank = 0;
    for (int slot = 0; slot < slots; slot++) {
      if (table.tagAt(slot) != 0) {
        byOffset[rank] = (table.payload(slot) & 0xFFFF_FFFFL) << 32 | rank;
        rank++;
      }
    }
    Arrays.sort(byOffset);
    return byOffset;
  }

  private int partitionOf(int rank) {
    return (int) ((long) rank * partitions.length / occupied);
  }

  /** Reads the records in the log's order, checking each, and appends each to its partition. */
  private int[] deal(long[] byOffset, FileAccess log, long logBytes) throws IOException {
    if (partitions.length == 1) {
      partitions[0] = new Partition(new GrowingBytes(), null);
    } else {
      Files.createDirectory(scratch);
      for (int p = 0; p < partitions.length; p++) {
        Path file = scratch.resolve("partition-" + p);
        partitions[p] = new Partition(new BufferedOutputStream(Files.newOutputStream(file), SPILL_BUFFER), file);
      }
    }
    int[] lengths = new int[byOffset.length];
    ReadWindow window = new ReadWindow(log, logBytes);
    byte[] rankBytes = new byte[4];
    for (long entry : byOffset) {
      long offset = entry >>> 32;
      int rank = (int) entry;
      if (offset < SiltLog.HEADER_BYTES || offset > logBytes - SiltRecords.HEADER_BYTES) {
        throw new CorruptStoreException(logFile + ": a slot points to offset " + offset + " of a log of " + logBytes + " bytes");
      }
      ByteBuffer head = window.at(offset, SiltRecords.HEADER_BYTES);
      int length = head.getInt(head.position());
      if (length < 2 || length > logBytes - offset - SiltRecords.HEADER_BYTES) {
        throw new CorruptStoreException(logFile + ": the record at " + offset + " has a bad length " + length);
      }
      ByteBuffer record = window.at(offset, SiltRecords.HEADER_BYTES + length);
      int at = record.arrayOffset() + record.position();
      SiltRecords.parseChecked(record.array(), at, length, offset, logFile, check);
      lengths[rank] = SiltRecords.HEADER_BYTES + length;
      ByteBuffer.wrap(rankBytes).putInt(0, rank);
      Partition partition = partitions[partitionOf(rank)];
      partition.out.write(rankBytes);
      partition.out.write(record.array(), at, SiltRecords.HEADER_BYTES + length);
      partition.records++;
    }
    for (Partition partition : partitions) {
      partition.out.close();
    }
    return lengths;
  }

  /** Reads each partition back, puts its records in rank order, and writes them. */
  private void writeInSlotOrder(OutputStream out) throws IOException {
    int expected = 0;
    for (Partition partition : partitions) {
      byte[] bytes;
      int size;
      if (partition.file == null) {
        GrowingBytes memory = (GrowingBytes) partition.out;
        bytes = memory.array();
        size = memory.size();
      } else {
        bytes = readInPieces(partition.file);
        size = bytes.length;
        Files.delete(partition.file);
      }
      long[] byRank = new long[partition.records];
      int at = 0;
      for (int i = 0; i < byRank.length; i++) {
        if (size - at < 4 + SiltRecords.HEADER_BYTES) {
          throw new CorruptStoreException(partition + " is cut short");
        }
        int length = SiltRecords.getInt(bytes, at + 4);
        if (length < 2 || length > size - at - 4 - SiltRecords.HEADER_BYTES) {
          throw new CorruptStoreException(partition + ": a record of bad length " + length);
        }
        byRank[i] = (long) SiltRecords.getInt(bytes, at) << 32 | (at + 4);
        at += 4 + SiltRecords.HEADER_BYTES + length;
      }
      CorruptStoreException.check(at == size, partition + " holds more than its records");
      Arrays.sort(byRank);
      for (long entry : byRank) {
        CorruptStoreException.check(entry >>> 32 == expected, partition + " lacks the record of rank " + expected);
        expected++;
        int record = (int) entry;
        int length = SiltRecords.getInt(bytes, record);
        SiltRecords.parseChecked(bytes, record, length, record, partition.file == null ? logFile : partition.file, check);
        out.write(bytes, record, SiltRecords.HEADER_BYTES + length);
      }
    }
    CorruptStoreException.check(expected == occupied, logFile + ": " + expected + " records copied of " + occupied);
  }

  /**
   * The whole of {@code file}, read a MiB at a time: a channel reads into a heap array through a
   * direct buffer of the read's size, which the thread then keeps, and a partition's size in
   * native memory is what a tight memory bound cannot spare.
   */
  private static byte[] readInPieces(Path file) throws IOException {
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
      long size = channel.size();
      CorruptStoreException.check(size < Integer.MAX_VALUE - 8, file + ": a partition of " + size + " bytes");
      byte[] bytes = new byte[(int) size];
      int at = 0;
      while (at < bytes.length) {
        int read = channel.read(ByteBuffer.wrap(bytes, at, Math.min(READ_PIECE, bytes.length - at)), at);
        if (read < 0) {
          throw new CorruptStoreException(file + " ended at " + at + " of " + size + " bytes");
        }
        at += read;
      }
      return bytes;
    }
  }

  /** Where the records of a range of slots are gathered: memory, or a file. */
  private static final class Partition {
    final OutputStream out;
    final Path file;
    int records;

    Partition(OutputStream out, Path file) {
      this.out = out;
      this.file = file;
    }

    @Override
    public String toString() {
      return file == null ? "a conversion's partition in memory" : "the conversion partition " + file;
    }
  }

  /** A byte array output whose array is read in place (no copy of what may be most of a log). */
  private static final class GrowingBytes extends ByteArrayOutputStream {
    GrowingBytes() {
      super(1 << 16);
    }

    byte[] array() {
      return buf;
    }
  }
}
