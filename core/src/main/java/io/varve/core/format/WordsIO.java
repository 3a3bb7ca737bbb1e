package io.varve.core.format;

import io.varve.core.bits.LongBigArray;
import io.varve.core.bits.LongWords;
import java.io.DataInput;
import java.io.DataOutput;
import java.io.EOFException;
import java.io.IOException;

/**
 * Writes and reads word arrays as {@code length:int64 word:int64*} (big-endian, the byte order of
 * {@link DataOutput}). Reading never allocates more than the caller's limit, so a damaged length
 * cannot exhaust the heap.
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
   * expectedLength}.
   */
  public static LongBigArray read(DataInput in, long expectedLength, String what) throws IOException {
    long n = readLong(in, what + " length");
    CorruptStoreException.check(
        n == expectedLength, what + ": expected " + expectedLength + " words, found " + n);
    LongBigArray words = new LongBigArray(n);
    for (long i = 0; i < n; i++) {
      words.set(i, readLong(in, what));
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
