package io.varve.bufferhash;

import static io.varve.bufferhash.LogFormat.HEADER_BYTES;
import static io.varve.bufferhash.LogFormat.PAGE_BYTES;

import io.varve.core.files.FileIdentity;
import io.varve.core.files.InterruptSafeFile;
import io.varve.core.format.CorruptStoreException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.Iterator;

/**
 * The device as one circular log of incarnations (BufferHash §5.2): every super table's flushes
 * are written one after another at the head, in one sequential write each; space is reclaimed at
 * the tail, oldest incarnation first. An incarnation never wraps: when it does not fit before the
 * end of the file, a wrap marker is left and it is written at page 0.
 *
 * <p>The state file records tail, head and sequence numbers, in an order that holds whatever a
 * crash keeps of the writes not yet forced (a killed process keeps them all, a power loss or a
 * failed {@code fsync} any of them): the state names an incarnation as the head only once the log
 * has been forced (incarnations written since are found on open by {@link LogScan}), and
 * names a new tail, forced, before pages of the incarnations evicted are overwritten. So the state
 * on the device lists only whole incarnations.
 *
 * <p>Not thread-safe for writes: {@link BufferHash} serializes them under its log lock. Reads
 * ({@link #read}) are positional and may run from any thread.
 */
final class IncarnationLog implements AutoCloseable {
  private final Path logFile;
  private final Path stateFile;
  /** Read by every lookup's thread: no thread's interrupt may close it for the others. */
  private final InterruptSafeFile log;
  private final InterruptSafeFile state;
  private final int totalPages;
  private final ArrayDeque<Incarnation> live = new ArrayDeque<>();
  private int head;
  private long nextSequence = 1;
  /**
   * The head and next sequence the state names: those of the last forced log, so that a state
   * write, forced or not, never names an incarnation whose pages a power loss could still take.
   */
  private int recordedHead;
  private long recordedNextSequence = 1;
  private long generation;
  /** The generation of the state read on open. */
  private long generationAtOpen;
  /** The version of the state read on open: before 2, sequence numbers never skip. */
  private int stateVersionAtOpen = LogFormat.STATE_VERSION;
  /** The state version this table writes: a new table's, or the one read, kept ({@link LogFormat#stateVersionKept}). */
  private int stateVersion;
  /** Whether the sequence numbers skipped on open ({@link #skipSequences}) are not yet in a state on the device. */
  private boolean skipUnrecorded;
  private final int superTables;
  private final long seed;
  /** The table's id, mixed into every check it writes ({@link LogFormat}); 0 for a table created before state version 3. */
  private final long tableId;
  /** The log file its path named on open: a sync checks that it still does (see {@link #checkInPlace}). */
  private final FileIdentity logIdentity;

  private IncarnationLog(Path logFile, Path stateFile, InterruptSafeFile log, InterruptSafeFile state, int totalPages, int superTables, long seed,
      long tableId) throws IOException {
    this.logFile = logFile;
    this.stateFile = stateFile;
    this.log = log;
    this.state = state;
    this.totalPages = totalPages;
    this.superTables = superTables;
    this.seed = seed;
    this.tableId = tableId;
    this.stateVersion = LogFormat.stateVersion(tableId);
    this.logIdentity = FileIdentity.of(logFile);
  }

  /** Creates a new, empty log of {@code totalPages} pages (the file is sparse until written). */
  static IncarnationLog create(Path directory, int totalPages, int superTables, long seed, long tableId) throws IOException {
    Path logFile = directory.resolve("log");
    Path stateFile = directory.resolve("state");
    InterruptSafeFile log = Channels.openShared(logFile, StandardOpenOption.CREATE_NEW);
    InterruptSafeFile state = null;
    try {
      state = Channels.openShared(stateFile, StandardOpenOption.CREATE_NEW);
      // Set the whole length now (a sparse file: no space is reserved); forced before the state
      // describes it, or a power loss could leave a state naming a shorter log.
      log.write(ByteBuffer.allocate(1), (long) totalPages * PAGE_BYTES - 1);
      log.force(true);
      IncarnationLog result = new IncarnationLog(logFile, stateFile, log, state, totalPages, superTables, seed, tableId);
      result.scanTailSequence = 1;
      if (result.keepsSyncMark()) {
        WalSyncMark.create(directory, tableId); // before the state that says it exists; its name is forced below
      }
      result.writeState();
      result.writeState();
      Channels.forceDirectory(directory); // the files' names, before anything is written that a sync vouches for
      return result;
    } catch (IOException | RuntimeException e) {
      // A log without a valid state reads as a table that lost its state, refused on every later
      // open: a creation that failed (a full disk) takes its files with it, so that a retry creates.
      discardNew(log, logFile, e);
      if (state != null) {
        discardNew(state, stateFile, e);
      }
      try {
        Files.deleteIfExists(directory.resolve(WalSyncMark.FILE));
      } catch (IOException deleting) {
        e.addSuppressed(deleting);
      }
      throw e;
    }
  }

