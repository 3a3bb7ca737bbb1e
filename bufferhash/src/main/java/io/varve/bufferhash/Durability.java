package io.varve.bufferhash;

/**
 * What survives a crash. The paper's buffers are volatile; a write-ahead log makes them durable
 * at the cost of one more sequential write per entry and an {@code fsync} per sync. Immutable;
 * thread-safe.
 */
public enum Durability {
  /**
   * The default, as in the paper: buffers live in RAM only. {@link BufferHash#close} writes them
   * to the buffers file, which the next open reads back and writes out as incarnations; {@link
   * BufferHash#sync} writes them out as incarnations. A process killed between loses the writes
   * still buffered since the last sync or open (never the log's consistency). Costs nothing per
   * write.
   */
  BUFFERS_IN_RAM,
  /**
   * Every write is appended to a write-ahead log; {@link BufferHash#sync} writes and forces it,
   * one {@code fsync} for all threads syncing at once (group commit). After a crash, every write
   * that a returned {@code sync()} covered is there. Costs an in-memory append per write, the log's
   * sequential writes, and the {@code fsync} per sync.
   */
  SYNC_ON_CALL,
  /**
   * As {@link #SYNC_ON_CALL}, and every put and delete syncs before it returns: no acknowledged
   * write is lost. Concurrent writers share their {@code fsync}s; a single writer pays one per
   * write.
   */
  SYNC_EVERY_WRITE;

  boolean writeAheadLog() {
    return this != BUFFERS_IN_RAM;
  }
}
