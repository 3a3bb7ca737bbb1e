package io.varve.bufferhash;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;

/**
 * How a {@link BufferHash} with a {@link WriteAheadLog} makes writes durable and keeps the log
 * bounded: it forces the incarnations flushed since the last sync before it logs that they were
 * flushed (so that replay may trust those records), forces the log's records, and once the log has
 * more than {@value #MAX_SEGMENTS} segments flushes the buffers that still hold records of the
 * oldest ones and deletes the segments no buffer needs. Thread-safe: the incarnation log is
 * touched under the table's log lock; the write-ahead log serializes its own syncs.
 */
final class WriteAheadSync {
  /** Segments past which old ones are retired (down to half as many). */
  static final int MAX_SEGMENTS = 6;

  private final Path directory;
  private final ReentrantLock logLock;
  private final IncarnationLog log;
  private final LogWriter writer;
  private final SuperTable[] tables;
  private final EvictionPolicy policy;
  private final BooleanSupplier closed;

  WriteAheadSync(
      Path directory, ReentrantLock logLock, IncarnationLog log, LogWriter writer, SuperTable[] tables, EvictionPolicy policy,
      BooleanSupplier closed) {
    this.directory = directory;
    this.logLock = logLock;
    this.log = log;
    this.writer = writer;
    this.tables = tables;
    this.policy = policy;
    this.closed = closed;
  }

  /**
   * Forces {@code wal}: first the incarnations flushed since the last sync, then the records up to
   * {@code through} (every record appended so far with {@code Long.MAX_VALUE}). Retires old
   * segments.
   */
  void sync(WriteAheadLog wal, long through) {
    logLock.lock();
    try {
      // Closed: a write that returned from its table before close is in the buffers file close
      // wrote, unless that failed, which the write-ahead log's sync says; the incarnation log is
      // closed, and forcing it would fail a write that was kept.
      List<long[]> flushed = closed.getAsBoolean() ? List.of() : writer.takePendingFlushed();
      if (!flushed.isEmpty()) {
        log.sync();
        for (long[] table : flushed) {
          wal.appendFlushed((int) table[0], table[1]);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("syncing " + log.file(), e);
    } finally {
      logLock.unlock();
    }
    if (through == Long.MAX_VALUE) {
      wal.sync();
    } else {
      wal.syncThrough(through);
    }
    try {
      log.checkInPlace(); // the segments are in the same directory: deleted with it
    } catch (IOException e) {
      throw new UncheckedIOException("syncing the write-ahead log in " + directory, e);
    }
    if (wal.segmentCount() > MAX_SEGMENTS) {
      retireSegments(wal);
    }
  }

  /**
   * Deletes write-ahead segments whose records are all in durable incarnations, first flushing
   * the buffers that still hold records of the oldest ones, so that the log stays bounded.
   */
  private void retireSegments(WriteAheadLog wal) {
    logLock.lock();
    try {
      if (closed.getAsBoolean()) {
        return;
      }
      long keepFrom = wal.sequenceToKeep(MAX_SEGMENTS / 2);
      ArrayDeque<SuperTable> work = new ArrayDeque<>();
      for (SuperTable table : tables) {
        table.lock.writeLock().lock();
        try {
          if (table.oldestBufferedSequence() < keepFrom) {
            table.sealActive();
            work.add(table);
          }
        } finally {
          table.lock.writeLock().unlock();
        }
      }
      writer.drainSealed(work, policy.partialDiscard());
      log.sync();
      long oldest = Long.MAX_VALUE;
      for (SuperTable table : tables) {
        table.lock.readLock().lock();
        try {
          oldest = Math.min(oldest, table.oldestBufferedSequence());
        } finally {
          table.lock.readLock().unlock();
        }
      }
      wal.deleteBelow(Math.min(oldest, wal.nextSequence()));
    } catch (IOException e) {
      throw new UncheckedIOException("retiring write-ahead log segments in " + directory, e);
    } finally {
      logLock.unlock();
    }
  }
}
