package io.varve.core.blocked;

import io.varve.core.ect.SortedHashes;
import io.varve.core.testing.HostileFolder;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.zip.CRC32C;

/**
 * Writes the hostile serialized blocked indexes of {@code src/test/resources/hostile/blocked} (run
 * {@code main} with that folder to regenerate them). Each is a damaged variant of one small valid
 * index (clustered hashes, so that it has spilled blocks); where the name ends in {@code -crc}, the
 * trailing checksum is recomputed, so that the damage must be caught by the structure checks.
 */
final class HostileBlockedFiles {
  static final int VERSION = 4;
  static final int KEYS_PER_BLOCK = 8;
  static final int KEY_COUNT = 12;
  static final int BLOCK_COUNT = 20;
  static final int SPILL_BITS = 28;
  static final int FIRST_BLOCK = 36;
  static final int BLOCK_BYTES = BlockedLayout.BLOCK_WORDS * Long.BYTES;

  private HostileBlockedFiles() {}

  public static void main(String[] args) throws IOException {
    Path folder = Path.of(args.length > 0 ? args[0] : "core/src/test/resources/hostile/blocked");
    HostileFolder.write(folder, variants());
  }

  /** 3,000 spread hashes, and 500 more crowded into one block, which spills. */
  static byte[] validIndex() throws IOException {
    SortedHashes spread = SortedHashes.random(3_000, 0xB10CL);
    java.util.TreeMap<java.math.BigInteger, long[]> sorted = new java.util.TreeMap<>();
    for (int i = 0; i < spread.size(); i++) {
      sorted.put(unsigned(spread.hi[i], spread.lo[i]), new long[] {spread.hi[i], spread.lo[i]});
    }
    java.util.SplittableRandom random = new java.util.SplittableRandom(0xB10DL);
    while (sorted.size() < 3_500) {
      long hi = 0x4000_0000_0000_0000L | random.nextLong() >>> 20; // a sliver of the space
      long lo = random.nextLong();
      sorted.put(unsigned(hi, lo), new long[] {hi, lo});
    }
    long[] hi = new long[sorted.size()];
    long[] lo = new long[sorted.size()];
    int i = 0;
    for (long[] hash : sorted.values()) {
      hi[i] = hash[0];
      lo[i++] = hash[1];
    }
    return BlockedIndexTest.serialize(BlockedIndexTest.build(new SortedHashes(hi, lo), new BlockedIndexParameters(100)));
  }

  private static java.math.BigInteger unsigned(long hi, long lo) {
    return new java.math.BigInteger(Long.toUnsignedString(hi)).shiftLeft(64).or(new java.math.BigInteger(Long.toUnsignedString(lo)));
  }

