package io.varve.bcms;

import java.io.Closeable;

/**
 * What both count-min sketches do: count items and estimate their counts, never below the truth.
 * Items are byte strings or {@code long}s (hashed as their 8 little-endian bytes; a {@code long}
 * item and its byte string are different items); weights are non-negative.
 *
 * <p>Implemented by {@link CountMinSketch} and {@link BufferedCountMinSketch}; each states its own
 * thread-safety. After {@link #close} every method but {@code close} and {@link #parameters} throws
 * {@link IllegalStateException}.
 */
public interface FrequencySketch extends Closeable {
  /**
   * Adds {@code weight} to the count of {@code item}.
   *
   * @throws IllegalArgumentException if {@code weight} is negative (nothing is counted)
   */
  void update(byte[] item, long weight);

  /**
   * Adds {@code weight} to the count of the 64-bit item {@code item}.
   *
   * @throws IllegalArgumentException if {@code weight} is negative (nothing is counted)
   */
  void update(long item, long weight);

  /** Adds 1 to the count of {@code item}. */
  default void update(byte[] item) {
    update(item, 1);
  }

  /** Adds 1 to the count of the 64-bit item {@code item}. */
  default void update(long item) {
    update(item, 1);
  }

  /** The estimated count of {@code item}, counting every update before this call: at least its true count. */
  long estimate(byte[] item);

  /** The estimated count of the 64-bit item {@code item}: at least its true count. */
  long estimate(long item);

  /** The sum of all update weights (saturating at {@code Long.MAX_VALUE}). */
  long totalWeight();

  /** The sketch's parameters. */
  SketchParameters parameters();

  /** Bytes of all counters. */
  long sizeBytes();

  /** Bytes of RAM (heap and direct buffers) this sketch holds; mapped files are not counted. */
  long ramBytesUsed();

  /** Makes a file sketch's file complete and durable; nothing to do in memory. */
  void flush();

  /** Flushes (see {@link #flush}) and releases the sketch's file and memory; idempotent. */
  @Override
  void close();
}
