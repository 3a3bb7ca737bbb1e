package io.varve.examples.dedup;

import java.io.IOException;
import java.io.InputStream;

/**
 * Content-defined chunking with FastCDC: W. Xia, Y. Zhou, H. Jiang, D. Feng, Y. Hua, Y. Hu, Q. Liu,
 * Y. Zhang, "FastCDC: a Fast and Efficient Content-Defined Chunking Approach for Data
 * Deduplication", USENIX ATC 2016 (Algorithm 1).
 *
 * <p>A cut falls where a Gear rolling hash ({@code fp = (fp << 1) + GEAR[byte]}) has all the bits of
 * a mask clear. Since every shift pushes old bytes out of the top, bit {@code p} of {@code fp}
 * depends on the last {@code p + 1} bytes only: a cut depends on the content just before it, not on
 * its offset in the stream, so an insertion moves the cuts near it and no others. The three ideas
 * of the paper are all here:
 *
 * <ul>
 *   <li><b>Gear hash with a padded mask</b>: one shift, one add and one table lookup per byte; the
 *       mask's one bits are spread over bits 16 to 49, so a cut depends on about 48 bytes, as a
 *       Rabin window would.
 *   <li><b>Sub-minimum cut-point skipping</b>: hashing starts {@code minSize} bytes into a chunk, so
 *       no chunk is shorter than {@code minSize} (except the last of a stream).
 *   <li><b>Normalized chunking</b> (level 2): before {@code avgSize} bytes the mask has two more one
 *       bits than {@code log2(avgSize)} (cuts 4 times less likely), after it two fewer (4 times
 *       more likely), which narrows the spread of chunk sizes around the average.
 * </ul>
 *
 * <p>With the default 8 KiB average the masks are the paper's ({@code 0x0003590703530000} and
 * {@code 0x0000d90003530000}); for other averages the same numbers of one bits are spread evenly
 * over the same bit positions. The Gear table is fixed (generated from a constant seed), so the
 * same bytes always give the same chunks, on every run and every host: fingerprints of chunks are
 * comparable between runs.
 *
 * <p>Immutable and thread-safe; {@link #chunk} keeps its state on its own stack and buffer, so
 * several threads may chunk several streams with one instance.
 */
public final class FastCdc {
  /** The defaults, as WAN optimizers and dedup systems use them: 2 KiB, 8 KiB, 64 KiB. */
  public static final int DEFAULT_MIN = 2 << 10;

  public static final int DEFAULT_AVG = 8 << 10;
  public static final int DEFAULT_MAX = 64 << 10;

  /** Bounds of the average: masks need between 6 and 30 one bits within the 34 positions used. */
  public static final int MIN_AVG = 1 << 8;

  public static final int MAX_AVG = 1 << 28;

  /** The largest chunk allowed: the buffer must hold a whole chunk (and Java arrays end near 2^31). */
  public static final int MAX_MAX = 1 << 30;

  /** The lowest and highest bit positions the paper's masks use. */
  private static final int MASK_LOW_BIT = 16;

  private static final int MASK_HIGH_BIT = 49;

  /** The paper's masks for an 8 KiB average (15 and 11 one bits). */
  private static final long PAPER_MASK_S = 0x0003590703530000L;

  private static final long PAPER_MASK_L = 0x0000d90003530000L;

  /** Bytes read at a time beyond the largest chunk, so that refills are large reads. */
  private static final int READ_AHEAD = 256 << 10;

  private static final long[] GEAR = gearTable();

  private final int minSize;
  private final int avgSize;
  private final int maxSize;
  private final long maskS;
  private final long maskL;

  /**
   * A chunker with chunks of at least {@code minSize} bytes (except a stream's last), about {@code
   * avgSize} on average, and at most {@code maxSize}.
   *
   * @param minSize at least 1 and at most {@code avgSize}
   * @param avgSize a power of two from {@link #MIN_AVG} to {@link #MAX_AVG}
   * @param maxSize at least {@code avgSize}, at most {@link #MAX_MAX}
   * @throws IllegalArgumentException naming the size that is wrong
   */
  public FastCdc(int minSize, int avgSize, int maxSize) {
    if (avgSize < MIN_AVG || avgSize > MAX_AVG || Integer.bitCount(avgSize) != 1) {
      throw new IllegalArgumentException(
          "the average chunk size must be a power of two from " + MIN_AVG + " to " + MAX_AVG + " bytes, got " + avgSize);
    }
    if (minSize < 1 || minSize > avgSize) {
      throw new IllegalArgumentException(
          "the minimum chunk size must be from 1 byte to the average (" + avgSize + "), got " + minSize);
    }
    if (maxSize < avgSize || maxSize > MAX_MAX) {
      throw new IllegalArgumentException(
          "the maximum chunk size must be from the average (" + avgSize + ") to " + MAX_MAX + " bytes, got " + maxSize);
    }
    this.minSize = minSize;
    this.avgSize = avgSize;
    this.maxSize = maxSize;
    int bits = Integer.numberOfTrailingZeros(avgSize);
    this.maskS = avgSize == DEFAULT_AVG ? PAPER_MASK_S : spreadMask(bits + 2);
    this.maskL = avgSize == DEFAULT_AVG ? PAPER_MASK_L : spreadMask(bits - 2);
  }

