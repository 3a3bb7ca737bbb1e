package io.varve.reader;

import io.varve.core.files.MappingFaults;
import io.varve.core.format.CorruptStoreException;
import io.varve.core.format.FileRegion;
import io.varve.core.store.StoreFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * What damage found while reading a store's records becomes: one damaged record, or, when the data
 * file changed under the open store, the refusal of every later lookup. Thread-safe (immutable; the
 * refusal goes through the store's {@link LookupGuard}).
 */
final class DataFaults {
  private final Path origin;
  private final String dataPath;
  private final Path dataFile;
  private final boolean mapped;
  private final long openedLength;
  private final LookupGuard guard;
  /** The first damage found in a loaded copy's records, or null: see {@link #damageOfCopy()}. */
  private volatile CorruptStoreException damageOfCopy;

  /**
   * Faults of the store at {@code origin} whose data lies in {@code data}: a data file, or an
   * artifact's entry (whose file must then still reach the entry's end).
   */
  DataFaults(Path origin, FileRegion data, DataAccess access, LookupGuard guard) {
    this.origin = origin;
    this.dataPath = data.name();
    this.dataFile = data.file();
    this.mapped = access == DataAccess.MAPPED;
    this.openedLength = data.end();
    this.guard = guard;
  }

  /** The store's directory or artifact, for messages. */
  Path directory() {
    return origin;
  }

  /**
   * A record at {@code position} that fails its checksum: one damaged record, unless the mapped
   * file is now shorter than when the store opened ({@link #damaged}). A file cut inside a page
   * reads as zeros to the end of that page, so the records there fail their checks with no fault
   * from the JVM: that is the truncation, and the whole store is refused as {@link #fault} refuses
   * it.
   */
  CorruptStoreException damagedRecord(long position) {
    return damaged("the record at byte " + position + " does not match its checksum (damaged)");
  }

  /**
   * Damage that the records' own checks found, described by {@code what}: a record's checksum, or
   * lengths that run past the data. In a mapped file now shorter than when the store opened it is
   * the truncation, whatever the check that saw it (a page past the cut may read as zeros or, until
   * the JVM delivers its error, as anything), and the whole store is refused.
   */
  CorruptStoreException damaged(String what) {
    if (fileShrank()) {
      return truncated(null);
    }
    CorruptStoreException damage = new CorruptStoreException(dataPath + ": " + what);
    if (!mapped && damageOfCopy == null) {
      damageOfCopy = damage;
    }
    return damage;
  }

  /**
   * The first damage that lookups found in a loaded copy of the records, or null. The copy keeps
   * it after the file is repaired in place (a mapping would read the repaired bytes), so a
   * follower loads the version anew ({@link #checkCopy}).
   */
  CorruptStoreException damageOfCopy() {
    return damageOfCopy;
  }

  /**
   * Checks a loaded copy of the data file, {@code data}, against the file's footer {@code
   * checksum}, reading the whole copy; nothing to do for a mapping.
   *
   * @throws CorruptStoreException when the copy is damaged
   */
  void checkCopy(RecordMemory data, int checksum) {
    if (!mapped) {
      int computed = data.crc32c(data.length() - StoreFile.FOOTER_LENGTH);
      StoreFile.DATA.envelope().checkChecksum(checksum, computed, dataPath + " (the copy loaded in memory)");
    }
  }

  /**
   * What a fault reading the records becomes: the JVM reports a read of a mapped page that the
   * file no longer holds (it was truncated or replaced in place, which a published store never
   * is) as an {@link InternalError}, which is the store's damage, not the JVM's. The store then
   * refuses later lookups, so that they stop touching the mapping. Other errors pass unchanged.
   */
  RuntimeException fault(InternalError fault) {
    if (!MappingFaults.isUnsafeAccess(fault)) {
      throw fault;
    }
    return truncated(fault);
  }

  /** Refuses this and every later lookup: the data file changed under the open store. */
  private CorruptStoreException truncated(Throwable cause) {
    // First: the steps below call into the runtime, where a pending error would escape. The call
    // itself may deliver it (a call that deoptimizes returns through the runtime): caught here.
    try {
      absorbLateFaults();
    } catch (InternalError late) {
      if (!MappingFaults.isUnsafeAccess(late)) {
        throw late;
      }
    }
    long now = dataFileSize();
    CorruptStoreException damage =
        new CorruptStoreException(
            dataPath + ": the records can no longer be read (" + (now < 0 ? "gone now" : now + " bytes now") + ", " + openedLength
                + " when the store was opened): the file was truncated or rewritten under the open store; publish a new version"
                + " instead of changing one in place",
            cause);
    guard.fail(damage);
    return damage;
  }

  /**
   * Whether the mapped data file is now shorter than when the store opened it (or gone): reads of
   * the mapping may then fault, and the JVM's late errors may have broken the lookup counts.
   */
  boolean fileShrank() {
    return mapped && dataFileSize() < openedLength;
  }

  /** The data file's size now, or -1 when it cannot be read. */
  private long dataFileSize() {
    try {
      return Files.size(dataFile);
    } catch (IOException | RuntimeException gone) {
      return -1;
    }
  }

  /**
   * Gives a pending fault of this thread's reads of the mapping its chance to be thrown here (as
   * the {@link InternalError} the store's lookups turn into {@link #fault}), so that an answer made
   * of a faulted read (whose bytes are whatever the skipped instruction left) never leaves the
   * store. Lookups whose record was checked in a heap copy ({@link RecordCopy}) need not: this
   * costs a call into the JVM's runtime (tens of nanoseconds) and is kept for records read in the
   * mapping and the end of batch work. Nothing to do when the records are in memory. How: {@link
   * MappingFaults#deliverPending}, which {@code LateFaultDeliveryTest} pins.
   */
  void settleReads() {
    if (mapped) {
      MappingFaults.deliverPending();
    }
  }

  /**
   * The JVM may still hold an error for another faulting read of the same lookup and deliver it at
   * its next check, in the caller's code: give it checks here, where it is known for what it is.
   * Returns how many it delivered here ({@link MappingFaults#absorbLate}).
   */
  static int absorbLateFaults() {
    return MappingFaults.absorbLate();
  }
}
