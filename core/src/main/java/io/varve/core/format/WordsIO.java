package io.varve.core.format;

import io.varve.core.bits.LongBigArray;
import io.varve.core.bits.LongWords;
import java.io.DataInput;
import java.io.DataOutput;
import java.io.EOFException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Writes and reads word arrays as {@code length:int64 word:int64*} (big-endian, the byte order of
 * {@link DataOutput}). Reading grows its storage only as words arrive, so a damaged length ends
 * in a {@link CorruptStoreException}, not in an attempt to allocate it.
 *
 * <p>Stateless and thread-safe.
 */
public final class WordsIO {
  private WordsIO() {}

  public static void write(DataOutput out, LongWords words) throws IOException {
    long n = words.length();
    out.writeLong(n);
    for (long i = 0; i < n; i++) {
      out.writeLong(words.get(i));
    }
  }

  /**
   * Reads an array written by {@link #write}, checking that its length is exactly {@code
   * expectedLength}. Storage grows only as words actually arrive, so a damaged or hostile length
   * ends in a {@link CorruptStoreException} at the end of the input, never in a huge allocation.
   */
  public static LongBigArray read(DataInput in, long expectedLength, String what) throws IOException {
    long n = readLong(in, what + " length");
    CorruptStoreException.check(
        n == expectedLength && n >= 0, what + ": expected " + expectedLength + " words, found " + n);
    List<long[]> chunks = new ArrayList<>();
    for (long start = 0; start < n; start += LongBigArray.CHUNK_SIZE) {
      chunks.add(readChunk(in, (int) Math.min(LongBigArray.CHUNK_SIZE, n - start), what));
    }
    return chunks.isEmpty() ? new LongBigArray(0) : LongBigArray.ofChunks(chunks.toArray(new long[0][]));
  }

  /** Reads {@code size} words into an array that doubles as they arrive. */
  private static long[] readChunk(DataInput in, int size, String what) throws IOException {
    long[] words = new long[Math.min(size, 1 << 12)];
    for (int i = 0; i < size; i++) {
      if (i == words.length) {
        words = Arrays.copyOf(words, (int) Math.min(size, 2L * words.length));
      }
      words[i] = readLong(in, what);
    }
    return words;
  }

  /** Reads a long, reporting end of input as corruption of {@code what}. */
  public static long readLong(DataInput in, String what) throws IOException {
    try {
      return in.readLong();
    } catch (EOFException e) {
      throw new CorruptStoreException("truncated input while reading " + what, e);
    }
  }

  /** Reads an int, reporting end of input as corruption of {@code what}. */
  public static int readInt(DataInput in, String what) throws IOException {
    try {
      return in.readInt();
    } catch (EOFException e) {
      throw new CorruptStoreException("truncated input while reading " + what, e);
    }
  }
}