  /** A chunker with the defaults (2 KiB, 8 KiB, 64 KiB). */
  public static FastCdc defaults() {
    return new FastCdc(DEFAULT_MIN, DEFAULT_AVG, DEFAULT_MAX);
  }

  public int minSize() {
    return minSize;
  }

  public int avgSize() {
    return avgSize;
  }

  public int maxSize() {
    return maxSize;
  }

  /** Receives chunks from {@link #chunk}. */
  @FunctionalInterface
  public interface ChunkConsumer {
    /**
     * One chunk: {@code buffer[offset, offset + length)}, which starts {@code position} bytes into
     * the stream. The buffer is the chunker's: valid only during the call, and not to be modified.
     */
    void accept(byte[] buffer, int offset, int length, long position) throws IOException;
  }

  /**
   * Reads {@code in} to its end and hands each chunk to {@code consumer}, in order; the chunks
   * cover the stream exactly. Memory: one buffer of {@link #bufferSize()} bytes ({@code maxSize} +
   * 256 KiB), whatever the length of the stream. Does not close {@code in}.
   *
   * @return the number of bytes read (the sum of the chunks' lengths)
   */
  public long chunk(InputStream in, ChunkConsumer consumer) throws IOException {
    return chunk(in, new byte[bufferSize()], consumer);
  }

  /** The size of the buffer {@link #chunk(InputStream, byte[], ChunkConsumer)} needs. */
  public int bufferSize() {
    return maxSize + READ_AHEAD;
  }

  /**
   * As {@link #chunk(InputStream, ChunkConsumer)}, in a buffer of the caller's: for many small
   * streams, one buffer for all of them rather than one per stream.
   *
   * @param buffer at least {@link #bufferSize()} bytes, used by one call at a time
   */
  public long chunk(InputStream in, byte[] buffer, ChunkConsumer consumer) throws IOException {
    if (buffer.length < bufferSize()) {
      throw new IllegalArgumentException("the buffer has " + buffer.length + " bytes, fewer than " + bufferSize());
    }
    int start = 0; // first byte not yet in a chunk
    int end = 0; // end of the bytes read
    long position = 0; // stream offset of buffer[start]
    boolean eof = false;
    while (true) {
      if (!eof && end - start < maxSize) {
        // Fewer bytes than a whole chunk might need: move them to the front and fill up.
        System.arraycopy(buffer, start, buffer, 0, end - start);
        end -= start;
        start = 0;
        while (end < buffer.length) {
          int read = in.read(buffer, end, buffer.length - end);
          if (read < 0) {
            eof = true;
            break;
          }
          end += read;
        }
      }
      if (start == end) {
        return position;
      }
      int length = cut(buffer, start, end - start);
      consumer.accept(buffer, start, length, position);
      start += length;
      position += length;
    }
  }

  /**
   * The length of the chunk that starts at {@code buffer[offset]}, given that {@code available}
   * bytes follow (all that remain of the stream, or at least {@code maxSize}): Algorithm 1 of the
   * paper.
   */
  int cut(byte[] buffer, int offset, int available) {
    int n = Math.min(available, maxSize);
    if (n <= minSize) {
      return n;
    }
    int normal = Math.min(avgSize, n);
    long fp = 0;
    int i = minSize;
    for (; i < normal; i++) {
      fp = (fp << 1) + GEAR[buffer[offset + i] & 0xff];
      if ((fp & maskS) == 0) {
        return i + 1;
      }
    }
    for (; i < n; i++) {
      fp = (fp << 1) + GEAR[buffer[offset + i] & 0xff];
      if ((fp & maskL) == 0) {
        return i + 1;
      }
    }
    return n;
  }

  /** {@code ones} one bits spread evenly over bits {@link #MASK_LOW_BIT} to {@link #MASK_HIGH_BIT}. */
  static long spreadMask(int ones) {
    int span = MASK_HIGH_BIT - MASK_LOW_BIT + 1;
    long mask = 0;
    for (int k = 0; k < ones; k++) {
      // Highest position first, so that the window is as long as the paper's for every count.
      mask |= 1L << (MASK_HIGH_BIT - (int) ((long) k * span / ones));
    }
    return mask;
  }

  /** 256 pseudo-random 64-bit values (SplitMix64 from a constant seed): the same on every run. */
  private static long[] gearTable() {
    long[] table = new long[256];
    long state = 0x5641525645L; // "VARVE"
    for (int i = 0; i < table.length; i++) {
      state += 0x9E3779B97F4A7C15L;
      long z = state;
      z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
      z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
      table[i] = z ^ (z >>> 31);
    }
    return table;
  }
}
