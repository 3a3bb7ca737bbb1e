package io.varve.silt;

import io.varve.core.cuckoo.CuckooTagTable;
import io.varve.core.format.CorruptStoreException;
import io.varve.core.hash.KeyHasher;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.locks.StampedLock;

/**
 * SILT's LogStore (§3.1): the newest writes, appended to a {@link SiltLog} and found through a
 * partial-key {@link CuckooTagTable} in memory (six bytes per slot, no key), whose payloads are
 * the records' offsets in the log. A put of a key it holds appends a new record and repoints the
 * slot; a delete appends a tombstone. It is full when its table refuses a new key, or when its log
 * reaches its size limit; the store then freezes it and starts another.
 *
 * <p>Thread-safe: one thread writes at a time (the store's write lock), any number read. Readers
 * take the table's candidates under an optimistic stamp, since a cuckoo insertion moves entries
 * between slots, then read the log, which is append-only, without a lock.
 */
final class LogStore extends Retained {
  /**
   * The hash of stores of manifest versions 1 and 2: a public seed, so that keys crafted to share
   * buckets fill their log stores (see {@link SiltManifest#hasher()}).
   */
  static final KeyHasher FIXED_HASHER = KeyHasher.withSeed(0x5117_106L);

  private final SiltLog log;
  private final CuckooTagTable table;
  private final long maxBytes;
  private final StampedLock lock = new StampedLock();

  private LogStore(SiltLog log, long maxBytes) {
    this.log = log;
    this.table = CuckooTagTable.withBuckets(log.buckets());
    this.maxBytes = maxBytes;
  }

  /** A new, empty log store in {@code file}, of the store whose check is {@code check}. */
  static LogStore create(Path file, long number, int buckets, long maxBytes, SiltCheck check) throws IOException {
    return new LogStore(SiltLog.create(file, number, buckets, check), maxBytes);
  }

  /**
   * Opens the log store of an existing log, replaying its records into the table.
   *
   * @param newest whether it takes writes: a tail that a crash cut short is dropped
   * @param dropDamagedTail whether, in the newest log, a damaged record and those after it are
   *     dropped rather than refused ({@link SiltOptions#dropDamagedLogTail})
   * @param check the store's check: another store's log fails it
   * @param synced the length the newest log's last sync reached (its sync mark), or 0
   * @param hasher the store's key hash: the one its tables were built with
   * @throws LogShorterThanSyncException when the newest log is shorter than {@code synced}
   * @throws CorruptStoreException when the log is damaged, or another store's
   */
  static LogStore open(
      Path file, long number, boolean newest, long maxBytes, boolean dropDamagedTail, SiltCheck check, long synced, KeyHasher hasher)
      throws IOException {
    SiltLog log = SiltLog.open(file, number, newest, check);
    try {
      LogStore store = new LogStore(log, maxBytes);
      long[] hash = new long[2];
      log.scan(newest, newest && dropDamagedTail, newest ? synced : 0, (offset, key, value) -> {
        hasher.hash(key, hash);
        CorruptStoreException.check(store.index(key, hash[0], hash[1], offset),
            file + ": its table fills before its records end (a log of another table size?)");
      });
      return store;
    } catch (IOException | RuntimeException e) {
      log.close();
      throw e;
    }
  }

  long number() {
    return log.number();
  }

  Path file() {
    return log.file();
  }

  /** Live keys (deleted ones included: their tombstones count). */
  int entries() {
    return table.size();
  }

  /** The record check of this log (its store's). */
  SiltCheck check() {
    return log.check();
  }

  long logBytes() {
    return log.bytes();
  }

  long ramBytesUsed() {
    return 64 + table.ramBytesUsed();
  }

  /**
   * What this store holds for {@code key}, whose hash is {@code (hi, lo)}: its value, {@link
   * SiltLog#DELETED}, or null when it holds nothing for it.
   */
  byte[] get(byte[] key, long hi, long lo) {
    int[] candidates = new int[CuckooTagTable.WAYS * 2 + 1];
    int n;
    long stamp = lock.tryOptimisticRead();
    n = candidates(hi, lo, candidates);
    if (!lock.validate(stamp)) {
      stamp = lock.readLock();
      try {
        n = candidates(hi, lo, candidates);
      } finally {
        lock.unlockRead(stamp);
      }
    }
    try {
      for (int i = 0; i < n; i++) {
        byte[] value = log.valueIfKey(candidates[i] & 0xFFFF_FFFFL, key);
        if (value != null) {
          return value;
        }
      }
      return null;
    } catch (IOException e) {
      throw new UncheckedIOException("reading " + log.file(), e);
    }
  }

  private int candidates(long hi, long lo, int[] into) {
    int n = 0;
    for (int slot = table.firstCandidate(hi, lo); slot >= 0 && n < into.length; slot = table.nextCandidate(hi, lo, slot)) {
      into[n++] = table.payload(slot);
    }
    return n;
  }

  /** Whether a put or delete of this size could go in without the log passing its limit. */
  boolean fits(int recordBytes) {
    return log.bytes() + recordBytes <= maxBytes;
  }

  /**
   * Appends a put ({@code value} non-null) or a delete of {@code key}. The caller holds the write
   * lock.
   *
   * @return false, writing nothing, when this store is full for it
   */
  boolean write(byte[] key, byte[] value, long hi, long lo) throws IOException {
    if (!fits(SiltLog.recordBytes(key.length, value == null ? -1 : value.length))) {
      return false;
    }
    int slot = slotOf(key, hi, lo);
    if (slot < 0 && table.isFull()) {
      return false;
    }
    long offset = log.append(key, value);
    long stamp = lock.writeLock();
    try {
      if (slot >= 0) {
        table.setPayload(slot, (int) offset);
      } else {
        table.insert(hi, lo, (int) offset);
      }
    } finally {
      lock.unlockWrite(stamp);
    }
    return true;
  }

  /** Indexes a replayed record; false when the table is full. */
  private boolean index(byte[] key, long hi, long lo, long offset) throws IOException {
    int slot = slotOf(key, hi, lo);
    if (slot >= 0) {
      table.setPayload(slot, (int) offset);
      return true;
    }
    return table.insert(hi, lo, (int) offset);
  }

  /** The slot of {@code key}'s entry, or -1 (only the writer calls this). */
  private int slotOf(byte[] key, long hi, long lo) throws IOException {
    for (int slot = table.firstCandidate(hi, lo); slot >= 0; slot = table.nextCandidate(hi, lo, slot)) {
      if (log.valueIfKey(table.payload(slot) & 0xFFFF_FFFFL, key) != null) {
        return slot;
      }
    }
    return -1;
  }

  /** The table, for a conversion of the frozen store: no write may come any more. */
  CuckooTagTable table() {
    return table;
  }

  /** Reads the log's records in order (a frozen store's, for a merge). */
  void scan(SiltLog.Visitor visitor) throws IOException {
    log.scan(false, false, 0, visitor);
  }

  /** Forces the records written so far to the device. */
  void force() throws IOException {
    log.force();
  }

  @Override
  void released(boolean delete) throws IOException {
    log.close();
    if (delete) {
      Files.deleteIfExists(log.file());
    }
  }
}