  /** Closes and deletes a file that {@link #create} made, keeping what fails as suppressed by {@code failure}. */
  private static void discardNew(InterruptSafeFile file, Path path, Exception failure) {
    try (file) {
      Files.deleteIfExists(path);
    } catch (IOException e) {
      failure.addSuppressed(e);
    }
  }

  /** Opens an existing log: reads the state; {@link #scan} then rebuilds the incarnations. */
  static IncarnationLog open(Path directory) throws IOException {
    Path logFile = directory.resolve("log");
    Path stateFile = directory.resolve("state");
    InterruptSafeFile log = Channels.openShared(logFile);
    InterruptSafeFile state;
    try {
      state = Channels.openShared(stateFile);
    } catch (IOException | RuntimeException e) {
      // Else each failed open (no file handles left, a permission) keeps one more open.
      try {
        log.close();
      } catch (IOException closing) {
        e.addSuppressed(closing);
      }
      throw e;
    }
    try {
      byte[] bytes = new byte[2 * StateSlot.BYTES];
      readFully(state, ByteBuffer.wrap(bytes), 0, stateFile);
      StateSlot best = null;
      for (int slot = 0; slot < 2; slot++) {
        StateSlot read = StateSlot.decodeOrNull(bytes, slot * StateSlot.BYTES);
        if (read != null && (best == null || read.generation() > best.generation())) {
          best = read;
        }
      }
      CorruptStoreException.check(best != null, stateFile + ": neither state slot is valid");
      long logPages = best.logPages();
      CorruptStoreException.check(
          logPages >= 1 && logPages <= Integer.MAX_VALUE && log.size() >= logPages * PAGE_BYTES,
          logFile + ": " + log.size() + " bytes, the state says " + logPages + " pages");
      // Every table made holds two incarnations of at least a page per super table; a count past
      // that (a re-checksummed state) would fail later as a tuning error, not as the damage it is.
      CorruptStoreException.check(
          best.superTables() >= 1 && 2L * best.superTables() <= logPages,
          stateFile + ": " + best.superTables() + " super tables, more than a log of " + logPages + " pages holds (two incarnations each)");
      IncarnationLog result = new IncarnationLog(logFile, stateFile, log, state, (int) logPages, best.superTables(), best.seed(), best.tableId());
      result.buffersCheck = best.buffersCheck();
      result.generation = best.generation();
      result.generationAtOpen = best.generation();
      result.stateVersionAtOpen = best.version();
      result.stateVersion = LogFormat.stateVersionKept(best.tableId(), best.version());
      result.head = (int) best.headPage();
      result.nextSequence = best.nextSequence();
      result.recordHead();
      result.scanTail = (int) best.tailPage();
      result.scanTailSequence = best.tailSequence();
      CorruptStoreException.check(
          result.head >= 0 && result.head <= logPages && result.scanTail >= 0 && result.scanTail <= logPages
              && result.scanTailSequence >= 1 && result.scanTailSequence <= result.nextSequence && result.superTables >= 1,
          stateFile + ": inconsistent state");
      return result;
    } catch (RuntimeException | IOException e) {
      log.close();
      state.close();
      throw e;
    }
  }

  private int scanTail;
  private long scanTailSequence;
  /** 0 when no buffers file is expected, else 1 &lt;&lt; 32 | its checksum. */
  private long buffersCheck;

  /** The generation the next state write will carry. */
  long nextGeneration() {
    return generation + 1;
  }

  /** The generation of the state read on open (state writes since, during recovery, do not change it). */
  long generationAtOpen() {
    return generationAtOpen;
  }

  /** The checksum of the buffers file the state expects, or -1 when it expects none. */
  long expectedBuffersChecksum() {
    return buffersCheck == 0 ? -1 : buffersCheck & 0xFFFFFFFFL;
  }

  /** Records that no buffers file is current, if the state named one. */
  void recordBuffersIfNamed() throws IOException {
    if (buffersCheck != 0) {
      recordBuffers(-1);
    }
  }

