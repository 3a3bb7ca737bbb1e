package io.varve.bufferhash;

import io.varve.core.format.CorruptStoreException;
import io.varve.core.hash.KeyHasher;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The one writer of the log: writes sealed buffers as incarnations at its head and evicts the
 * oldest incarnations to make room, applying the eviction policy (BufferHash §5.1.2).
 *
 * <p>Not thread-safe: callers hold {@link BufferHash}'s log lock. It takes super tables' locks
 * itself, after the log lock, never the other way round.
 */
final class LogWriter {
  /**
   * Once the log must evict, it evicts ahead of need, for about this many more flushes of the
   * size at hand: the forced state that must precede overwriting evicted pages ({@link
   * IncarnationLog#commitTail}) then serves them too, where it would cost one {@code fsync} each.
   */
  private static final int EVICT_AHEAD_FLUSHES = 4;
  /** The evictions ahead of need take at most this share of the log: little goes early. */
  private static final int EVICT_AHEAD_MAX_SHARE = 32;

  private final IncarnationLog log;
  private final SuperTable[] tables;
  private final KeyHasher hasher;
  private final EvictionPolicy policy;
  private final EvictionListener listener;
  private final boolean syncWrites;
  private final ReadContext evictionContext = new ReadContext();
  private WriteAheadLog wal;
  /** Super tables and the write-ahead sequence their newest incarnation covers, to record once the log is forced. */
  private final List<long[]> pendingFlushed = new ArrayList<>();
  private boolean warnedOfEarlyEviction;
  long flushes;
  long evictedIncarnations;
  long keptEntries;
  long droppedCurrentEntries;
  /**
   * The thread running the user's code (the listener, a priority policy's predicate) now, or null:
   * its calls back into the table would run a flush inside this one (see {@link #callingBack}).
   */
  private volatile Thread inUserCode;

  LogWriter(IncarnationLog log, SuperTable[] tables, KeyHasher hasher, EvictionPolicy policy, EvictionListener listener, boolean syncWrites) {
    this.log = log;
    this.tables = tables;
    this.hasher = hasher;
    this.policy = policy;
    this.listener = listener;
    this.syncWrites = syncWrites;
  }

  /** From now on, entries that eviction keeps are logged there, and flushes are noted for it. */
  void attach(WriteAheadLog wal) {
    this.wal = wal;
  }

  /** The flushes since the last call: (super table, write-ahead sequence its new incarnation covers). */
  List<long[]> takePendingFlushed() {
    List<long[]> taken = new ArrayList<>(pendingFlushed);
    pendingFlushed.clear();
    return taken;
  }