  static Map<String, byte[]> variants() throws IOException {
    byte[] valid = validIndex();
    int blocks = (int) ByteBuffer.wrap(valid).getLong(BLOCK_COUNT);
    int spilled = -1;
    int inline = -1;
    for (int b = 0; b < blocks; b++) {
      int count = BlockedLayout.count(header(valid, b));
      if (count == BlockedLayout.SPILLED && spilled < 0) {
        spilled = b;
      }
      if (count > 3 && count != BlockedLayout.SPILLED && inline < 0) {
        inline = b;
      }
    }
    if (spilled < 0 || inline < 0) {
      throw new AssertionError("the valid index needs a spilled and an inline block");
    }
    Map<String, byte[]> files = new LinkedHashMap<>();
    files.put("empty.bin", new byte[0]);
    files.put("magic-only.bin", Arrays.copyOf(valid, 4));
    files.put("header-only.bin", Arrays.copyOf(valid, FIRST_BLOCK));
    files.put("cut-inside-a-block.bin", Arrays.copyOf(valid, FIRST_BLOCK + BLOCK_BYTES + 17));
    files.put("cut-before-the-checksum.bin", Arrays.copyOf(valid, valid.length - 2));
    files.put("checksum-wrong.bin", withInt(valid, valid.length - 4, ~ByteBuffer.wrap(valid).getInt(valid.length - 4), false));
    files.put("wrong-magic.bin", withInt(valid, 0, 0x56454354, true));
    files.put("version-1-crc.bin", withInt(valid, VERSION, 1, true));
    files.put("version-3-crc.bin", withInt(valid, VERSION, 3, true));
    files.put("keys-per-block-0-crc.bin", withInt(valid, KEYS_PER_BLOCK, 0, true));
    files.put("keys-per-block-huge-crc.bin", withInt(valid, KEYS_PER_BLOCK, 1 << 30, true));
    files.put("key-count-negative-crc.bin", withLong(valid, KEY_COUNT, -1, true));
    files.put("key-count-too-large-for-the-blocks-crc.bin", withLong(valid, KEY_COUNT, 1L << 40, true));
    files.put("key-count-one-more-crc.bin", withLong(valid, KEY_COUNT, ByteBuffer.wrap(valid).getLong(KEY_COUNT) + 1, true));
    files.put("key-count-one-less-crc.bin", withLong(valid, KEY_COUNT, ByteBuffer.wrap(valid).getLong(KEY_COUNT) - 1, true));
    files.put("block-count-zero-crc.bin", withLong(valid, BLOCK_COUNT, 0, true));
    files.put("block-count-2-pow-40-crc.bin", withLong(valid, BLOCK_COUNT, 1L << 40, true));
    files.put("spill-bits-negative-crc.bin", withLong(valid, SPILL_BITS, -64, true));
    files.put("spill-bits-beyond-the-input-crc.bin", withLong(valid, SPILL_BITS, 1L << 34, true));
    files.put("spill-bits-zero-crc.bin", withLong(valid, SPILL_BITS, 0, true));
    // Block headers that lie (the whole file's checksum recomputed).
    long inlineHeader = header(valid, inline);
    int count = BlockedLayout.count(inlineHeader);
    files.put("inline-count-plus-one-crc.bin", withHeader(valid, inline, relabel(inlineHeader, count + 1)));
    files.put("inline-count-minus-one-crc.bin", withHeader(valid, inline, relabel(inlineHeader, count - 1)));
    files.put("inline-count-zero-crc.bin", withHeader(valid, inline, relabel(inlineHeader, 0)));
    files.put("inline-stray-bits-crc.bin", withHeader(valid, inline, inlineHeader | 1));
    files.put("inline-base-plus-one-crc.bin", withHeader(valid, inline, inlineHeader + (1L << (64 - BlockedLayout.BASE_BITS))));
    files.put(
        "inline-mid-occupied-wrong-crc.bin",
        withHeader(
            valid,
            inline,
            BlockedLayout.header(
                BlockedLayout.base(inlineHeader),
                count,
                BlockedLayout.midOccupied(inlineHeader) ^ 1,
                BlockedLayout.midExcess(inlineHeader),
                BlockedLayout.midTie(inlineHeader))));
    files.put(
        "inline-mid-tie-beyond-content-crc.bin",
        withHeader(
            valid,
            inline,
            BlockedLayout.header(BlockedLayout.base(inlineHeader), count, BlockedLayout.midOccupied(inlineHeader),
                BlockedLayout.midExcess(inlineHeader), 1000)));
    files.put("inline-marked-spilled-crc.bin", withHeader(valid, inline, BlockedLayout.header(BlockedLayout.base(inlineHeader), BlockedLayout.SPILLED, 0, 0, 0)));
    files.put("inline-content-zeroed-crc.bin", withBlockWords(valid, inline, 0, BlockedLayout.BLOCK_WORDS - 1, 0L));
    files.put("inline-content-all-ones-crc.bin", withBlockWords(valid, inline, 0, BlockedLayout.BLOCK_WORDS - 1, -1L));
    files.put("inline-occupancy-bit-flipped-crc.bin", withBlockWords(valid, inline, 0, 1, blockWord(valid, inline, 0) ^ (1L << 40)));
    long spilledHeader = header(valid, spilled);
    files.put("spilled-pointer-past-the-spill-crc.bin", withBlockWords(valid, spilled, BlockedLayout.SPILL_AT_WORD, 1, 1L << 33));
    files.put("spilled-pointer-negative-crc.bin", withBlockWords(valid, spilled, BlockedLayout.SPILL_AT_WORD, 1, -1L));
    files.put("spilled-stray-bits-crc.bin", withHeader(valid, spilled, spilledHeader | 1));
    files.put("spilled-padding-not-zero-crc.bin", withBlockWords(valid, spilled, 3, 1, 0x5AL));
    files.put("spilled-block-as-inline-crc.bin", withHeader(valid, spilled, relabel(spilledHeader, 300)));
    int spillStart = FIRST_BLOCK + blocks * BLOCK_BYTES;
    long spillAt = blockWord(valid, spilled, BlockedLayout.SPILL_AT_WORD);
    int record = spillStart + (int) spillAt * Long.BYTES;
    files.put("spill-record-count-larger-crc.bin", withInt(valid, record, ByteBuffer.wrap(valid).getInt(record) + 1, true));
    files.put("spill-record-count-huge-crc.bin", withInt(valid, record, Integer.MAX_VALUE, true));
    files.put("spill-record-mid-tie-huge-crc.bin", withInt(valid, record + 12, Integer.MAX_VALUE, true));
    files.put("spill-record-content-zeroed-crc.bin", withRange(valid, record + 16, Math.min(64, valid.length - 4 - record - 16), (byte) 0));
    files.put("spill-record-content-ones-crc.bin", withRange(valid, record + 16, Math.min(64, valid.length - 4 - record - 16), (byte) -1));
    files.put("last-block-holds-keys-of-no-block-crc.bin", withBlockWords(valid, blocks - 1, 0, 4, -1L));
    return files;
  }