  /** Records in the state (forced to the device) that a buffers file with this checksum exists, or none (-1). */
  void recordBuffers(long checksum) throws IOException {
    buffersCheck = checksum < 0 ? 0 : (1L << 32) | (checksum & 0xFFFFFFFFL);
    writeState();
  }

  /** Decodes each incarnation found by {@link #scan}, oldest first, into what RAM keeps of it. */
  interface Decoder {
    Incarnation decode(byte[] bytes, IncarnationCodec.Header header, int startPage);
  }

  /**
   * Reads every incarnation between tail and head and those written since ({@link LogScan}),
   * which become live, then skips the sequence numbers ahead ({@link #skipSequences}).
   */
  void scan(Decoder decoder) throws IOException {
    if (!live.isEmpty()) {
      throw new IllegalStateException("the log is scanned once, on open");
    }
    LogScan.Found found =
        new LogScan(log, logFile, totalPages, superTables, tableId, stateVersionAtOpen)
            .run(decoder, scanTail, scanTailSequence, head, nextSequence);
    live.addAll(found.live());
    boolean rolledForward = found.nextSequence() != nextSequence;
    head = found.head();
    nextSequence = found.nextSequence();
    if (rolledForward) {
      forceLog();
    }
    skipSequences();
    if (rolledForward) {
      writeState(); // names the incarnations rolled forward
    }
  }

  /**
   * Skips the sequence numbers ahead by {@code totalPages + 1}; the next state write records it,
   * and one is made, forced, before anything new is written to the log ({@link #append}). A power
   * loss may keep some unforced incarnations and lose others (N torn or lost, N + 1 kept past it);
   * the roll-forward ({@link LogScan}) stops at the first gap, and were its sequence numbers reused, an
   * incarnation written at the head could end exactly where a leftover of the lost writes begins,
   * which carries the next sequence and valid checksums: a later open would take it in as the
   * newest, its stale writes shadowing newer ones. After the skip every leftover carries a lower
   * sequence than the next expected: those numbered from the state's next sequence on were all
   * live at once (one is evicted only after a forced state names a later head), so at most {@code
   * totalPages} of them, numbered up from a sequence the roll-forward reaches; those of earlier
   * lives are below that life's skip. (Overwriting leftovers instead would mean finding them: a
   * lost incarnation's length is unknown, so every free page would have to be read.)
   */
  private void skipSequences() {
    nextSequence += totalPages + 1L;
    recordHead(); // the head's incarnations are on the device: named by the state, or forced by the roll-forward
    skipUnrecorded = true;
  }

  int totalPages() {
    return totalPages;
  }

  int superTables() {
    return superTables;
  }

  /** Whether the table keeps a write-ahead sync mark (state versions 4 and 5). */
  boolean keepsSyncMark() {
    return stateVersion >= LogFormat.UNNUMBERED_MARK_STATE_VERSION;
  }

  /** The version of the table's write-ahead sync mark: 2 under state version 5, 1 under 4; 0 when it keeps none. */
  int syncMarkVersion() {
    return !keepsSyncMark() ? 0 : stateVersion >= LogFormat.STATE_VERSION ? WalSyncMark.VERSION : WalSyncMark.UNNUMBERED_VERSION;
  }

  long seed() {
    return seed;
  }

  /** The table's id: salts the checks of its incarnations, buffers file and write-ahead segments (0: unsalted). */
  long tableId() {
    return tableId;
  }

  Path file() {
    return logFile;
  }

  boolean isEmpty() {
    return live.isEmpty();
  }

  Incarnation oldest() {
    return live.peekFirst();
  }

  Iterator<Incarnation> oldestFirst() {
    return live.iterator();
  }

  int liveIncarnations() {
    return live.size();
  }

  long nextSequence() {
    return nextSequence;
  }

  private int tail() {
    return live.isEmpty() ? head : live.peekFirst().startPage;
  }

  /** Pages holding live incarnations. */
  long usedPages() {
    long used = 0;
    for (Incarnation incarnation : live) {
      used += incarnation.pages;
    }
    return used;
  }

  /** Where an incarnation of {@code pages} pages can be written now, or -1 if the oldest must go first. */
  int placeFor(int pages) {
    if (pages > totalPages) {
      throw new IllegalArgumentException(
          "an incarnation of " + pages + " pages does not fit a log of " + totalPages + " pages: raise logBytes");
    }
    long end = (long) head + pages; // in long: near the end of a log of 2^31 - 1 pages, an int sum wraps negative
    if (live.isEmpty()) {
      return end <= totalPages ? head : 0;
    }
    int tail = tail();
    if (head > tail) {
      if (end <= totalPages) {
        return head;
      }
      return pages <= tail ? 0 : -1;
    }
    // head <= tail: the live region wraps, free space is [head, tail).
    return end <= tail ? head : -1;
  }

