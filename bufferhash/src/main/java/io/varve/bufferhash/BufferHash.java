package io.varve.bufferhash;

import io.varve.core.files.ExclusiveUse;
import io.varve.core.files.WriteFailure;
import io.varve.core.format.CorruptStoreException;
import io.varve.core.hash.KeyHasher;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

/**
 * A mutable hash table on SSD with a few bytes of RAM per key: BufferHash, the data structure of
 * CLAMs (Anand et al., NSDI 2010). Writes go to small in-memory buffers, one per super table (a
 * partition of the key space); a full buffer is written to the SSD in one sequential write as an
 * <em>incarnation</em>, at the head of one circular log shared by all super tables. A lookup
 * checks the buffer, then asks the incarnations' Bloom filters (bit-sliced: one AND of a few
 * words) which incarnations may hold the key, and reads one page of each, newest first, until it
 * finds the key. Updates and deletes are lazy: the newest version wins, and stale versions and
 * tombstones go when their incarnation is evicted. When the log is full the oldest incarnation is
 * evicted under an {@link EvictionPolicy} (FIFO by default).
 *
 * <pre>{@code
 * try (BufferHash table = BufferHash.builder(Path.of("/ssd/dedup"))
 *     .logBytes(32L << 30)          // SSD budget
 *     .memoryBytes(1L << 30)        // RAM budget: buffers, Bloom filters, everything
 *     .entryBytes(28)               // typical key + value bytes (20-byte SHA-1, 8-byte address)
 *     .open()) {
 *   table.put(fingerprint, address);
 *   byte[] seen = table.get(fingerprint); // null when absent
 * }
 * }</pre>
 *
 * <p><b>Durability.</b> Buffers live in RAM, as in the paper: {@link #close} writes them to the
 * directory and the next {@link BufferHashBuilder#open} reads them back, and {@link #sync} makes every
 * earlier write durable by writing every buffer out; a process that dies without either loses the
 * writes still buffered, never an incarnation or the log's consistency (the state file only ever
 * lists whole incarnations). Damage to any file surfaces as {@link CorruptStoreException} naming
 * the file, never as a wrong value. A write or {@code fsync} of the table's files that fails (a
 * full disk, a failing device), or a flush whose eviction meets a damaged incarnation it must read
 * (for the listener or a partial discard), makes the table refuse writes and syncs from then on;
 * reads go on, and a reopen recovers what reached the device.
 *
 * <p><b>Threads.</b> Thread-safe. Lookups run concurrently with each other and with writes to
 * other super tables; writes to one super table are serialized by its lock, and flushes to the
 * log by one log lock (inserts that do not fill a buffer never wait for it). Use after {@link
 * #close} throws {@link IllegalStateException} ({@link #tuning} aside: it describes the table);
 * close waits for operations in flight. A call from the eviction listener or a priority policy's
 * predicate, which run inside an eviction, throws {@link IllegalStateException} too.
 */
public final class BufferHash implements Closeable {
  private static final String BUFFERS_FILE = "buffers";

  private final Path directory;
  /** Sole use of the directory, until close. */
  private final ExclusiveUse directoryUse;
  private final IncarnationLog log;
  private final SuperTable[] tables;
  private final KeyHasher hasher;
  private final EvictionPolicy policy;
  private final Durability durability;
  private final long walSegmentBytes;
  private final boolean dropDamagedWriteAheadTail;
  WriteAheadLog wal;
  private static final int PENDING_WAL_BYTES = 4 << 20;
  private final BufferHashTuning tuning;
  private final ReentrantLock logLock = new ReentrantLock();
  private final ThreadLocal<ReadContext> contexts = ThreadLocal.withInitial(ReadContext::new);
  private final LogWriter writer;
  private final WriteAheadSync walSync;
  private volatile boolean closed;
  /** The first write or sync of the table's files that failed; from then on writes are refused. */
  private final WriteFailure writeFailure;

  private final LongAdder lookups = new LongAdder();
  private final LongAdder reads = new LongAdder();
  private final LongAdder[] readsPerLookup = new LongAdder[8];
  private final LongAdder inserts = new LongAdder();