  private static long header(byte[] index, int block) {
    return blockWord(index, block, BlockedLayout.HEADER_WORD);
  }

  private static long blockWord(byte[] index, int block, int word) {
    return ByteBuffer.wrap(index).getLong(FIRST_BLOCK + block * BLOCK_BYTES + word * Long.BYTES);
  }

  /** {@code header} with its count field set to {@code count} (the other fields as they were). */
  private static long relabel(long header, int count) {
    return BlockedLayout.header(
        BlockedLayout.base(header), count, BlockedLayout.midOccupied(header), BlockedLayout.midExcess(header), BlockedLayout.midTie(header));
  }

  private static byte[] withHeader(byte[] index, int block, long header) {
    return withBlockWords(index, block, BlockedLayout.HEADER_WORD, 1, header);
  }

  private static byte[] withBlockWords(byte[] index, int block, int firstWord, int words, long value) {
    byte[] copy = index.clone();
    ByteBuffer buffer = ByteBuffer.wrap(copy);
    for (int w = firstWord; w < firstWord + words; w++) {
      buffer.putLong(FIRST_BLOCK + block * BLOCK_BYTES + w * Long.BYTES, value);
    }
    return withChecksum(copy);
  }

  private static byte[] withRange(byte[] index, int from, int length, byte value) {
    byte[] copy = index.clone();
    Arrays.fill(copy, from, from + Math.max(0, length), value);
    return withChecksum(copy);
  }

  private static byte[] withInt(byte[] index, int offset, int value, boolean fixChecksum) {
    byte[] copy = index.clone();
    ByteBuffer.wrap(copy).putInt(offset, value);
    return fixChecksum ? withChecksum(copy) : copy;
  }

  private static byte[] withLong(byte[] index, int offset, long value, boolean fixChecksum) {
    byte[] copy = index.clone();
    ByteBuffer.wrap(copy).putLong(offset, value);
    return fixChecksum ? withChecksum(copy) : copy;
  }

  /** The index with its trailing CRC32C recomputed over the bytes before it. */
  private static byte[] withChecksum(byte[] index) {
    BlockedIndexFormat.ENVELOPE.putFooter(index, 0, index.length - BlockedIndexFormat.ENVELOPE.footerLength());
    return index;
  }
}