  /** Drops the oldest incarnation from the live list (its pages become free). */
  Incarnation removeOldest() {
    return live.removeFirst();
  }

  /**
   * Records the current tail, forced: the pages of the incarnations evicted since the last forced
   * state may be overwritten once this returns. (Were the state on the device still to name one of
   * them, the next open would meet its overwritten pages and refuse the log.)
   */
  void commitTail() throws IOException {
    writeState();
  }

  /** Writes {@code encoded} at {@code page} (from {@link #placeFor}) and makes it the newest live incarnation. */
  Incarnation append(IncarnationCodec.Encoded encoded, int page, boolean sync) throws IOException {
    if (encoded.sequence != nextSequence) {
      throw new IllegalStateException("incarnation " + encoded.sequence + " written when " + nextSequence + " is next");
    }
    if (skipUnrecorded) {
      writeState(); // the sequence numbers skipped on open, on the device before the log changes
    }
    if (page == 0 && head != 0 && head < totalPages) {
      byte[] marker = new byte[HEADER_BYTES];
      LogFormat.WRAP_MARKER.putHeader(marker, 0, 0);
      LogFormat.WRAP_MARKER.putFooter(marker, 0, 28);
      writeFully(ByteBuffer.wrap(marker), (long) head * PAGE_BYTES);
    }
    writeFully(ByteBuffer.wrap(encoded.bytes), (long) page * PAGE_BYTES);
    if (sync) {
      log.force(false);
    }
    Incarnation incarnation = encoded.at(page);
    live.addLast(incarnation);
    head = page + encoded.pages;
    nextSequence++;
    if (sync) {
      recordHead();
      writeState();
    }
    return incarnation;
  }

  /** Reads {@code into.remaining()} bytes at {@code position} of the log. */
  void read(ByteBuffer into, long position) throws IOException {
    readFully(log, into, position, logFile);
  }

  /**
   * Forces the log, then the state naming every incarnation written so far, and checks that the
   * directory still holds them ({@link #checkInPlace}).
   */
  void sync() throws IOException {
    forceLog();
    writeState();
    checkInPlace();
  }

  /**
   * Throws unless the table's log is still the file its path names: a log deleted while open (its
   * directory with it) or replaced takes every write and force, and a sync that vouched for them
   * would lose them all at the next open.
   */
  void checkInPlace() throws IOException {
    logIdentity.check();
  }

  /** Forces the log: from now on the state may name every incarnation written so far. */
  private void forceLog() throws IOException {
    log.force(false);
    recordHead();
  }

  private void recordHead() {
    recordedHead = head;
    recordedNextSequence = nextSequence;
  }

  private void writeFully(ByteBuffer bytes, long position) throws IOException {
    log.writeFully(bytes, position);
  }

  static void readFully(InterruptSafeFile channel, ByteBuffer into, long position, Path file) throws IOException {
    int start = into.position();
    channel.readFully(into, position);
    if (into.hasRemaining()) { // built only when thrown: lookups read through here
      throw new CorruptStoreException(file + ": ends at " + (position + into.position() - start) + ", before the bytes its state lists");
    }
  }

  /**
   * Writes the next state slot and forces it: every caller needs the state on the device before
   * its next step (overwriting evicted pages, naming a buffers file, deleting write-ahead segments).
   */
  private void writeState() throws IOException {
    long tailSequence = live.isEmpty() ? nextSequence : live.peekFirst().sequence;
    if (tailSequence > recordedNextSequence) {
      forceLog(); // the tail has passed the recorded head: the state must name the incarnations between
    }
    generation++;
    byte[] slot = new StateSlot(stateVersion, generation, totalPages, tail(), recordedHead, tailSequence, recordedNextSequence,
            buffersCheck, superTables, seed, tableId)
        .encode();
    ByteBuffer buffer = ByteBuffer.wrap(slot);
    long position = (generation & 1) * StateSlot.BYTES;
    state.writeFully(buffer, position);
    state.force(false);
    skipUnrecorded = false;
  }

  @Override
  public void close() {
    try (InterruptSafeFile l = log;
        InterruptSafeFile s = state) {
      // closes both
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
