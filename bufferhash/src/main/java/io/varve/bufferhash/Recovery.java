package io.varve.bufferhash;

import io.varve.core.format.CorruptStoreException;
import io.varve.core.hash.KeyHasher;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Supplier;

/**
 * Rebuilds what a BufferHash keeps in RAM when it opens: the incarnations and their Bloom filters
 * from the log, then the writes the write-ahead log holds that no durable incarnation does, then
 * the buffers written on the last close. Used once, by the opening thread.
 */
final class Recovery {
  /** What recovery fills: the BufferHash being opened. */
  interface Target {
    /** The super table {@code hi} (a key hash's high word) belongs to. */
    int superTableOf(long hi);

    /**
     * Puts ({@code value} null: deletes) a recovered entry that {@code source} filed under {@code
     * superTable}, with write-ahead sequence {@code replayed} (0: not logged, -1: log it now).
     */
    void apply(byte[] key, byte[] value, int superTable, long replayed, Supplier<String> source);

    /** From now on, writes are logged to {@code wal}. */
    void attach(WriteAheadLog wal);

    /** Writes every buffered entry out as incarnations and forces them, with a state naming them. */
    void writeOutBuffers();
  }

  private final Path directory;
  private final Path buffers;
  private final IncarnationLog log;
  private final SuperTable[] tables;
  private final KeyHasher hasher;
  /** Entries applied from the write-ahead log and the buffers file. */
  private long recovered;

  Recovery(Path directory, String buffersFile, IncarnationLog log, SuperTable[] tables, KeyHasher hasher) {
    this.directory = directory;
    this.buffers = directory.resolve(buffersFile);
    this.log = log;
    this.tables = tables;
    this.hasher = hasher;
  }

  void run(Durability durability, long walSegmentBytes, boolean dropDamagedWalTail, Target target) throws IOException {
    long[][] hashes = new long[2][];
    log.scan(
        (bytes, header, startPage) -> {
          String where = log.file() + " at page " + startPage;
          Incarnation incarnation = IncarnationCodec.decode(bytes, header, startPage, hasher, hashes, null, where);
          for (long hi : hashes[0]) {
            if (target.superTableOf(hi) != incarnation.superTable) {
              throw new CorruptStoreException(where + ": an entry of another super table");
            }
          }
          tables[incarnation.superTable].addNewest(incarnation, hashes[0], hashes[1]);
          return incarnation;
        });
    WriteAheadLog wal = replayWriteAheadLog(durability, walSegmentBytes, dropDamagedWalTail, target);
    try {
      loadBuffers(target);
      if (durability.writeAheadLog()) {
        wal.sync(); // the buffers file's entries are now in the write-ahead log, before the state stops naming the file
      } else {
        if (recovered > 0) {
          // Durable until now, in the buffers file or the write-ahead log: they stay so, as
          // incarnations, before the file and the segments go.
          target.writeOutBuffers();
        }
        wal.deleteAll();
      }
    } finally {
      if (!durability.writeAheadLog()) {
        wal.close();
      }
    }
    log.recordBuffersIfNamed();
    Files.deleteIfExists(buffers);
  }

  /**
   * Replays the write-ahead log into the buffers: every entry a super table had not yet flushed to
   * a durable incarnation. Returns the log, attached to the table for new writes when this mode
   * keeps one; without one, the caller deletes its segments once the replayed entries are durable.
   */
  private WriteAheadLog replayWriteAheadLog(Durability durability, long segmentBytes, boolean dropDamagedTail, Target target) throws IOException {
    long[] flushedThrough = new long[tables.length];
    WriteAheadLog.Replayer replayer =
        new WriteAheadLog.Replayer() {
          @Override
          public void flushed(int superTable, long through) {
            flushedThrough[superTable] = Math.max(flushedThrough[superTable], through);
          }

          @Override
          public boolean wants(long sequence, int superTable) {
            return sequence > flushedThrough[superTable];
          }

          @Override
          public void entry(long sequence, int superTable, byte[] key, byte[] value) {
            if (wants(sequence, superTable)) {
              recovered++;
              target.apply(key, value, superTable, durability.writeAheadLog() ? sequence : 0, () -> directory + ": write-ahead record " + sequence);
            }
          }
        };
    WriteAheadLog opened = WriteAheadLog.open(directory, segmentBytes, tables.length, log.tableId(), log.syncMarkVersion(), dropDamagedTail, replayer);
    boolean replayed = false;
    try {
      if (durability.writeAheadLog()) {
        target.attach(opened);
      }
      opened.replayEntries(replayer);
      replayed = true;
    } finally {
      if (!replayed && !durability.writeAheadLog()) {
        opened.close();
      }
    }
    return opened;
  }

  /**
   * Reads back the buffers written on close. The state names the file it expects, until a
   * recovery has taken it in: such a file is loaded (a state written by a recovery that died, or
   * failed, before it finished still names it); a valid file written for a newer state than the
   * one read is loaded too (the state write that named it was lost: the process died there, or
   * the newest state slot was damaged), but only one newer by that one write; an older one that
   * no state names is stale.
   */
  private void loadBuffers(Target target) throws IOException {
    long expected = log.expectedBuffersChecksum();
    boolean present = Files.exists(buffers);
    CorruptStoreException.check(present || expected < 0, buffers + " is missing: the state says the buffers were written there on close");
    if (!present) {
      return;
    }
    long generation = BufferSnapshot.generationOf(buffers, log.tableId());
    CorruptStoreException.check(generation >= 0 || expected < 0, buffers + ": damaged (checksum mismatch or not a buffers file of this table)");
    CorruptStoreException.check(generation >= 0, buffers + ": damaged or another table's, and the state does not say whether it is current");
    long stateGeneration = log.generationAtOpen(); // the state that named it, or not; recovery's own state writes aside
    // Every state write is forced before the next, and close writes the file for the very next
    // one: only that one write can be missing. A file newer by more is not this state's: the state
    // (or the file) comes from another copy of the table, and the writes between them are lost.
    CorruptStoreException.check(generation <= stateGeneration + 1,
        buffers + ": written for state generation " + generation + ", but the state is of generation " + stateGeneration
            + ": the state is older than the buffers file by more than the one write a crash can lose"
            + " (a state or buffers file from another copy of the table?)");
    boolean named = expected >= 0 && generation <= stateGeneration;
    if (named || generation > stateGeneration) {
      BufferSnapshot.read(
          buffers,
          tables.length,
          log.tableId(),
          named ? expected : -1,
          (tableId, key, value) -> {
            recovered++;
            target.apply(key, value, tableId, -1, buffers::toString);
          });
    }
  }
}
