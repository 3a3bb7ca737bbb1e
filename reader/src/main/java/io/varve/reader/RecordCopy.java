package io.varve.reader;

/**
 * A thread's copy of the last record its lookups read and checked: the lookup compares the key and
 * takes the value from this copy, never from a second read of the mapping.
 *
 * <p>Why a copy: on JDK 17 a read of a mapped page that the file no longer holds (it was truncated
 * under the open store) does not throw in compiled code. The JVM skips the faulting instruction,
 * leaving whatever was in its register, and throws later. Decisions made on such reads (a key
 * compare, a checksum compare) can go either way, so a lookup once answered "absent" for held keys
 * and served wrong bytes. A faulting copy into the heap leaves the copy's old bytes instead (a
 * record of another place, which fails its position-seeded checksum, or this record's own intact
 * bytes), and everything computed from the copy afterwards is a plain heap read.
 *
 * <p>It also holds the key's hash, so that a lookup finds its thread's scratch space once. Not
 * thread-safe: one per thread ({@link #ofThisThread}), reused by every store the thread reads, so
 * a copy also names the records it came from.
 */
final class RecordCopy {
  private static final ThreadLocal<RecordCopy> THREADS = ThreadLocal.withInitial(RecordCopy::new);

  /**
   * Records this large or larger are read from the mapping, whose lookups then settle their reads.
   * It also bounds each thread's copy, which grows to the largest smaller record the thread reads.
   */
  static final int LIMIT = 64 * 1024;

  /** The looked-up key's hash, {@code hi, lo}. */
  final long[] hash = new long[2];

  /** The positions a paged lookup reads before it searches its page ({@code PageFinder}). */
  final long[] touchedLines = new long[16];

  /** The record's bytes from its first (header, key, value, checksum), in {@code [0, size)}. */
  byte[] bytes = new byte[64];

  /** The records the copy came from, or null when it holds none. */
  Records owner;
  /** The record's position in its data file. */
  long position;
  /** The record's lengths, as {@link Records#lengthsAt} gives them. */
  long lengths;
  /** Bytes before the key. */
  int header;

  /** This thread's copy. */
  static RecordCopy ofThisThread() {
    return THREADS.get();
  }

  /** Whether this copy holds the checked record at {@code position} of {@code records}. */
  boolean holds(Records records, long position) {
    return owner == records && this.position == position;
  }

  /** {@link #bytes}, at least {@code size} long; forgets the record it held. */
  byte[] room(int size) {
    owner = null;
    if (bytes.length < size) {
      bytes = new byte[Math.max(size, bytes.length * 2)];
    }
    return bytes;
  }

  /** Marks the copy in {@link #bytes} as the checked record at {@code position} of {@code records}. */
  void hold(Records records, long position, long lengths, int header) {
    this.owner = records;
    this.position = position;
    this.lengths = lengths;
    this.header = header;
  }

  /** Where the key starts in {@link #bytes}. */
  int keyStart() {
    return header;
  }

  /** Where the value starts in {@link #bytes}. */
  int valueStart() {
    return header + Records.keyLength(lengths);
  }
}