  /**
   * Writes the sealed buffers of the tables in {@code work} to the log, evicting as needed. Entries
   * that a partial discard keeps may fill buffers; those are flushed after, with full discards, so
   * that the work ends.
   */
  void drainSealed(ArrayDeque<SuperTable> work, boolean partialDiscard) {
    Set<SuperTable> refilled = new LinkedHashSet<>();
    try {
      for (SuperTable table : work) {
        int pending = sealedCount(table);
        for (int i = 0; i < pending; i++) {
          flushOldestSealed(table, partialDiscard, refilled);
        }
      }
      while (!refilled.isEmpty()) {
        SuperTable table = refilled.iterator().next();
        refilled.remove(table);
        while (sealedCount(table) > 0) {
          flushOldestSealed(table, false, refilled);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("writing to " + log.file(), e);
    }
  }

  private void warnOfEarlyEvictionOnce(SuperTable table) {
    if (!warnedOfEarlyEviction && log.placeFor(1) >= 0) {
      warnedOfEarlyEviction = true;
      System.getLogger(LogWriter.class.getName()).log(System.Logger.Level.WARNING,
          log.file() + ": super table " + table.id + " holds the incarnations its Bloom filters were sized for, and the log has room:"
              + " the oldest are evicted early. Small incarnations come from frequent sync() calls without a write-ahead log;"
              + " Durability.SYNC_ON_CALL makes syncs cheap and keeps the log's capacity");
    }
  }

  private static boolean holdsPlannedIncarnations(SuperTable table) {
    table.lock.readLock().lock();
    try {
      return table.holdsPlannedIncarnations();
    } finally {
      table.lock.readLock().unlock();
    }
  }

  private static int sealedCount(SuperTable table) {
    table.lock.readLock().lock();
    try {
      return table.sealedCount();
    } finally {
      table.lock.readLock().unlock();
    }
  }

  private void flushOldestSealed(SuperTable table, boolean partialDiscard, Set<SuperTable> refilled) throws IOException {
    WriteBuffer buffer;
    table.lock.readLock().lock();
    try {
      buffer = table.oldestSealed();
    } finally {
      table.lock.readLock().unlock();
    }
    if (buffer == null) {
      return;
    }
    IncarnationCodec.Encoded encoded = IncarnationCodec.encode(buffer, table.id, log.nextSequence(), hasher, log.tableId());
    int page;
    boolean evicted = false;
    long keptBefore = keptEntries;
    // The paper's super table keeps k incarnations; here the log is shared, so the oldest go
    // until this table has a column to spare, and until the log has room.
    while (!log.isEmpty() && holdsPlannedIncarnations(table)) {
      warnOfEarlyEvictionOnce(table);
      evictOldest(partialDiscard, refilled);
      evicted = true;
    }
    while ((page = log.placeFor(encoded.pages)) < 0) {
      evictOldest(partialDiscard, refilled);
      evicted = true;
    }
    if (evicted) {
      long ahead = Math.min((long) EVICT_AHEAD_FLUSHES * encoded.pages, log.totalPages() / EVICT_AHEAD_MAX_SHARE);
      for (long freed = 0; freed < ahead && !log.isEmpty(); ) {
        freed += log.oldest().pages;
        evictOldest(partialDiscard, refilled);
      }
      if (wal != null && keptEntries > keptBefore) {
        // The entries kept are only in a buffer now, logged anew: their records must be on the
        // device before the state stops naming the incarnation that held them.
        wal.sync();
      }
      log.commitTail();
    }
    Incarnation incarnation = log.append(encoded, page, syncWrites);
    table.lock.writeLock().lock();
    try {
      table.install(incarnation, encoded);
    } finally {
      table.lock.writeLock().unlock();
    }
    if (wal != null && buffer.lastSequence() > 0) {
      pendingFlushed.add(new long[] {table.id, buffer.lastSequence()});
    }
    flushes++;
  }

  private void evictOldest(boolean partialDiscard, Set<SuperTable> refilled) throws IOException {
    Incarnation victim = log.oldest();
    SuperTable owner = tables[victim.superTable];
    boolean readEntries = partialDiscard || listener != null;
    byte[] bytes = readEntries ? readIncarnation(victim) : null;
    owner.lock.writeLock().lock();
    try {
      if (readEntries) {
        IncarnationCodec.Header header = IncarnationCodec.readHeader(bytes, log.tableId(), where(victim));
        List<byte[][]> entries = new ArrayList<>(victim.entries);
        IncarnationCodec.decode(
            bytes, header, victim.startPage, hasher, new long[2][], (unit, at, size) -> entries.add(new byte[][] {WriteBuffer.key(unit, at), WriteBuffer.value(unit, at)}), where(victim));
        long[] hash = new long[2];
        UserCodeFailures failures = new UserCodeFailures();
        for (byte[][] entry : entries) {
          if (entry[1] == null) {
            continue; // a tombstone: every older version has gone before it
          }
          hasher.hash(entry[0], hash);
          if (owner.find(entry[0], hash[0], hash[1], victim.ordinal, evictionContext, log)) {
            continue; // replaced or deleted since
          }
          if (partialDiscard && keeps(entry, failures)) {
            keptEntries++;
            long sequence = wal == null ? 0 : wal.appendEntry(owner.id, entry[0], entry[1]);
            if (owner.put(entry[0], entry[1], false, hash[0], hash[1], sequence)) {
              refilled.add(owner);
            }
          } else {
            droppedCurrentEntries++;
            if (listener != null) {
              inUserCode = Thread.currentThread();
              try {
                listener.evicted(entry[0], entry[1]);
              } catch (RuntimeException e) {
                failures.add("the eviction listener", e);
              } finally {
                inUserCode = null;
              }
            }
          }
        }
        evictionContext.release();
        failures.log(where(victim));
      }
      owner.evictOldest(victim);
    } finally {
      owner.lock.writeLock().unlock();
    }
    log.removeOldest();
    evictedIncarnations++;
  }

  /** Whether the policy keeps {@code entry}; a policy that throws keeps nothing (noted in {@code failures}). */
  private boolean keeps(byte[][] entry, UserCodeFailures failures) {
    inUserCode = Thread.currentThread();
    try {
      return policy.keeps(entry[0], entry[1]);
    } catch (RuntimeException e) {
      failures.add("the eviction policy", e);
      return false;
    } finally {
      inUserCode = null;
    }
  }

  /**
   * Refuses a call into the table from the eviction listener or a priority policy's predicate,
   * which run in the middle of an eviction under the table's locks. Such a call ran a flush inside
   * the one evicting (a put, a delete, an LRU get: the log then refused its own incarnations and
   * the table stopped taking writes), recursed until the stack overflowed (sync), or closed the
   * table under the eviction.
   */
  void checkNotCallingBack() {
    if (inUserCode == Thread.currentThread()) {
      throw new IllegalStateException("an eviction listener or eviction policy must not call back into the BufferHash");
    }
  }

  /**
   * Exceptions of the user's code (the listener, a priority policy's predicate) during one
   * eviction. An eviction is done whatever they throw, and logged once: stopped half way, the victim
   * stayed, the next flush evicted it again and reported its entries a second time, and a listener
   * that kept failing left every later flush waiting, the sealed buffers growing without bound.
   */
  private static final class UserCodeFailures {
    private RuntimeException first;
    private String firstSource;
    private int count;

    void add(String source, RuntimeException e) {
      if (first == null) {
        first = e;
        firstSource = source;
      }
      count++;
    }

    void log(String victim) {
      if (first != null) {
        System.getLogger(LogWriter.class.getName()).log(System.Logger.Level.WARNING,
            "evicting " + victim + ": " + count + " calls of user code threw (the first, of " + firstSource
                + ", below); the incarnation is evicted all the same", first);
      }
    }
  }

  /**
   * Reads {@code incarnation} whole, for its entries to be decoded (by {@link BufferHash#forEach},
   * and by an eviction that hands them to the listener or the policy).
   *
   * @throws UncheckedIOException caused by {@link HeapTooSmallException}, before allocating, when
   *     the heap cannot hold twice its bytes: the callers copy its keys and values out of it, and
   *     one entry of more than half the heap (a table written by a JVM with a larger heap) gave an
   *     {@link OutOfMemoryError} there
   */
  byte[] readIncarnation(Incarnation incarnation) {
    long needed = 2L * incarnation.pages * LogFormat.PAGE_BYTES;
    if (!WholeFile.heapHolds(needed)) { // the message is built only then: evictions call this
      HeapTooSmallException e = WholeFile.heapTooSmall(log.file(), "the incarnation at page " + incarnation.startPage + " ("
          + incarnation.pages + " pages, sequence " + incarnation.sequence + " of super table " + incarnation.superTable
          + "), read whole and its entries copied,", needed);
      throw new UncheckedIOException(e.getMessage(), e);
    }
    byte[] bytes = new byte[incarnation.pages * LogFormat.PAGE_BYTES];
    try {
      log.read(ByteBuffer.wrap(bytes), (long) incarnation.startPage * LogFormat.PAGE_BYTES);
    } catch (IOException e) {
      throw new UncheckedIOException("reading " + where(incarnation), e);
    }
    IncarnationCodec.Header header = IncarnationCodec.readHeader(bytes, log.tableId(), where(incarnation));
    CorruptStoreException.check(
        header.sequence == incarnation.sequence && header.superTable == incarnation.superTable && header.pages == incarnation.pages,
        where(incarnation) + ": the header reads sequence " + header.sequence + " of super table " + header.superTable);
    return bytes;
  }

  /** The table's id, which salts the checks of its incarnations. */
  long tableId() {
    return log.tableId();
  }

  String where(Incarnation incarnation) {
    return log.file() + ", " + incarnation;
  }

}
