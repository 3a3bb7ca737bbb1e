package io.varve.bufferhash;

import io.varve.core.format.CorruptStoreException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * One partition of the key space (BufferHash §5.1): its buffer, the sealed buffers waiting to be
 * written, its live incarnations (numbered by ordinal, oldest {@code first}, next {@code next}) and
 * their bit-sliced Bloom filters. A lookup goes newest first: buffer, sealed buffers, then the
 * incarnations the filters point to, reading one unit of each.
 *
 * <p>Thread-safe through {@link #lock}: lookups hold the read lock, writes, installs and
 * evictions the write lock; the methods here assume the caller holds the right one.
 */
final class SuperTable {
  final int id;
  final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
  private final int bufferBytes;
  private final int bufferEntries;
  private WriteBuffer active;
  /** Full buffers not yet installed as incarnations, oldest first. */
  private final List<WriteBuffer> sealed = new ArrayList<>(2);
  private final BloomSlices filters;
  /** The incarnations the filters were sized for: a flush beyond them evicts first ({@link LogWriter}). */
  private final int plannedIncarnations;
  private Incarnation[] ring;
  private long first;
  private long next;
  /** Changes with every write, flush and eviction: a reader can tell that nothing moved since it looked. */
  private long version;

  SuperTable(int id, int bufferBytes, int bufferEntries, int bitsPerFilter, int hashes, int initialColumns) {
    this.id = id;
    this.bufferBytes = bufferBytes;
    this.bufferEntries = bufferEntries;
    this.filters = new BloomSlices(bitsPerFilter, hashes, initialColumns);
    this.plannedIncarnations = filters.columns();
    this.ring = new Incarnation[filters.columns()];
  }

  /**
   * Whether one more incarnation would take a column beyond those the filters were sized for.
   * Small incarnations (a {@code sync()} without a write-ahead log writes out every non-empty
   * buffer) fit many more to the log than the tuning planned, and each takes a whole column.
   */
  boolean holdsPlannedIncarnations() {
    return next - first >= plannedIncarnations;
  }

  long version() {
    return version;
  }

  /** Entries in buffers and live incarnations, counting stale versions and tombstones. */
  long storedEntries() {
    long n = active == null ? 0 : active.entryCount();
    for (WriteBuffer buffer : sealed) {
      n += buffer.entryCount();
    }
    for (long o = first; o < next; o++) {
      n += ring[(int) (o % ring.length)].entries;
    }
    return n;
  }

  long ramBytesUsed() {
    long bytes = 128 + filters.ramBytesUsed() + ring.length * 8L + (active == null ? 0 : active.ramBytesUsed());
    for (WriteBuffer buffer : sealed) {
      bytes += buffer.ramBytesUsed();
    }
    for (long o = first; o < next; o++) {
      bytes += ring[(int) (o % ring.length)].ramBytesUsed();
    }
    return bytes;
  }

  // ---------------------------------------------------------------- lookups

  /**
   * Finds the newest version of {@code key}, looking at incarnations newer than ordinal {@code
   * newerThan} only (-1: all). On success the entry is in {@code context.foundBytes} at {@code
   * context.foundOffset}; {@code context.fromFlash} tells where it came from.
   */
  boolean find(byte[] key, long hi, long lo, long newerThan, ReadContext context, IncarnationLog log) {
    context.fromFlash = false;
    if (active != null) {
      int at = active.find(key, hi, lo);
      if (at >= 0) {
        return context.found(active.arena(), at);
      }
    }
    for (int i = sealed.size() - 1; i >= 0; i--) {
      WriteBuffer buffer = sealed.get(i);
      int at = buffer.find(key, hi, lo);
      if (at >= 0) {
        return context.found(buffer.arena(), at);
      }
    }
    long lowest = Math.max(first, newerThan + 1);
    if (next <= lowest) {
      return false;
    }
    long[] candidates = context.candidates(filters.columns() / 64);
    filters.candidates(hi, lo, candidates);
    for (long o = filters.previousCandidate(candidates, next - 1, lowest); o >= lowest; o = filters.previousCandidate(candidates, o - 1, lowest)) {
      if (findIn(ring[(int) (o % ring.length)], key, lo, context, log)) {
        context.fromFlash = true;
        return true;
      }
    }
    return false;
  }

  /** Whether any buffer or live incarnation may hold a version of {@code key} (no SSD read). */
  private boolean mayHoldOlder(byte[] key, long hi, long lo, ReadContext context) {
    for (WriteBuffer buffer : sealed) {
      if (buffer.find(key, hi, lo) >= 0) {
        return true;
      }
    }
    if (next == first) {
      return false;
    }
    long[] candidates = context.candidates(filters.columns() / 64);
    filters.candidates(hi, lo, candidates);
    return filters.previousCandidate(candidates, next - 1, first) >= first;
  }

  private static boolean findIn(Incarnation incarnation, byte[] key, long lo, ReadContext context, IncarnationLog log) {
    int prefix = (int) (lo >>> 32);
    int unit = incarnation.lastUnitAtMost(prefix);
    while (unit >= 0) {
      int length = incarnation.unitEnd(unit) - incarnation.unitStart(unit);
      try {
        log.read(context.pageView(length), incarnation.unitPosition(unit));
      } catch (IOException e) {
        throw new UncheckedIOException("reading " + incarnation + " from " + log.file(), e);
      }
      context.reads++;
      byte[] bytes = context.page(length);
      int at;
      try {
        at = IncarnationCodec.findInUnit(bytes, length, log.tableId(), incarnation.sequence, incarnation.unitFirstPage(unit), key, "unit");
      } catch (CorruptStoreException e) {
        // The place is named only on failure: a lookup builds no message.
        throw new CorruptStoreException(log.file() + ", " + incarnation + ", unit " + unit + e.getMessage().substring("unit".length()), e);
      }
      if (at >= 0) {
        return context.found(bytes, at);
      }
      if (unit == 0 || incarnation.fence(unit) != prefix) {
        return false;
      }
      unit--;
    }
    return false;
  }

  // ---------------------------------------------------------------- writes

  /**
   * Writes {@code key}'s new version (a value, or a tombstone), logged as write-ahead record
   * {@code sequence} (0: not logged). Returns true when a buffer was sealed: the caller must then
   * flush this table's sealed buffers.
   */
  boolean put(byte[] key, byte[] value, boolean tombstone, long hi, long lo, long sequence) {
    version++;
    if (active == null) {
      active = newBuffer();
    }
    if (active.put(key, value, tombstone, hi, lo)) {
      active.noteSequence(sequence);
      return false;
    }
    int size = LogFormat.entryBytes(key.length, tombstone ? 0 : value.length, tombstone);
    if (!active.isEmpty()) {
      sealed.add(active);
      active = newBuffer();
      if (active.put(key, value, tombstone, hi, lo)) {
        active.noteSequence(sequence);
        return true;
      }
    }
    // An entry larger than a buffer gets a buffer of its own, sealed at once.
    WriteBuffer single = new WriteBuffer(size, 1);
    if (!single.put(key, value, tombstone, hi, lo)) {
      throw new IllegalStateException("a buffer sized for one entry refused it");
    }
    single.noteSequence(sequence);
    sealed.add(single);
    return true;
  }

  /** Deletes {@code key}: outright if no older version can exist, else by a tombstone. */
  boolean delete(byte[] key, long hi, long lo, long sequence, ReadContext context) {
    if (!mayHoldOlder(key, hi, lo, context)) {
      version++;
      if (active != null) {
        active.remove(key, hi, lo);
        active.noteSequence(sequence);
      }
      return false;
    }
    return put(key, null, true, hi, lo, sequence);
  }

  /** The oldest write-ahead log record still only in this table's buffers, or {@code Long.MAX_VALUE}. */
  long oldestBufferedSequence() {
    long oldest = Long.MAX_VALUE;
    for (WriteBuffer buffer : sealed) {
      if (buffer.firstSequence() > 0) {
        oldest = Math.min(oldest, buffer.firstSequence());
      }
    }
    if (active != null && active.firstSequence() > 0) {
      oldest = Math.min(oldest, active.firstSequence());
    }
    return oldest;
  }

  private WriteBuffer newBuffer() {
    return new WriteBuffer(bufferBytes, bufferEntries);
  }

  /** Seals the active buffer (on close, or to make a snapshot); true if there was anything to seal. */
  boolean sealActive() {
    if (active == null || active.isEmpty()) {
      return false;
    }
    version++;
    sealed.add(active);
    active = null;
    return true;
  }

  int sealedCount() {
    return sealed.size();
  }

  /** The oldest sealed buffer, or null. */
  WriteBuffer oldestSealed() {
    return sealed.isEmpty() ? null : sealed.get(0);
  }

  /** Every buffer, oldest first: what a snapshot of the buffers holds. */
  List<WriteBuffer> buffersOldestFirst() {
    List<WriteBuffer> all = new ArrayList<>(sealed);
    if (active != null && !active.isEmpty()) {
      all.add(active);
    }
    return all;
  }

  /**
   * Installs the incarnation written from the oldest sealed buffer: it becomes the newest
   * incarnation, and the buffer goes.
   */
  void install(Incarnation incarnation, IncarnationCodec.Encoded encoded) {
    if (sealed.isEmpty()) {
      throw new IllegalStateException("super table " + id + " has no sealed buffer to install");
    }
    addNewest(incarnation, encoded.his, encoded.los);
    sealed.remove(0);
  }

  /** Makes {@code incarnation} the newest, its Bloom filter built from its keys' hashes. */
  void addNewest(Incarnation incarnation, long[] his, long[] los) {
    version++;
    long ordinal = next;
    if (filters.prepare(ordinal, first)) {
      Incarnation[] grown = new Incarnation[filters.columns()];
      for (long o = first; o < next; o++) {
        grown[(int) (o % grown.length)] = ring[(int) (o % ring.length)];
      }
      ring = grown;
    }
    for (int i = 0; i < his.length; i++) {
      filters.add(ordinal, his[i], los[i]);
    }
    incarnation.ordinal = ordinal;
    ring[(int) (ordinal % ring.length)] = incarnation;
    next++;
  }

  /** Drops the oldest incarnation, which must be {@code victim}. */
  void evictOldest(Incarnation victim) {
    if (next == first || ring[(int) (first % ring.length)] != victim) {
      throw new IllegalStateException(victim + " is not the oldest incarnation of super table " + id);
    }
    version++;
    ring[(int) (first % ring.length)] = null;
    first++;
  }

  /** The live incarnations, newest first. */
  List<Incarnation> incarnationsNewestFirst() {
    List<Incarnation> result = new ArrayList<>((int) (next - first));
    for (long o = next - 1; o >= first; o--) {
      result.add(ring[(int) (o % ring.length)]);
    }
    return result;
  }
}
