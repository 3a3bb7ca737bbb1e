package io.varve.benchmarks.bufferhash;

import java.io.IOException;

/**
 * The few operations the BufferHash comparison asks of every mutable key-value store it measures:
 * byte-string keys and values, insert-or-replace, point lookups. Each implementation is opened by
 * a {@link StoreKind} with a RAM budget and a directory, and configures its system to keep within
 * that budget and to write without an fsync per operation, as BufferHash does by default.
 *
 * <p>Implementations are not thread-safe: the harness drives each from one thread.
 */
public interface MutableStore extends AutoCloseable {

  /** Inserts {@code key} with {@code value}, replacing any value it had. */
  void put(byte[] key, byte[] value) throws IOException;

  /** The value of {@code key}, or null when it is absent. */
  byte[] get(byte[] key) throws IOException;

  /**
   * The RAM the system says it holds (caches, buffers, filters, indexes), in bytes, or -1 when it
   * cannot tell (LMDB keeps nothing but the page cache). Page cache is never included; the harness
   * measures that from the memory cgroup.
   */
  long ramBytesUsed() throws IOException;

  /**
   * Lookups so far by the number of reads of the storage device each made (index = reads), or null
   * when the system does not count them (all but BufferHash).
   */
  default long[] readsPerLookup() {
    return null;
  }

  /** Flushes what the system holds in memory to its files, without waiting for the disk (no fsync). */
  @Override
  void close() throws IOException;
}
