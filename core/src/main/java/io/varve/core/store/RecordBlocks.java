package io.varve.core.store;

import io.varve.core.ect.BlockBoundaries;
import io.varve.core.format.CorruptStoreException;
import io.varve.core.format.WordsIO;
import io.varve.core.succinct.EliasFano;
import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;

/**
 * The blocks of a store with a sparse index ({@link StoreFile#BLOCKS}): the data payload cut into
 * blocks of {@code blockBytes}, a record belonging to the block its start lies in. For each block
 * it holds the rank of its first record and where that record starts; a sparse ECT index maps a
 * key to its block, and a lookup reads the block and searches it. Records of one block lie back
 * to back (with page alignment, the block is the page, and padding only ends it), so the block's
 * first start is all a search needs.
 *
 * <pre>
 * Payload     := blockBytes:int32 blockCount:int64
 *                firstRanks:EliasFano                  (blockCount + 1 values: block b's first rank,
 *                                                       then the record count; an empty block repeats
 *                                                       the next block's first rank)
 *                firstStarts:EliasFano                 (blockCount + 1 values: where block b's first
 *                                                       record starts, then the data's length)
 * blockCount  = ceil(dataBytes / blockBytes)
 * </pre>
 *
 * Block sizes are powers of two from 512 bytes to 1 MiB; in a store whose records are aligned to
 * pages, the block size is the page size (a larger block could hold padding in its middle, which a
 * search could not tell from records). Immutable and thread-safe.
 */
public final class RecordBlocks {
  /** The smallest block size. */
  public static final int MIN_BLOCK_BYTES = 512;

  /** The largest block size. */
  public static final int MAX_BLOCK_BYTES = 1 << 20;

  private final int blockBytes;
  private final long blockCount;
  private final EliasFano firstRanks;
  private final EliasFano firstStarts;

  private RecordBlocks(int blockBytes, long blockCount, EliasFano firstRanks, EliasFano firstStarts) {
    this.blockBytes = blockBytes;
    this.blockCount = blockCount;
    this.firstRanks = firstRanks;
    this.firstStarts = firstStarts;
  }

  /** Whether {@code blockBytes} may be used with records aligned to {@code pageBytes} (0: none). */
  public static boolean isValidBlockSize(int blockBytes, int pageBytes) {
    boolean powerOfTwo = blockBytes >= MIN_BLOCK_BYTES && blockBytes <= MAX_BLOCK_BYTES && Integer.bitCount(blockBytes) == 1;
    return powerOfTwo && (pageBytes == 0 || blockBytes == pageBytes);
  }

  /** Starts collecting the blocks of {@code recordCount} records over {@code dataBytes} of payload. */
  public static Builder builder(long recordCount, long dataBytes, int blockBytes) {
    return new Builder(recordCount, dataBytes, blockBytes);
  }

  /** The block size in bytes. */
  public int blockBytes() {
    return blockBytes;
  }

  /** The number of blocks. */
  public long blockCount() {
    return blockCount;
  }

  /** The rank of block {@code b}'s first record ({@code b = blockCount()}: the record count). */
  public long firstRank(long b) {
    return firstRanks.get(b);
  }

  /** Where block {@code b}'s first record starts in the payload ({@code b = blockCount()}: the data's end). */
  public long firstStart(long b) {
    return firstStarts.get(b);
  }

  /** The block holding the record of rank {@code rank} (a non-empty block). */
  public long blockOf(long rank) {
    return firstRanks.predecessorIndex(rank);
  }

  /** The grouping a sparse index over these blocks is built and read with. */
  public BlockBoundaries boundaries() {
    return BlockBoundaries.firstRanks(firstRanks);
  }

  /** Bits of the two sequences (without select samples). */
  public long encodedBits() {
    return firstRanks.encodedBits() + firstStarts.encodedBits();
  }

  /** Bytes of heap held. */
  public long ramBytesUsed() {
    return 32 + firstRanks.ramBytesUsed() + firstStarts.ramBytesUsed();
  }

  /** Writes the payload. */
  public void writeTo(DataOutput out) throws IOException {
    out.writeInt(blockBytes);
    out.writeLong(blockCount);
    firstRanks.writeTo(out);
    firstStarts.writeTo(out);
  }

