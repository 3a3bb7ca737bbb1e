package io.varve.benchmarks.bufferhash;

import io.varve.bufferhash.BufferHash;
import io.varve.bufferhash.BufferHashTuning;
import java.io.IOException;
import java.nio.file.Path;

/**
 * Varve's BufferHash with its defaults (FIFO eviction, no fsync but on close), sized for the data
 * set. BufferHash is a cache: when its circular log is full it evicts the oldest incarnation, while
 * the peers grow. So that it answers the same as they do, its log gets room for {@value
 * #LOG_SLACK} times the expected records (a page of 4 KiB holds 136 entries of 30 bytes, so that
 * is about 1.12 times as many entries), and the harness's check of every answer would catch an
 * eviction.
 *
 * <p>Its RAM ({@code memoryBytes}: buffers, Bloom filters, incarnation fences) is {@value
 * #BYTES_PER_KEY} bytes per expected record, the most the issue allows (the system property
 * {@value #BYTES_PER_KEY_PROPERTY} sets another), or less when its own
 * tuning helper ({@link BufferHashTuning#memoryFor}, the paper's section 6.4) says less reaches
 * {@value #WASTED_READS} wasted reads per lookup of an absent key. It is never more than {@value
 * #MAX_SHARE} of the budget (its buffers and filters live on the Java heap, which needs room for
 * garbage), nor less than what keeps wasted reads at {@value #MOST_WASTED_READS} (a floor only tiny
 * data sets reach). {@code ramBytesUsed} is {@code memoryBytes}: measured, see
 * docs/benchmarks/bufferhash/RESULTS.md. The rest of the budget is left to the page cache, which
 * may keep log pages, as the other systems' page cache does.
 *
 * <p>Not thread-safe as used here (the harness drives one thread); BufferHash itself is.
 */
final class BufferHashStore implements MutableStore {
  static final double LOG_SLACK = 1.2;
  static final double BYTES_PER_KEY = 2.0;
  /** The system property that sets the RAM per record instead of {@value #BYTES_PER_KEY}. */
  static final String BYTES_PER_KEY_PROPERTY = "varve.bench.bufferhash.bytesPerKey";
  static final double WASTED_READS = 0.01;
  /** Wasted reads per absent lookup that the RAM given never exceeds, whatever the bytes per key. */
  static final double MOST_WASTED_READS = 1.0;
  static final double MAX_SHARE = 0.5;
  /** The smallest log the tuning accepts with room to spare (its floor is 64 KiB). */
  private static final long MIN_LOG_BYTES = 1L << 20;

  private final BufferHash table;

  BufferHashStore(long ramBytes, Path dir, long expectedRecords) throws IOException {
    long logBytes = Math.max(MIN_LOG_BYTES, (long) (LOG_SLACK * expectedRecords * Fingerprints.RECORD_BYTES));
    long wanted = Math.min((long) (MAX_SHARE * ramBytes), (long) (bytesPerKey() * expectedRecords));
    // A tiny data set (a test's) cannot work at 2 bytes per key: its buffers alone take more.
    long floor = BufferHashTuning.memoryFor(logBytes, Fingerprints.RECORD_BYTES, MOST_WASTED_READS);
    long memoryBytes = Math.min(Math.max(wanted, floor), BufferHashTuning.memoryFor(logBytes, Fingerprints.RECORD_BYTES, WASTED_READS));
    table = BufferHash.builder(dir)
        .logBytes(logBytes)
        .memoryBytes(memoryBytes)
        .entryBytes(Fingerprints.RECORD_BYTES)
        .open();
    if (table.tuning().capacityEntries() < expectedRecords) {
      table.close();
      throw new IllegalStateException("a log of " + logBytes + " bytes holds " + table.tuning().capacityEntries()
          + " entries, fewer than the " + expectedRecords + " records: raise LOG_SLACK");
    }
  }

  private static double bytesPerKey() {
    return Double.parseDouble(System.getProperty(BYTES_PER_KEY_PROPERTY, Double.toString(BYTES_PER_KEY)));
  }

  @Override
  public void put(byte[] key, byte[] value) {
    table.put(key, value);
  }

  @Override
  public byte[] get(byte[] key) {
    return table.get(key);
  }

  /** Buffers, Bloom filters and what BufferHash keeps of each incarnation, by its own count. */
  @Override
  public long ramBytesUsed() {
    return table.ramBytesUsed();
  }

  @Override
  public long[] readsPerLookup() {
    return table.stats().readsPerLookup();
  }

  /** Writes the buffers to the directory (BufferHash's close, which forces them to the device). */
  @Override
  public void close() {
    table.close();
  }

  /** The sizes BufferHash chose, for the run's log. */
  String tuning() {
    return table.tuning().toString();
  }
}
