package io.varve.examples.dedup;

import io.varve.bufferhash.BufferHash;
import java.io.IOException;
import java.nio.file.Path;

/**
 * A {@link ChunkIndex} in a {@link BufferHash}: fingerprints on disk in a circular log, a few bytes
 * of RAM per fingerprint (buffers and Bloom filters), one page read per lookup of a fingerprint
 * found. When the log is full its oldest incarnation is evicted (FIFO, the paper's WAN optimizer's
 * policy), so a run longer than the log forgets the oldest chunks. Thread-safe, as BufferHash is.
 */
public final class BufferHashChunkIndex implements ChunkIndex {
  /** Key plus value bytes: a 20-byte SHA-1 and an 8-byte address (sizes BufferHash's buffers and filters). */
  public static final int ENTRY_BYTES = 20 + 8;

  private final BufferHash table;
  private final Path directory;

  private BufferHashChunkIndex(BufferHash table, Path directory) {
    this.table = table;
    this.directory = directory;
  }

  /**
   * Opens (or creates) the index in {@code directory}: a new one with a log of {@code logBytes};
   * either way with {@code memoryBytes} of RAM.
   *
   * @throws IllegalArgumentException when the budgets cannot work (BufferHash names the knob)
   */
  public static BufferHashChunkIndex open(Path directory, long logBytes, long memoryBytes) throws IOException {
    BufferHash table = BufferHash.builder(directory).logBytes(logBytes).memoryBytes(memoryBytes).entryBytes(ENTRY_BYTES).open();
    return new BufferHashChunkIndex(table, directory);
  }

  /** The table, for its tuning and counters. */
  public BufferHash table() {
    return table;
  }

  @Override
  public byte[] get(byte[] fingerprint) {
    return table.get(fingerprint);
  }

  @Override
  public void put(byte[] fingerprint, byte[] address) {
    table.put(fingerprint, address);
  }

  @Override
  public long ramBytes() {
    return table.ramBytesUsed();
  }

  /**
   * The log pages that hold live incarnations, in bytes: the index's size on disk. (The log's file
   * is as long as its budget from the start, but pages never written take no space.)
   */
  @Override
  public long diskBytes() {
    long[] pages = table.logPages();
    // The tuning's log size is the log's pages times the page size, whatever that size is.
    return pages[1] == 0 ? 0 : pages[0] * (table.tuning().logBytes() / pages[1]);
  }

  @Override
  public String description() {
    return "BufferHash in " + directory;
  }

  @Override
  public void close() {
    table.close();
  }
}
