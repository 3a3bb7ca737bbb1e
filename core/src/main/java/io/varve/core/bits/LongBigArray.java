package io.varve.core.bits;

import java.util.Arrays;

/**
 * A fixed-length array of longs on the heap that may hold more than 2<sup>31</sup> words: storage
 * is split into chunks of 2<sup>27</sup> words (1 GiB).
 *
 * <p>Not thread-safe for writes. Once filled and safely published (for example through a final
 * field of an immutable structure) it may be read by many threads.
 */
public final class LongBigArray extends LongWords {
  /** Words are stored in chunks of {@code 2^CHUNK_SHIFT} words. */
  public static final int CHUNK_SHIFT = 27;

  /** Words per chunk. */
  public static final int CHUNK_SIZE = 1 << CHUNK_SHIFT;
  private static final int CHUNK_MASK = CHUNK_SIZE - 1;

  private final long[][] chunks;
  private final long length;

  /** Creates an array of {@code length} zero words. */
  public LongBigArray(long length) {
    if (length < 0) {
      throw new IllegalArgumentException("length must be >= 0: " + length);
    }
    this.length = length;
    int chunkCount = (int) ((length + CHUNK_SIZE - 1) >>> CHUNK_SHIFT);
    chunks = new long[Math.max(1, chunkCount)][];
    if (chunkCount == 0) {
      chunks[0] = new long[0];
    }
    for (int i = 0; i < chunkCount; i++) {
      long remaining = length - ((long) i << CHUNK_SHIFT);
      chunks[i] = new long[(int) Math.min(CHUNK_SIZE, remaining)];
    }
  }

  private LongBigArray(long[][] chunks, long length) {
    this.chunks = chunks;
    this.length = length;
  }

  /**
   * Wraps (without copying) chunks that are full ({@link #CHUNK_SIZE} words) but for the last.
   *
   * @throws IllegalArgumentException if a chunk other than the last is not full
   */
  public static LongBigArray ofChunks(long[][] chunks) {
    if (chunks.length == 0) {
      return new LongBigArray(0);
    }
    long length = 0;
    for (int i = 0; i < chunks.length; i++) {
      if (i < chunks.length - 1 ? chunks[i].length != CHUNK_SIZE : chunks[i].length > CHUNK_SIZE) {
        throw new IllegalArgumentException("chunk " + i + " has " + chunks[i].length + " words");
      }
      length += chunks[i].length;
    }
    return new LongBigArray(chunks.clone(), length);
  }

  @Override
  public long get(long index) {
    return chunks[(int) (index >>> CHUNK_SHIFT)][(int) index & CHUNK_MASK];
  }

  /** Sets the word at {@code index}. */
  public void set(long index, long value) {
    chunks[(int) (index >>> CHUNK_SHIFT)][(int) index & CHUNK_MASK] = value;
  }

  /** ORs {@code bits} into the word at {@code index}. */
  public void or(long index, long bits) {
    chunks[(int) (index >>> CHUNK_SHIFT)][(int) index & CHUNK_MASK] |= bits;
  }

  /**
   * Writes the low {@code width} bits of {@code value} at bit {@code bitPos}, least significant
   * bit first (the layout {@link #getBitsLsbFirst} reads). The target bits must be zero.
   */
  public void orBitsLsbFirst(long bitPos, long value, int width) {
    if (width == 0) {
      return;
    }
    long wordIndex = bitPos >>> 6;
    int shift = (int) bitPos & 63;
    or(wordIndex, value << shift);
    if (shift + width > 64) {
      or(wordIndex + 1, value >>> (64 - shift));
    }
  }

  /**
   * The backing array of chunk {@code index}: words {@code [index << CHUNK_SHIFT, ...)}. Exposed
   * for hot loops that read within one chunk; callers must not modify it once published.
   */
  public long[] chunk(int index) {
    return chunks[index];
  }

  /** The number of chunks (at least 1). */
  public int chunkCount() {
    return chunks.length;
  }

  @Override
  public long length() {
    return length;
  }

  /** Returns a copy holding the first {@code newLength} words (zero-padded when longer). */
  public LongBigArray copyOf(long newLength) {
    LongBigArray copy = new LongBigArray(newLength);
    long n = Math.min(newLength, length);
    for (int c = 0; ((long) c << CHUNK_SHIFT) < n; c++) {
      long start = (long) c << CHUNK_SHIFT;
      System.arraycopy(chunks[c], 0, copy.chunks[c], 0, (int) Math.min(CHUNK_SIZE, n - start));
    }
    return copy;
  }

  /** Sets every word to zero. */
  public void clear() {
    for (long[] chunk : chunks) {
      Arrays.fill(chunk, 0L);
    }
  }

  @Override
  public long ramBytesUsed() {
    return 32 + 16 + 8L * chunks.length + 16L * chunks.length + 8 * length;
  }
}
