package io.varve.benchmarks.peers;

/**
 * The records one system stores in one step of the comparison: the base content, a batch of
 * updates, or base and batch merged. Every system is fed the same records in the same order, and
 * lookups draw members by number: {@code key(j)} for {@code j} in {@code [0, size())}, whose value
 * is {@code value(j)}. Implementations are immutable and thread-safe.
 */
public interface RecordSet {
  /** The number of records (distinct keys). */
  long size();

  /** The key of member {@code j}; a new array. */
  byte[] key(long j);

  /** The value stored under {@link #key key(j)}; a new array. */
  byte[] value(long j);

  /** The length of every key, or -1 when lengths vary. */
  default int fixedKeyBytes() {
    return -1;
  }

  /** The length of every value, or -1 when lengths vary. */
  default int fixedValueBytes() {
    return -1;
  }

  /**
   * Every record in input order (the order a batch job would produce them in): member 0, 1, and
   * so on, as {@link #key} and {@link #value} number them.
   */
  void forEach(RecordVisitor visitor) throws Exception;

  /**
   * Every record in ascending unsigned lexicographic key order, as sorted-input writers
   * (RocksDB's {@code SstFileWriter}) need them; the sort is part of that system's build.
   */
  void forEachSorted(RecordVisitor visitor) throws Exception;

  /** Receives records. */
  @FunctionalInterface
  interface RecordVisitor {
    void accept(byte[] key, byte[] value) throws Exception;
  }
}