  BufferHash(BufferHashBuilder builder, ExclusiveUse directoryUse, IncarnationLog log, BufferHashTuning tuning) {
    this.directory = builder.directory;
    this.directoryUse = directoryUse;
    this.log = log;
    this.tuning = tuning;
    this.hasher = KeyHasher.withSeed(log.seed());
    this.policy = builder.policy;
    this.durability = builder.durability;
    this.walSegmentBytes = builder.walSegmentBytes;
    this.dropDamagedWriteAheadTail = builder.dropDamagedWriteAheadTail;
    this.writeFailure = new WriteFailure("the BufferHash at " + directory);
    this.tables = new SuperTable[log.superTables()];
    for (int i = 0; i < tables.length; i++) {
      tables[i] = new SuperTable(i, tuning.bufferBytes(), tuning.bufferEntries(), tuning.bitsPerFilter(), tuning.hashes(), tuning.filterColumns());
    }
    this.writer = new LogWriter(log, tables, hasher, policy, builder.listener, builder.syncEveryFlush);
    this.walSync = new WriteAheadSync(directory, logLock, log, writer, tables, policy, () -> closed);
    for (int i = 0; i < readsPerLookup.length; i++) {
      readsPerLookup[i] = new LongAdder();
    }
  }

  /** A builder for the BufferHash in {@code directory} (created on {@link BufferHashBuilder#open} if new). */
  public static BufferHashBuilder builder(Path directory) {
    return new BufferHashBuilder(directory);
  }

  // ---------------------------------------------------------------- operations

  /** The newest value of {@code key}, or null when it is absent, deleted or evicted. */
  public byte[] get(byte[] key) {
    Objects.requireNonNull(key, "key");
    writer.checkNotCallingBack();
    ReadContext context = contexts.get();
    long[] hash = context.hash;
    hasher.hash(key, hash);
    SuperTable table = tableOf(hash[0]);
    context.reads = 0;
    byte[] value;
    boolean fromFlash;
    long seenVersion;
    table.lock.readLock().lock();
    try {
      ensureOpen();
      boolean found = table.find(key, hash[0], hash[1], -1, context, log);
      value = found ? WriteBuffer.value(context.foundBytes, context.foundOffset) : null;
      fromFlash = found && context.fromFlash;
      seenVersion = table.version();
    } finally {
      table.lock.readLock().unlock();
      context.release();
      lookups.increment();
      reads.add(context.reads);
      readsPerLookup[Math.min(context.reads, readsPerLookup.length - 1)].increment();
    }
    if (fromFlash && value != null && policy.reinsertOnUse()) {
      reinsertUsed(table, key, value, hash[0], hash[1], seenVersion);
    }
    return value;
  }

  /** Whether {@code key} has a value (as {@code get(key) != null}). */
  public boolean containsKey(byte[] key) {
    return get(key) != null;
  }

