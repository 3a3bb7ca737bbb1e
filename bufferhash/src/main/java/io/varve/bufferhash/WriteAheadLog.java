package io.varve.bufferhash;

import io.varve.core.files.InterruptSafeFile;
import io.varve.core.files.WriteFailure;
import io.varve.core.format.CorruptStoreException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The write-ahead log of the buffers: every put and delete is appended here (in memory) before it
 * enters a buffer, and {@link #sync} writes what is pending and forces it to the device, one
 * {@code fsync} for every thread waiting (group commit). A buffer's records are needed until its
 * incarnation is durable; a <em>flushed</em> record then says so for its super table, and replay
 * skips that table's earlier records. Segments are files {@code wal-NNNNNNNNNNNNNNNN}:
 *
 * <pre>
 * Segment := magic:int32 = 0x5642484C ("VBHL") version:uint8 = 2 (1: unsalted) reserved:uint8[3]
 *            segment:int64 firstSequence:int64 crc:int32          (Check of the 24 bytes before)
 *            Record*
 * Record  := length:int32 crc:int32 Body                          (crc: Check of Body; length: its bytes)
 * Check   := CRC32C salted with the table id, as in {@link LogFormat} (version 2); CRC32C (version 1, id 0)
 * Body    := sequence:int64 kind:uint8 superTable:int32 Payload
 * Payload := Entry (kind 1: a put or a delete, as in {@link LogFormat}) | through:int64 (kind 2: flushed)
 * </pre>
 *
 * A record cut short at the end of the newest segment (or followed there only by zero bytes) is a
 * write the process did not finish; it was never acknowledged, and replay drops it. Damage
 * anywhere else is a {@link CorruptStoreException}, unless the table asks that damage in the newest
 * segment be dropped with what follows it ({@link BufferHashBuilder#dropDamagedWriteAheadTail}).
 * A table of state version 4 or 5 keeps a {@link WalSyncMark}, so that a segment cut at a record
 * boundary, which reads as a whole shorter log, is told from it ({@link WriteAheadShorterThanSyncException});
 * under version 5 the mark also names the oldest segment an open may need, so that a missing older
 * segment is refused too, and older ones (a retirement or close a crash cut short) are deleted
 * unread.
 *
 * <p>Thread-safe: appends take a short lock; syncs are serialized and share their work.
 */
final class WriteAheadLog implements AutoCloseable {
  static final int MAGIC = 0x5642484C;
  /** A segment header's magic, version and checksum. */
  static final io.varve.core.format.Envelope SEGMENT =
      LogFormat.envelope("BufferHash write-ahead log segment", MAGIC, LogFormat.VERSION, LogFormat.SALTED_VERSION);
  static final int SEGMENT_HEADER_BYTES = 28;
  static final int RECORD_HEADER_BYTES = 8;
  static final int BODY_HEADER_BYTES = 13;
  static final byte KIND_ENTRY = 1;
  static final byte KIND_FLUSHED = 2;

  private final Path directory;
  private final long segmentBytes;
  /** The table's id: salts the segment headers' and records' checks (0: unsalted, version 1). */
  private final long tableId;
  private final ReentrantLock appendLock = new ReentrantLock();
  private final ReentrantLock syncLock = new ReentrantLock();
  private final java.util.concurrent.locks.Condition synced = syncLock.newCondition();
  /** Whether a thread is writing and forcing records now (sync lock). */
  private boolean leading;
  /** Whether the table's buffers file took over every record, on close (sync lock). */
  private boolean handedOver;
  private byte[] pending = new byte[1 << 16];
  private int pendingBytes;
  private long nextSequence;
  private volatile long durableSequence;
  /** Segments on disk, oldest first: number, first sequence. */
  private final ArrayDeque<long[]> segments = new ArrayDeque<>();
  private volatile int segmentCount;
  /** The newest segment, written at {@code currentBytes}; no writer's interrupt closes it for the others. */
  private InterruptSafeFile current;
  private long currentBytes;
  private long segmentNumber;
  /** How far the segments were synced (state versions 4 and 5), or null (a table created before). */
  private WalSyncMark mark;
  /** The first write or sync of a segment that failed: from then on the log takes no record. */
  private final WriteFailure failure;

  private WriteAheadLog(Path directory, long segmentBytes, long tableId) {
    this.directory = directory;
    this.segmentBytes = segmentBytes;
    this.tableId = tableId;
    this.failure = new WriteFailure("the write-ahead log in " + directory);
  }

  /** Receives the records of existing segments: first every flushed record, then every entry, oldest first. */
  interface Replayer {
    void flushed(int superTable, long through);

    void entry(long sequence, int superTable, byte[] key, byte[] value);

    /**
     * Whether {@link #entry} would take the entry of {@code sequence} in: a record too long to
     * read on the way is read only then.
     */
    default boolean wants(long sequence, int superTable) {
      return true;
    }
  }

  /**
   * Opens the log in {@code directory}: checks its segments (dropping a record cut short at the
   * end of the newest; with {@code dropDamagedTail}, any damaged record of the newest and every
   * record after it), hands every flushed record to {@code replayer}, and starts a new segment.
   * {@link #replayEntries} then hands over the entries. {@code markVersion} is the version of the
   * table's {@link WalSyncMark} (0: it keeps none).
   */
  static WriteAheadLog open(Path directory, long segmentBytes, int superTables, long tableId, int markVersion, boolean dropDamagedTail, Replayer replayer)
      throws IOException {
    WriteAheadLog wal = new WriteAheadLog(directory, segmentBytes, tableId);
    try {
      wal.mark = markVersion > 0 ? WalSyncMark.open(directory, tableId, markVersion) : null;
      wal.openSegments(superTables, dropDamagedTail, replayer);
      return wal;
    } catch (IOException | RuntimeException e) {
      try {
        wal.closeFiles();
      } catch (IOException | RuntimeException closing) {
        e.addSuppressed(closing);
      }
      throw e;
    }
  }

  private void openSegments(int superTables, boolean dropDamagedTail, Replayer replayer) throws IOException {
    WriteAheadLog wal = this;
    List<Path> files;
    try (Stream<Path> list = Files.list(directory)) {
      files = list.filter(p -> p.getFileName().toString().matches("wal-\\d{16}")).sorted().collect(Collectors.toList());
    }
    List<Path> retired = new ArrayList<>();
    if (mark != null) {
      WriteAheadMarkCheck.checkNewest(mark, directory, files, dropDamagedTail);
      if (mark.recordsFirstSegment()) {
        retired = WriteAheadMarkCheck.checkFirst(mark, directory, files);
        files.removeAll(retired);
      }
    }
    long sequence = 1;
    for (int i = 0; i < files.size(); i++) {
      boolean newest = i == files.size() - 1;
      long[] segment =
          SegmentReplay.replay(files.get(i), newest, newest && dropDamagedTail, superTables, tableId, wal.replayFiles.isEmpty() ? -1 : sequence, replayer, false);
      if (segment == null) {
        continue; // the newest segment's header was cut short: created, never written
      }
      wal.replayFiles.add(files.get(i));
      wal.segments.addLast(new long[] {segment[0], segment[1]});
      sequence = segment[2];
      wal.segmentNumber = segment[0];
    }
    if (!wal.replayFiles.isEmpty()) {
      // Its end may be writes of a process killed before its fsync: they are served from now on,
      // so they must be on the device before a sync of this log vouches for what reads return.
      forceFile(wal.replayFiles.get(wal.replayFiles.size() - 1));
    }
    wal.superTables = superTables;
    wal.nextSequence = sequence;
    wal.durableSequence = sequence - 1;
    if (mark != null) {
      // Numbers never go back below the mark's, or a new segment could take the name of one it names.
      wal.segmentNumber = Math.max(wal.segmentNumber, mark.last().segment());
    }
    wal.startSegment(sequence);
    if (mark != null) {
      mark.force(); // what a drop left behind is no longer asked for by the next open
    }
    for (Path file : retired) {
      Files.deleteIfExists(file);
    }
  }


  private final List<Path> replayFiles = new ArrayList<>();
  private int superTables;

  /** Hands every entry of the segments found by {@link #open} to {@code replayer}, oldest first. */
  void replayEntries(Replayer replayer) throws IOException {
    for (Path file : replayFiles) {
      SegmentReplay.replay(file, false, false, superTables, tableId, -1, replayer, true);
    }
    replayFiles.clear();
  }

  private static void forceFile(Path file) throws IOException {
    try (FileChannel channel = Channels.open(file, StandardOpenOption.WRITE)) {
      channel.force(true);
    }
  }

  static String segmentName(long number) {
    return String.format("wal-%016d", number);
  }

  private void startSegment(long firstSequence) throws IOException {
    if (current != null) {
      current.force(false);
      current.close();
    }
    segmentNumber++;
    Path file = directory.resolve(segmentName(segmentNumber));
    current = InterruptSafeFile.open(Channels::open, file, new OpenOption[] {StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE}, StandardOpenOption.WRITE);
    byte[] header = new byte[SEGMENT_HEADER_BYTES];
    SEGMENT.putHeader(header, 0, LogFormat.structureVersion(tableId));
    LogFormat.putLong(header, 8, segmentNumber);
    LogFormat.putLong(header, 16, firstSequence);
    LogFormat.seal(tableId, header, 0, 24);
    current.writeFully(ByteBuffer.wrap(header), 0);
    current.force(true);
    Channels.forceDirectory(directory); // before a sync can vouch for a record in the segment
    currentBytes = SEGMENT_HEADER_BYTES;
    segments.addLast(new long[] {segmentNumber, firstSequence});
    segmentCount = segments.size();
    if (mark != null) {
      mark.record(segments.peekFirst()[0], segmentNumber, currentBytes); // so that losing the whole newest segment is refused too
    }
  }

  /** Appends a put (or, with a null value, a delete) of {@code superTable}; returns its sequence. */
  long appendEntry(int superTable, byte[] key, byte[] value) {
    int size = LogFormat.entryBytes(key.length, value == null ? 0 : value.length, value == null);
    failure.checkUnchecked();
    appendLock.lock();
    try {
      int body = reserve(BODY_HEADER_BYTES + size);
      long sequence = nextSequence++;
      LogFormat.putLong(pending, body, sequence);
      pending[body + 8] = KIND_ENTRY;
      LogFormat.putInt(pending, body + 9, superTable);
      LogFormat.putEntry(pending, body + BODY_HEADER_BYTES, key, value, value == null);
      seal(body, BODY_HEADER_BYTES + size);
      return sequence;
    } finally {
      appendLock.unlock();
    }
  }

  /** Appends that {@code superTable}'s records up to {@code through} are in durable incarnations. */
  void appendFlushed(int superTable, long through) {
    failure.checkUnchecked();
    appendLock.lock();
    try {
      int body = reserve(BODY_HEADER_BYTES + 8);
      LogFormat.putLong(pending, body, nextSequence++);
      pending[body + 8] = KIND_FLUSHED;
      LogFormat.putInt(pending, body + 9, superTable);
      LogFormat.putLong(pending, body + BODY_HEADER_BYTES, through);
      seal(body, BODY_HEADER_BYTES + 8);
    } finally {
      appendLock.unlock();
    }
  }

  private int reserve(int bodyBytes) {
    int needed = pendingBytes + RECORD_HEADER_BYTES + bodyBytes;
    if (needed > pending.length) {
      pending = java.util.Arrays.copyOf(pending, Math.max(needed, pending.length * 2));
    }
    LogFormat.putInt(pending, pendingBytes, bodyBytes);
    return pendingBytes + RECORD_HEADER_BYTES;
  }

  private void seal(int body, int bodyBytes) {
    LogFormat.putInt(pending, body - 4, LogFormat.check(tableId, pending, body, body + bodyBytes));
    pendingBytes = body + bodyBytes;
  }

  /** The sequence the next record will get. */
  long nextSequence() {
    appendLock.lock();
    try {
      return nextSequence;
    } finally {
      appendLock.unlock();
    }
  }

  /**
   * Writes every record appended so far and forces it to the device. Threads that call this
   * together share one write and one {@code fsync}.
   */
  void sync() {
    syncThrough(nextSequence() - 1);
  }

  /**
   * Makes the records up to {@code target} durable (group commit). One thread at a time leads: it
   * takes every record pending, writes and forces it without holding the lock, then wakes the
   * others at once; a thread whose record a leader's {@code fsync} covered returns without one of
   * its own, and records appended meanwhile wait for the next leader.
   */
  void syncThrough(long target) {
    if (durableSequence >= target) {
      return;
    }
    syncLock.lock();
    try {
      while (durableSequence < target) {
        failure.checkUnchecked();
        if (current == null) {
          if (handedOver) {
            return; // the table closed: its buffers file, forced before the segments went, holds what they held
          }
          // Closed without writing the buffers file: the records pending in memory went with the log.
          throw new UncheckedIOException(new IOException("the write-ahead log in " + directory + " was closed before its records up to "
              + target + " were written: the table's close failed to write its buffers out"));
        }
        if (leading) {
          synced.awaitUninterruptibly();
          continue;
        }
        leading = true;
        try {
          writeAndForcePending();
        } finally {
          leading = false;
          synced.signalAll();
        }
      }
    } finally {
      syncLock.unlock();
    }
  }

  /**
   * Closes the segment being written once no leader is writing it (sync lock held); later syncs
   * find no segment and return.
   */
  private void closeCurrent() throws IOException {
    while (leading) {
      synced.awaitUninterruptibly();
    }
    if (current != null) {
      current.close();
      current = null;
    }
  }

  /** The leader's work: called holding the sync lock, which it releases around the I/O. */
  private void writeAndForcePending() {
    byte[] bytes;
    int length;
    long through;
    appendLock.lock();
    try {
      bytes = pending;
      length = pendingBytes;
      through = nextSequence - 1;
      pending = new byte[Math.max(1 << 16, Math.min(bytes.length, 1 << 22))];
      pendingBytes = 0;
    } finally {
      appendLock.unlock();
    }
    InterruptSafeFile channel = current;
    long position = currentBytes;
    syncLock.unlock();
    try {
      channel.writeFully(ByteBuffer.wrap(bytes, 0, length), position);
      channel.force(false);
    } catch (IOException e) {
      throw new UncheckedIOException("writing the write-ahead log in " + directory, failure.record(e));
    } finally {
      syncLock.lock();
    }
    currentBytes += length;
    if (mark != null && length > 0) {
      try {
        mark.record(segments.peekFirst()[0], segmentNumber, currentBytes); // only now: the mark may lag the segment, never lead it
      } catch (IOException e) {
        throw new UncheckedIOException("writing the write-ahead sync mark in " + directory, failure.record(e));
      }
    }
    durableSequence = through;
    if (currentBytes >= segmentBytes) {
      try {
        startSegment(through + 1);
      } catch (IOException e) {
        throw new UncheckedIOException("starting a write-ahead log segment in " + directory, failure.record(e));
      }
    }
  }

  /** Bytes appended and not yet written. */
  int pendingBytes() {
    appendLock.lock();
    try {
      return pendingBytes;
    } finally {
      appendLock.unlock();
    }
  }

  /** Segments on disk (read without the sync lock: a writer must not wait for another's fsync to ask). */
  int segmentCount() {
    return segmentCount;
  }

  /** The first sequence of the segment {@code keep} places before the newest: records from there on stay. */
  long sequenceToKeep(int keep) {
    syncLock.lock();
    try {
      List<long[]> all = new ArrayList<>(segments);
      return all.get(Math.max(0, all.size() - 1 - keep))[1];
    } finally {
      syncLock.unlock();
    }
  }

  /**
   * Deletes the segments whose every record is below {@code sequence} (their buffers are in
   * durable incarnations). The newest segment stays.
   */
  void deleteBelow(long sequence) throws IOException {
    syncLock.lock();
    try {
      List<long[]> all = new ArrayList<>(segments);
      int retired = 0;
      while (retired + 1 < all.size() && all.get(retired + 1)[1] <= sequence) {
        retired++;
      }
      if (retired > 0 && mark != null && mark.recordsFirstSegment()) {
        // Forced before the first delete: a mark that still named a deleted segment would refuse the next open.
        WalSyncMark.Mark last = mark.last();
        mark.record(all.get(retired)[0], last.segment(), last.syncedBytes());
        mark.force();
      }
      for (int i = 0; i < retired; i++) {
        Files.deleteIfExists(directory.resolve(segmentName(all.get(i)[0])));
        segments.removeFirst();
        segmentCount = segments.size();
      }
    } finally {
      syncLock.unlock();
    }
  }

  /**
   * Deletes every segment: the buffers file now holds what they held. Call with no appends
   * running (on close).
   */
  void deleteAll() throws IOException {
    syncLock.lock();
    try {
      closeCurrent();
      handedOver = true;
      if (mark != null) {
        mark.record(segmentNumber + 1, segmentNumber, 0); // the buffers file (or the incarnations) hold what the segments held
        mark.force();
      }
      for (long[] segment : segments) {
        Files.deleteIfExists(directory.resolve(segmentName(segment[0])));
      }
      segments.clear();
      segmentCount = 0;
    } finally {
      syncLock.unlock();
    }
  }

  @Override
  public void close() {
    syncLock.lock();
    try {
      closeCurrent();
      closeFiles();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      syncLock.unlock();
    }
  }

  /** Forces the mark (it records only what is durable) and closes it. */
  private void closeFiles() throws IOException {
    if (current != null) {
      current.close();
      current = null;
    }
    if (mark != null) {
      try (WalSyncMark m = mark) {
        mark = null;
        m.force();
      }
    }
  }
}
