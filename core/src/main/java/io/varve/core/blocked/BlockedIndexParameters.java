package io.varve.core.blocked;

import io.varve.core.format.CorruptStoreException;
import io.varve.core.format.WordsIO;
import io.varve.core.index.IndexKind;
import io.varve.core.index.IndexParameters;
import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;

/**
 * The knob of a {@link BlockedIndex}, recorded ({@link #writeKnobs}) in the index's header and in a
 * store's meta file as {@code keysPerBlock:int32}.
 *
 * @param keysPerBlock the average number of keys per 1024-bit block ({@code 256} sub-ranges): more
 *     keys per block means fewer bits per key ({@code 1024 / keysPerBlock}, plus the few blocks
 *     that overflow) and more blocks whose content spills to a second read
 *     <p>An immutable value; thread-safe.
 */
public record BlockedIndexParameters(int keysPerBlock) implements IndexParameters {
  /** About 3.4 bits per key with one block in a few hundred spilling (measured in the README). */
  public static final BlockedIndexParameters DEFAULT = new BlockedIndexParameters(300);

  /** The smallest supported {@code keysPerBlock}. */
  public static final int MIN_KEYS_PER_BLOCK = 16;

  /**
   * The largest supported {@code keysPerBlock}: beyond it most blocks spill, and a group of 64 blocks
   * could outgrow the 16-bit relative base.
   */
  public static final int MAX_KEYS_PER_BLOCK = 640;

  /** The most blocks an index may have (2^36, over 10^13 keys), so that the group table is one array. */
  static final long MAX_BLOCK_COUNT = 1L << 36;

  /** Validates the knob; throws {@link IllegalArgumentException} when it is out of range. */
  public BlockedIndexParameters {
    if (keysPerBlock < MIN_KEYS_PER_BLOCK || keysPerBlock > MAX_KEYS_PER_BLOCK) {
      throw new IllegalArgumentException(
          "keysPerBlock must be in [" + MIN_KEYS_PER_BLOCK + ", " + MAX_KEYS_PER_BLOCK + "]: " + keysPerBlock);
    }
  }

  @Override
  public IndexKind kind() {
    return IndexKind.BLOCKED;
  }

  /** {@link BlockedIndex#builder}. */
  @Override
  public BlockedIndexBuilder builder(long keyCount) {
    return BlockedIndex.builder(keyCount, this);
  }

  /** {@link BlockedIndex#builderUpTo}. */
  @Override
  public BlockedIndexBuilder builderUpTo(long maxKeyCount) {
    return BlockedIndex.builderUpTo(maxKeyCount, this);
  }

  /** The number of blocks for {@code keyCount} keys: {@code max(1, ceil(keyCount / keysPerBlock))}. */
  public long blockCount(long keyCount) {
    if (keyCount < 0) {
      throw new IllegalArgumentException("keyCount must be >= 0: " + keyCount);
    }
    long blocks = Math.max(1, (keyCount + keysPerBlock - 1) / keysPerBlock);
    if (blocks > MAX_BLOCK_COUNT) {
      throw new IllegalArgumentException("too many keys for one index: " + keyCount);
    }
    return blocks;
  }

  /** Writes {@code keysPerBlock:int32}. */
  @Override
  public void writeKnobs(DataOutput out) throws IOException {
    out.writeInt(keysPerBlock);
  }

  /**
   * Reads the knob written by {@link #writeKnobs}.
   *
   * @throws CorruptStoreException when it is out of range or ends early
   */
  public static BlockedIndexParameters readKnobs(DataInput in) throws IOException {
    int keysPerBlock = WordsIO.readInt(in, "blocked index keys per block");
    try {
      return new BlockedIndexParameters(keysPerBlock);
    } catch (IllegalArgumentException e) {
      throw new CorruptStoreException("invalid blocked index parameters: " + e.getMessage(), e);
    }
  }
}