  /** Sets {@code key}'s value; the old value, if any, stays on the SSD until its incarnation is evicted. */
  public void put(byte[] key, byte[] value) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(value, "value");
    write(key, value, false);
  }

  /** Deletes {@code key}: at once if it is only in the buffer, else by a tombstone that shadows older versions. */
  public void delete(byte[] key) {
    Objects.requireNonNull(key, "key");
    write(key, null, true);
  }

  private void write(byte[] key, byte[] value, boolean tombstone) {
    writer.checkNotCallingBack();
    writeFailure.checkUnchecked();
    try {
      long sequence = apply(key, value, tombstone, -1);
      if (wal != null && (durability == Durability.SYNC_EVERY_WRITE || wal.pendingBytes() > PENDING_WAL_BYTES)) {
        walSync.sync(wal, durability == Durability.SYNC_EVERY_WRITE ? sequence : Long.MAX_VALUE);
      }
    } catch (UncheckedIOException | CorruptStoreException e) {
      throw writeFailure.record(e);
    }
  }

  /**
   * Puts or deletes {@code key} in its super table; {@code replayed} is the write-ahead sequence
   * of a record being replayed, or -1 for a new write (logged first when there is a log).
   */
  private long apply(byte[] key, byte[] value, boolean tombstone, long replayed) {
    long[] hash = new long[2];
    hasher.hash(key, hash);
    return apply(key, value, tombstone, replayed, hash);
  }

  /**
   * Puts or deletes a recovered entry ({@code value} null: a delete) that {@code source} filed
   * under {@code superTable}, which must be the one its key hashes to.
   */
  private void applyRecovered(byte[] key, byte[] value, int superTable, long replayed, Supplier<String> source) {
    long[] hash = new long[2];
    hasher.hash(key, hash);
    if (tableOf(hash[0]).id != superTable) {
      throw new CorruptStoreException(source.get() + ": an entry filed under the wrong super table");
    }
    apply(key, value, value == null, replayed, hash);
  }

  private long apply(byte[] key, byte[] value, boolean tombstone, long replayed, long[] hash) {
    BufferHashTuning.checkEntryFits(key.length, tombstone ? 0 : value.length, tombstone, log.totalPages());
    SuperTable table = tableOf(hash[0]);
    boolean sealed;
    long sequence;
    table.lock.writeLock().lock();
    try {
      ensureOpen();
      sequence = replayed >= 0 ? replayed : wal == null ? 0 : wal.appendEntry(table.id, key, tombstone ? null : value);
      sealed =
          tombstone
              ? table.delete(key, hash[0], hash[1], sequence, contexts.get())
              : table.put(key, value, false, hash[0], hash[1], sequence);
    } finally {
      table.lock.writeLock().unlock();
    }
    inserts.increment();
    if (sealed) {
      flushSealed(table);
    }
    return sequence;
  }

  /** LRU: a value just read from the SSD goes back into the buffer, unless the table changed since. */
  private void reinsertUsed(SuperTable table, byte[] key, byte[] value, long hi, long lo, long seenVersion) {
    boolean sealed = false;
    table.lock.writeLock().lock();
    try {
      if (closed || table.version() != seenVersion || writeFailure.failed()) {
        return; // after a failure the copy would only pile up in sealed buffers that no flush takes
      }
      sealed = table.put(key, value, false, hi, lo, 0);
    } finally {
      table.lock.writeLock().unlock();
    }
    if (sealed) {
      flushSealed(table);
    }
  }

  /**
   * Makes every earlier write durable. With a write-ahead log ({@link Durability#SYNC_ON_CALL},
   * {@link Durability#SYNC_EVERY_WRITE}) it writes and forces the log's pending records, one
   * {@code fsync} shared by every thread syncing at once. Without one ({@link
   * Durability#BUFFERS_IN_RAM}) it writes every non-empty buffer to the log as an incarnation and
   * forces the log: frequent calls then make many small incarnations. A super table keeps at most
   * the incarnations its Bloom filters were sized for ({@link BufferHashTuning#filterColumns()}),
   * so that RAM stays within the budget: small ones make its oldest entries go early (to the
   * eviction policy and listener, as when the log is full; a warning is logged the first time).
   * Call it often with {@link Durability#SYNC_ON_CALL} instead.
   *
   * @throws UncheckedIOException if a write or {@code fsync} of the table's files fails; the table
   *     then refuses every later write and sync (reads go on; reopen it to recover what it holds)
   */
  public void sync() {
    writer.checkNotCallingBack();
    if (wal != null) {
      ensureOpen();
      writeFailure.checkUnchecked();
      try {
        walSync.sync(wal, Long.MAX_VALUE);
      } catch (UncheckedIOException | CorruptStoreException e) {
        throw writeFailure.record(e);
      }
      return;
    }
    logLock.lock();
    try {
      ensureOpen();
      writeFailure.checkUnchecked();
      List<SuperTable> sealedAny = new ArrayList<>();
      for (SuperTable table : tables) {
        table.lock.writeLock().lock();
        try {
          if (table.sealActive() || table.oldestSealed() != null) {
            sealedAny.add(table);
          }
        } finally {
          table.lock.writeLock().unlock();
        }
      }
      writer.drainSealed(new ArrayDeque<>(sealedAny), policy.partialDiscard());
      log.sync();
    } catch (IOException e) {
      throw writeFailure.record(new UncheckedIOException("syncing " + log.file(), e));
    } catch (UncheckedIOException | CorruptStoreException e) {
      throw writeFailure.record(e);
    } finally {
      logLock.unlock();
    }
  }

  /**
   * Calls {@code action} with every current entry (the newest version of each key that is neither
   * deleted nor evicted), one super table at a time, in no particular order. Each super table is
   * read under its read lock, then its entries are handed over outside it; writes made meanwhile
   * may or may not be seen.
   *
   * @throws UncheckedIOException if reading the log fails, or caused by {@link
   *     HeapTooSmallException} if an incarnation is too large for this JVM's heap to hold twice
   */
  public void forEach(BiConsumer<byte[], byte[]> action) {
    Objects.requireNonNull(action, "action");
    writer.checkNotCallingBack();
    for (SuperTable table : tables) {
      List<byte[][]> current = new ArrayList<>();
      table.lock.readLock().lock();
      try {
        ensureOpen();
        CurrentEntries.collect(table, writer, hasher, current);
      } finally {
        table.lock.readLock().unlock();
      }
      for (byte[][] entry : current) {
        action.accept(entry[0], entry[1]);
      }
    }
  }

  /**
   * Entries stored in buffers and on the SSD: an upper bound of the number of current keys, as it
   * counts versions not yet evicted and tombstones too.
   */
  public long sizeEstimate() {
    writer.checkNotCallingBack();
    ensureOpen();
    long n = 0;
    for (SuperTable table : tables) {
      table.lock.readLock().lock();
      try {
        n += table.storedEntries();
      } finally {
        table.lock.readLock().unlock();
      }
    }
    return n;
  }

  /** Bytes of RAM this table holds: buffers, Bloom filters, what it keeps of each incarnation. */
  public long ramBytesUsed() {
    writer.checkNotCallingBack();
    ensureOpen();
    long bytes = 1024 + tables.length * 16L;
    for (SuperTable table : tables) {
      table.lock.readLock().lock();
      try {
        bytes += table.ramBytesUsed();
      } finally {
        table.lock.readLock().unlock();
      }
    }
    return bytes;
  }

  /** The sizes chosen for this table's budgets. */
  public BufferHashTuning tuning() {
    return tuning;
  }

  /** The counters since this table was opened. */
  public BufferHashStats stats() {
    writer.checkNotCallingBack();
    ensureOpen();
    long[] histogram = new long[readsPerLookup.length];
    for (int i = 0; i < histogram.length; i++) {
      histogram[i] = readsPerLookup[i].sum();
    }
    logLock.lock();
    try {
      return new BufferHashStats(
          lookups.sum(),
          reads.sum(),
          histogram,
          inserts.sum(),
          writer.flushes,
          writer.evictedIncarnations,
          writer.keptEntries,
          writer.droppedCurrentEntries);
    } finally {
      logLock.unlock();
    }
  }

  /** Pages of the log that hold live incarnations, and the log's size in pages. */
  public long[] logPages() {
    writer.checkNotCallingBack();
    ensureOpen();
    logLock.lock();
    try {
      return new long[] {log.usedPages(), log.totalPages()};
    } finally {
      logLock.unlock();
    }
  }

  // ---------------------------------------------------------------- flushing and eviction

  private SuperTable tableOf(long hi) {
    return tables[(int) (((hi >>> 32) * tables.length) >>> 32)];
  }

  private void flushSealed(SuperTable table) {
    logLock.lock();
    try {
      if (closed || writeFailure.failed()) {
        return; // close() writes sealed buffers to the buffers file; after a failure, writes are refused
      }
      ArrayDeque<SuperTable> work = new ArrayDeque<>();
      work.add(table);
      writer.drainSealed(work, policy.partialDiscard());
    } catch (UncheckedIOException | CorruptStoreException e) {
      // A damaged incarnation that eviction must read (for the listener or a partial discard)
      // fails every flush: each write that sealed a buffer then added one more to RAM, unbounded.
      throw writeFailure.record(e);
    } finally {
      logLock.unlock();
    }
  }

  private void ensureOpen() {
    if (closed) {
      throw new IllegalStateException("the BufferHash at " + directory + " is closed");
    }
  }

  // ---------------------------------------------------------------- open and close

  /**
   * Writes the buffers to the directory (the next open reads them back), forces everything to the
   * device and releases the directory. Waits for operations in flight; idempotent.
   *
   * @throws UncheckedIOException if writing fails (the incarnations already written stay valid)
   */
  @Override
  public void close() {
    writer.checkNotCallingBack();
    logLock.lock();
    if (closed) {
      logLock.unlock();
      return;
    }
    try {
      closed = true;
      for (SuperTable table : tables) {
        table.lock.writeLock().lock(); // waits for operations in flight; later ones see closed
        table.lock.writeLock().unlock();
      }
      log.sync();
      int checksum = BufferSnapshot.write(directory.resolve(BUFFERS_FILE), tables, log.nextGeneration(), log.tableId());
      log.recordBuffers(checksum & 0xFFFFFFFFL);
      if (wal != null) {
        wal.deleteAll(); // the buffers file holds what the write-ahead log held
      }
    } catch (IOException e) {
      throw new UncheckedIOException("closing the BufferHash at " + directory, e);
    } finally {
      try {
        if (wal != null) {
          wal.close();
        }
        log.close();
      } finally {
        directoryUse.close();
        logLock.unlock();
      }
    }
  }

  void recover() throws IOException {
    long segmentBytes = walSegmentBytes > 0 ? walSegmentBytes : Math.max(16L << 20, (long) tables.length * tuning.bufferBytes() / 2);
    new Recovery(directory, BUFFERS_FILE, log, tables, hasher)
        .run(
            durability,
            segmentBytes,
            dropDamagedWriteAheadTail,
            new Recovery.Target() {
              @Override
              public int superTableOf(long hi) {
                return tableOf(hi).id;
              }

              @Override
              public void apply(byte[] key, byte[] value, int superTable, long replayed, Supplier<String> source) {
                applyRecovered(key, value, superTable, replayed, source);
              }

              @Override
              public void attach(WriteAheadLog opened) {
                wal = opened;
                writer.attach(opened); // entries that eviction keeps while replaying are logged anew
              }

              @Override
              public void writeOutBuffers() {
                sync();
              }
            });
  }
}
