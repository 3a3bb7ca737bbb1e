package io.varve.silt;

import io.varve.core.cuckoo.CuckooTagTable;

/**
 * SILT's analytical model (§5) for one store, and the knobs it picks from a memory budget.
 *
 * <p>With {@code S} slots per log store, {@code L = 0.95 S} entries in a full one, {@code H} hash
 * stores per merge ({@code d = H L} entries merged at once) and {@code N} keys:
 *
 * <ul>
 *   <li><b>write amplification</b> (entries written per put, updates of existing keys):
 *       {@code 1} (the log) {@code + u} (the conversion, {@code u} the share of a log's records whose
 *       keys are distinct in it) {@code + N / d} (each merge rewrites the sorted store);
 *   <li><b>read amplification</b> (disk reads per get of a key in the sorted store): at its peak
 *       {@code 1 + (4 + 2H + 2) f}, when writers have caught up with background work and every
 *       store in front of the sorted one is searched in vain (the log store taking writes, three
 *       frozen ones, and the {@code 2H + 2} hash stores at which writers wait: the {@code H} a
 *       merge takes, as many queued behind it, and two), where {@code f = 8 × 0.95 / 2^15} is the
 *       chance that a store without the key shows a candidate (two buckets of four 15-bit tags);
 *       on average over a merge cycle that keeps up, {@code 1 + (1 + H / 2) f}, the paper's
 *       equation (6);
 *   <li><b>memory per entry</b>, at the same peak: {@code (4 × 6 S + 2.25 S (2H + 2)) / N} for the
 *       log stores' tables (six bytes a slot) and the hash stores' tags and bucket starts, plus the
 *       sorted store's bits per key over eight.
 * </ul>
 *
 * The paper's equation (4) counts {@code 1 / 0.93} for the conversion, whose tables keep empty
 * slots on disk; Varve's hash stores pack their entries, so {@code u ≤ 1}.
 *
 * <p>Immutable; thread-safe.
 *
 * @param keys keys the store will hold ({@code N})
 * @param recordBytes bytes of a typical key and value, for the log size
 * @param sortedBitsPerKey memory bits per key of the sorted store (its {@code StoreStats})
 */
public record SiltTuning(long keys, int recordBytes, double sortedBitsPerKey) {
  /** Entries a log store holds per slot when it is frozen full. */
  public static final double OCCUPANCY = 0.95;
  /** Candidate slots that a store without the key shows, per lookup. */
  public static final double FALSE_CANDIDATES_PER_STORE = 2.0 * CuckooTagTable.WAYS * OCCUPANCY / (1 << CuckooTagTable.TAG_BITS);
  /** Heap bytes per slot of a log store's table. */
  static final double LOG_STORE_BYTES_PER_SLOT = 6;
  /** Heap bytes per slot of a hash store: its tags and, amortized, its bucket starts. */
  static final double HASH_STORE_BYTES_PER_SLOT = 2.25;

  /** @throws IllegalArgumentException when a value is out of range */
  public SiltTuning {
    if (keys < 1 || recordBytes < 1 || !(sortedBitsPerKey >= 0)) {
      throw new IllegalArgumentException("keys " + keys + ", record bytes " + recordBytes + ", sorted bits per key " + sortedBitsPerKey);
    }
  }

  private static long slots(SiltOptions options) {
    return (long) options.logTableBuckets() * CuckooTagTable.WAYS;
  }

  /** Entries written to disk per put that updates a key, with these options. */
  public double writeAmplification(SiltOptions options) {
    double perLog = OCCUPANCY * slots(options);
    double distinct = keys / perLog * -Math.expm1(-perLog / keys);
    return 1 + distinct + keys / (perLog * options.hashStoresPerMerge());
  }

  /** Log stores at the peak: the one taking writes and those frozen when writers wait for conversions. */
  static final int PEAK_LOG_STORES = BackgroundWork.MAX_FROZEN_LOGS + 2;

  /** Heap bytes of the log stores' tables at the peak: {@link #PEAK_LOG_STORES} tables of these options' size. */
  static long peakLogTableBytes(SiltOptions options) {
    return (long) (LOG_STORE_BYTES_PER_SLOT * slots(options)) * PEAK_LOG_STORES;
  }

  /** Disk reads per get of a key that the sorted store holds, at the peak (the most stores in front of it). */
  public double readAmplification(SiltOptions options) {
    return 1 + (PEAK_LOG_STORES + BackgroundWork.maxHashStores(options)) * FALSE_CANDIDATES_PER_STORE;
  }

  /** Disk reads per get of a key that the sorted store holds, on average over a merge cycle. */
  public double averageReadAmplification(SiltOptions options) {
    return 1 + (1 + options.hashStoresPerMerge() / 2.0) * FALSE_CANDIDATES_PER_STORE;
  }

  /** Heap bytes per key at the peak, while a merge runs and writers wait for it. */
  public double memoryBytesPerEntry(SiltOptions options) {
    double slots = slots(options);
    return (LOG_STORE_BYTES_PER_SLOT * slots * PEAK_LOG_STORES + HASH_STORE_BYTES_PER_SLOT * slots * BackgroundWork.maxHashStores(options))
        / keys + sortedBitsPerKey / 8;
  }

  /**
   * The options (from {@code base}) with the least write amplification whose peak memory fits
   * {@code memoryBytes} and whose peak read amplification stays within {@code maxReadAmplification}:
   * log stores of {@code 2^12} to {@code 2^26} slots, up to 1,024 hash stores per merge.
   *
   * @throws IllegalArgumentException when no choice fits the budget
   */
  public SiltOptions optionsFor(long memoryBytes, double maxReadAmplification, SiltOptions base) {
    SiltOptions best = null;
    double bestWrites = Double.MAX_VALUE;
    for (int slotsLog2 = 12; slotsLog2 <= 26; slotsLog2++) {
      int slots = 1 << slotsLog2;
      long logBytes = Math.min(SiltLog.MAX_BYTES, Math.max(1L << 20, 4L * slots * (recordBytes + 16)));
      for (int h = 1; h <= 1024; h++) {
        SiltOptions candidate = base.toBuilder().logStoreEntries(slots).maxLogBytes(logBytes).hashStoresPerMerge(h).build();
        if (readAmplification(candidate) > maxReadAmplification || memoryBytesPerEntry(candidate) * keys > memoryBytes) {
          break;
        }
        double writes = writeAmplification(candidate);
        if (writes < bestWrites) {
          best = candidate;
          bestWrites = writes;
        }
      }
    }
    if (best == null) {
      throw new IllegalArgumentException(String.format(
          "no SILT options fit %,d bytes for %,d keys: the sorted store alone needs %,.0f", memoryBytes, keys, keys * sortedBitsPerKey / 8));
    }
    return best;
  }
}
