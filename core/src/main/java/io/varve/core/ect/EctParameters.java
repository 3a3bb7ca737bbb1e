package io.varve.core.ect;

import io.varve.core.codes.TrieCodes;
import io.varve.core.format.CorruptStoreException;
import io.varve.core.format.WordsIO;
import io.varve.core.index.IndexKind;
import io.varve.core.index.IndexParameters;
import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;

/**
 * The knobs of an entropy-coded-trie index, recorded ({@link #writeKnobs}) in the index's header
 * and in a store's meta file as {@code bucketSize:int32 huffmanMax:int32 skipLevels:int32}.
 *
 * @param bucketSize {@code g}, the average number of keys per virtual bucket: larger buckets
 *     compress better (fewer bits per key) and take longer to search
 * @param huffmanMax {@code hmax}, the largest subtrie size coded with binomial Huffman codes;
 *     larger subtries use Exp-Golomb codes, keeping the decoding tables small
 * @param skipLevels the number of top trie levels whose nodes store the bit length of their left
 *     subtrie ({@link SkipLengthCode}), so that a lookup going right jumps over it instead of
 *     decoding it: each level roughly halves the work of a lookup and costs a few bits per bucket
 *     at that level; 0 is the paper's plain representation
 *     <p>An immutable value; thread-safe.
 */
public record EctParameters(int bucketSize, int huffmanMax, int skipLevels) implements IndexParameters {
  /** The paper's setting: {@code g = 256, hmax = 64}, no skip lengths. */
  public static final EctParameters DEFAULT = new EctParameters(256, 64, 0);

  /** The largest supported bucket size. */
  public static final int MAX_BUCKET_SIZE = 1 << 16;

  /** The largest supported number of skip levels. */
  public static final int MAX_SKIP_LEVELS = 16;

  /** Validates the knobs; throws {@link IllegalArgumentException} naming the one out of range. */
  public EctParameters {
    if (bucketSize < 1 || bucketSize > MAX_BUCKET_SIZE) {
      throw new IllegalArgumentException(
          "bucketSize must be in [1, " + MAX_BUCKET_SIZE + "]: " + bucketSize);
    }
    if (huffmanMax < 1 || huffmanMax > TrieCodes.MAX_HUFFMAN_CONTEXT) {
      throw new IllegalArgumentException(
          "huffmanMax must be in [1, " + TrieCodes.MAX_HUFFMAN_CONTEXT + "]: " + huffmanMax);
    }
    if (skipLevels < 0 || skipLevels > MAX_SKIP_LEVELS) {
      throw new IllegalArgumentException(
          "skipLevels must be in [0, " + MAX_SKIP_LEVELS + "]: " + skipLevels);
    }
  }

  /** Parameters without skip lengths. */
  public EctParameters(int bucketSize, int huffmanMax) {
    this(bucketSize, huffmanMax, 0);
  }

  @Override
  public IndexKind kind() {
    return IndexKind.ECT;
  }

  /** A dense-index builder: {@link EctIndex#builder}. */
  @Override
  public EctIndexBuilder builder(long keyCount) {
    return EctIndex.builder(keyCount, this);
  }

  /** A dense-index builder for at most {@code maxKeyCount} hashes: {@link EctIndex#builderUpTo}. */
  @Override
  public EctIndexBuilder builderUpTo(long maxKeyCount) {
    return EctIndex.builderUpTo(maxKeyCount, this);
  }

  /** The number of virtual buckets for {@code keyCount} keys: {@code max(1, ceil(n / g))}. */
  public long bucketCount(long keyCount) {
    return Math.max(1, (keyCount + bucketSize - 1) / bucketSize);
  }

  /** Writes {@code bucketSize:int32 huffmanMax:int32 skipLevels:int32}. */
  @Override
  public void writeKnobs(DataOutput out) throws IOException {
    out.writeInt(bucketSize);
    out.writeInt(huffmanMax);
    out.writeInt(skipLevels);
  }

  /**
   * Reads knobs written by {@link #writeKnobs}.
   *
   * @throws CorruptStoreException when they are out of range or end early
   */
  public static EctParameters readKnobs(DataInput in) throws IOException {
    int bucketSize = WordsIO.readInt(in, "ECT bucket size");
    int huffmanMax = WordsIO.readInt(in, "ECT hmax");
    int skipLevels = WordsIO.readInt(in, "ECT skip levels");
    try {
      return new EctParameters(bucketSize, huffmanMax, skipLevels);
    } catch (IllegalArgumentException e) {
      throw new CorruptStoreException("invalid ECT index parameters: " + e.getMessage(), e);
    }
  }
}