  /**
   * Reads and validates the blocks of a store of {@code recordCount} records, {@code dataBytes} of
   * payload, records aligned to {@code pageBytes}: every block's first record must start inside it
   * (or, for an empty block, at the next block's first record).
   *
   * @throws CorruptStoreException on any inconsistency
   */
  public static RecordBlocks readFrom(DataInput in, long recordCount, long dataBytes, int pageBytes) throws IOException {
    int blockBytes = WordsIO.readInt(in, "block size");
    CorruptStoreException.check(
        isValidBlockSize(blockBytes, pageBytes), "block size " + blockBytes + " invalid with page size " + pageBytes);
    long blockCount = WordsIO.readLong(in, "block count");
    CorruptStoreException.check(
        blockCount == blockCountOf(dataBytes, blockBytes), "block count " + blockCount + " does not cover " + dataBytes + " bytes");
    EliasFano firstRanks = EliasFano.readFrom(in, blockCount + 1);
    EliasFano firstStarts = EliasFano.readFrom(in, blockCount + 1);
    CorruptStoreException.check(
        firstRanks.size() == blockCount + 1 && firstStarts.size() == blockCount + 1,
        "block tables do not hold " + (blockCount + 1) + " entries");
    CorruptStoreException.check(
        firstRanks.get(0) == 0 && firstRanks.get(blockCount) == recordCount
            && firstStarts.get(blockCount) == dataBytes,
        "block tables do not span the store");
    for (long b = 0; b < blockCount; b++) {
      long start = firstStarts.get(b);
      boolean empty = firstRanks.get(b) == firstRanks.get(b + 1);
      boolean inside = start >= b * blockBytes && start < (b + 1) * blockBytes;
      if (empty ? start != firstStarts.get(b + 1) : !inside) {
        throw new CorruptStoreException("block " + b + " is damaged: first record at " + start);
      }
    }
    return new RecordBlocks(blockBytes, blockCount, firstRanks, firstStarts);
  }

  private static long blockCountOf(long dataBytes, int blockBytes) {
    return (dataBytes + blockBytes - 1) / blockBytes;
  }

  /**
   * Collects blocks from the record starts, given in order. Not thread-safe.
   */
  public static final class Builder {
    private final long recordCount;
    private final long dataBytes;
    private final int blockBytes;
    private final long blockCount;
    private final EliasFano.Builder firstRanks;
    private final EliasFano.Builder firstStarts;
    private long nextBlock;
    private long records;
    private long lastStart = -1;

    private Builder(long recordCount, long dataBytes, int blockBytes) {
      if (blockBytes < MIN_BLOCK_BYTES || blockBytes > MAX_BLOCK_BYTES || Integer.bitCount(blockBytes) != 1) {
        throw new IllegalArgumentException("block size must be a power of two from 512 to 1 MiB: " + blockBytes);
      }
      this.recordCount = recordCount;
      this.dataBytes = dataBytes;
      this.blockBytes = blockBytes;
      this.blockCount = blockCountOf(dataBytes, blockBytes);
      this.firstRanks = EliasFano.builder(blockCount + 1, recordCount);
      this.firstStarts = EliasFano.builder(blockCount + 1, dataBytes);
    }

    /**
     * Adds the start of the next record. Starts strictly increase and lie in the data: a store of
     * zero-length records (one empty key, empty value) cannot be blocked.
     */
    public Builder add(long start) {
      if (start <= lastStart) {
        throw new IllegalArgumentException("record starts do not come in order: " + start + " after " + lastStart);
      }
      if (records == recordCount || start >= dataBytes) {
        throw new IllegalArgumentException("record start " + start + " beyond the declared records or data");
      }
      long block = start / blockBytes;
      while (nextBlock <= block) {
        firstRanks.add(records);
        firstStarts.add(start);
        nextBlock++;
      }
      lastStart = start;
      records++;
      return this;
    }

    /** The blocks, once every record start was added. */
    public RecordBlocks build() {
      if (records != recordCount) {
        throw new IllegalStateException("declared " + recordCount + " records but added " + records);
      }
      while (nextBlock <= blockCount) {
        firstRanks.add(records);
        firstStarts.add(dataBytes);
        nextBlock++;
      }
      return new RecordBlocks(blockBytes, blockCount, firstRanks.build(), firstStarts.build());
    }
  }
}
