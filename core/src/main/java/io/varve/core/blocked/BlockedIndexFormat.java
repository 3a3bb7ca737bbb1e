package io.varve.core.blocked;

import static io.varve.core.blocked.BlockedLayout.BLOCK_WORDS;

import io.varve.core.format.CorruptStoreException;
import io.varve.core.format.Envelope;
import io.varve.core.format.EnvelopeInput;
import io.varve.core.format.EnvelopeOutput;
import io.varve.core.format.WordsIO;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Arrays;

/**
 * The one owner of the {@link BlockedIndex}'s serialized form; {@link BlockedIndex#writeTo} and
 * {@link BlockedIndex#readFrom} are its writer and reader. All integers big-endian:
 *
 * <pre>
 * BlockedIndex := Header Block^blockCount Spill Footer
 * Header       := magic:int32 (0x56424C4B, "VBLK") version:int32 (2)   (the {@link #ENVELOPE})
 *                 Knobs:BlockedIndexParameters (keysPerBlock:int32)
 *                 keyCount:int64 blockCount:int64 spillBits:int64
 *                 (blockCount &gt;= max(1, ceil(keyCount / keysPerBlock)), at most 2^36)
 * Block        := word:int64^16                  (see BlockedLayout)
 * Spill        := word:int64^ceil(spillBits / 64)
 * Footer       := crc32c:int32                   (CRC32C of every preceding byte)
 * </pre>
 *
 * Version 1 (never released: the header first in a block, sub-range counts in unary) is not read.
 * Reading validates every block (counts, sub-range codes, tie codes, bases, spill pointers) besides
 * the checksum, so that lookups never read outside the index whatever the input. Stateless;
 * thread-safe.
 */
final class BlockedIndexFormat {
  static final int VERSION = 2;
  /** Magic "VBLK", version 2 only, a CRC32C footer. */
  static final Envelope ENVELOPE = Envelope.builder("blocked index").magic(0x56424C4B).versions(VERSION, VERSION).build();
  /** Bytes of the header after the envelope's: the knob and three counts. */
  private static final int FIELDS_BYTES = Integer.BYTES + 3 * Long.BYTES;

  private BlockedIndexFormat() {}

  /** The number of bytes {@link #write} writes for {@code index}. */
  static long serializedBytes(BlockedIndex index) {
    return ENVELOPE.headerLength() + FIELDS_BYTES
        + index.blockCount() * BLOCK_WORDS * Long.BYTES
        + spillWords(index.spillBits()) * Long.BYTES
        + ENVELOPE.footerLength();
  }

  /** Writes {@code index}; does not close {@code out}. */
  static void write(BlockedIndex index, OutputStream out) throws IOException {
    EnvelopeOutput data = ENVELOPE.output(out, VERSION);
    index.parameters().writeKnobs(data);
    data.writeLong(index.size());
    data.writeLong(index.blockCount());
    data.writeLong(index.spillBits());
    long[][] chunks = index.chunks();
    for (long block = 0; block < index.blockCount(); block++) {
      long[] words = chunks[BlockedLayout.chunkOf(block)];
      int first = BlockedLayout.wordInChunk(block);
      for (int w = 0; w < BLOCK_WORDS; w++) {
        data.writeLong(words[first + w]);
      }
    }
    long[] spill = index.spill();
    for (int w = 0; w < spillWords(index.spillBits()); w++) {
      data.writeLong(spill[w]);
    }
    data.finish();
  }

  /**
   * Reads an index written by {@link #write}, validating its header, every block and its checksum.
   *
   * @throws CorruptStoreException on damaged, truncated or foreign input
   */
  static BlockedIndex read(InputStream in) throws IOException {
    EnvelopeInput data = ENVELOPE.input(in, null);
    BlockedIndexParameters parameters = BlockedIndexParameters.readKnobs(data);
    long keyCount = WordsIO.readLong(data, "blocked index key count");
    long blockCount = WordsIO.readLong(data, "blocked index block count");
    long spillBits = WordsIO.readLong(data, "blocked index spill bits");
    CorruptStoreException.check(keyCount >= 0, "negative blocked index key count " + keyCount);
    long exactBlocks;
    try {
      exactBlocks = parameters.blockCount(keyCount);
    } catch (IllegalArgumentException e) {
      throw new CorruptStoreException("blocked index key count damaged: " + e.getMessage(), e);
    }
    CorruptStoreException.check(
        blockCount >= exactBlocks && blockCount <= BlockedIndexParameters.MAX_BLOCK_COUNT,
        "blocked index block count " + blockCount + " does not fit " + keyCount + " keys");
    CorruptStoreException.check(
        spillBits >= 0 && spillWords(spillBits) <= Integer.MAX_VALUE - 8 - BlockedLayout.SPARE_WORDS,
        "blocked index spill length " + spillBits + " out of range");
    long[][] chunks = new long[BlockedLayout.chunkCount(blockCount)][];
    for (int c = 0; c < chunks.length; c++) {
      int blocks = BlockedLayout.blocksInChunk(blockCount, c);
      chunks[c] = readWords(data, BlockedLayout.CHUNK_PAD_WORDS, blocks * BLOCK_WORDS, "blocked index block");
    }
    long[] spill = readWords(data, 0, (int) spillWords(spillBits), "blocked index spill");
    data.checkFooter();
    return BlockedIndex.validated(parameters, keyCount, blockCount, chunks, spill, spillBits);
  }

  private static long spillWords(long spillBits) {
    return (spillBits + 63) >>> 6;
  }

  /**
   * Reads {@code count} words into an array with {@code offset} zero words before them and the
   * spare words after; the array grows only as words arrive, so a damaged count ends in a
   * {@link CorruptStoreException} at the end of the input, never in a huge allocation.
   */
  private static long[] readWords(DataInputStream data, int offset, int count, String what) throws IOException {
    int total = offset + count + BlockedLayout.SPARE_WORDS;
    long[] words = new long[Math.min(total, 1 << 12)];
    for (int i = 0; i < count; i++) {
      int at = offset + i;
      if (at >= words.length - BlockedLayout.SPARE_WORDS) {
        words = Arrays.copyOf(words, (int) Math.min(total, 2L * words.length));
      }
      words[at] = WordsIO.readLong(data, what);
    }
    return words.length == total ? words : Arrays.copyOf(words, total);
  }
}
