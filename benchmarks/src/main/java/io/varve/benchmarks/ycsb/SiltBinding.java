package io.varve.benchmarks.ycsb;

import io.varve.silt.SiltOptions;
import io.varve.silt.SiltStats;
import io.varve.silt.SiltStore;
import io.varve.silt.SiltTuning;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import site.ycsb.DBException;

/**
 * YCSB binding of Varve's SILT store ({@code -db io.varve.benchmarks.ycsb.SiltBinding}). The
 * store is opened with {@link SiltOptions#DEFAULTS}, or with the options {@link SiltTuning} picks
 * when {@code silt.tuneKeys} (the keys to plan for) is set, for {@code silt.tuneBytesPerEntry}
 * bytes of memory per key (default 1) and at most 1.02 disk reads per get; then the properties
 * {@code silt.logStoreEntries}, {@code silt.maxLogBytes}, {@code silt.hashStoresPerMerge} or
 * {@code silt.mergeMemoryBudget} override single options. Its RAM is its tables and its sorted
 * store's index, which it sizes itself: {@value KeyValueDb#CACHE_BYTES_PROPERTY} is not used
 * (SILT has no cache; the records are read from its files through the page cache). Writes reach
 * the operating system before a put returns, and are not forced to the device.
 *
 * <p>Scans are not implemented (SILT keeps no key order across its stores). When the last
 * instance closes the store it prints its {@link SiltStats} to stderr as one {@value
 * KeyValueDb#STATS_PREFIX} line (memory bytes per entry and where the entries are), and fails if a
 * background merge failed.
 *
 * <p>Not thread-safe (one instance per YCSB client thread); the store it shares is.
 */
public final class SiltBinding extends KeyValueDb {
  private static final SharedStore<OpenSilt> SHARED = new SharedStore<>();

  /** A YCSB key and record as the binding stores them, for {@link SiltTuning}. */
  private static final int RECORD_BYTES = 23 + 1080;
  /**
   * The sorted store's memory per key with records of this size (about four per page): 18.5 bits
   * measured after a YCSB load of 10^6 records, rounded up.
   */
  private static final double SORTED_BITS_PER_KEY = 19.0;

  private SiltStore store;

  @Override
  public void init() throws DBException {
    String dir = directory();
    try {
      store = SHARED.acquire(dir, () -> new OpenSilt(SiltStore.open(Path.of(dir), options()))).store;
    } catch (Exception e) {
      throw new DBException("opening the SILT store in " + dir, e);
    }
  }

  private SiltOptions options() {
    SiltOptions.Builder options = SiltOptions.builder();
    String tuneKeys = getProperties().getProperty("silt.tuneKeys");
    if (tuneKeys != null) {
      double bytesPerEntry = Double.parseDouble(getProperties().getProperty("silt.tuneBytesPerEntry", "1.0"));
      long keys = Long.parseLong(tuneKeys);
      SiltOptions tuned = new SiltTuning(keys, RECORD_BYTES, SORTED_BITS_PER_KEY)
          .optionsFor((long) (bytesPerEntry * keys), 1.02, SiltOptions.DEFAULTS);
      System.err.println("SiltTuning chose " + tuned + " for " + keys + " keys at " + bytesPerEntry + " bytes per entry");
      options = tuned.toBuilder();
    }
    String entries = getProperties().getProperty("silt.logStoreEntries");
    if (entries != null) {
      options.logStoreEntries(Integer.parseInt(entries));
    }
    String logBytes = getProperties().getProperty("silt.maxLogBytes");
    if (logBytes != null) {
      options.maxLogBytes(Long.parseLong(logBytes));
    }
    String perMerge = getProperties().getProperty("silt.hashStoresPerMerge");
    if (perMerge != null) {
      options.hashStoresPerMerge(Integer.parseInt(perMerge));
    }
    String budget = getProperties().getProperty("silt.mergeMemoryBudget");
    if (budget != null) {
      options.mergeMemoryBudget(Long.parseLong(budget));
    }
    return options.build();
  }

  @Override
  public void cleanup() throws DBException {
    try {
      SHARED.release();
    } catch (Exception e) {
      throw new DBException("closing the SILT store", e);
    }
  }

  @Override
  byte[] get(byte[] key) {
    return store.get(key);
  }

  @Override
  void put(byte[] key, byte[] value) throws Exception {
    store.put(key, value);
  }

  @Override
  void remove(byte[] key) throws Exception {
    store.delete(key);
  }

  /** The store, closed after its stats are printed. */
  private record OpenSilt(SiltStore store) implements AutoCloseable {
    @Override
    public void close() {
      try {
        SiltStats stats = store.stats();
        Map<String, Object> line = new LinkedHashMap<>();
        line.put("ramBytes", stats.memoryBytes());
        line.put("memoryBytesPerEntry", stats.memoryBytesPerEntry());
        line.put("sortedRecords", stats.sortedRecords());
        line.put("hashStores", stats.hashStores());
        line.put("hashEntries", stats.hashEntries());
        line.put("logStores", stats.logStores());
        line.put("logEntries", stats.logEntries());
        line.put("conversions", stats.conversions());
        line.put("merges", stats.merges());
        printStats("Silt", line);
        if (store.mergeFailure() != null) {
          throw new IllegalStateException("a background merge failed", store.mergeFailure());
        }
      } finally {
        store.close();
      }
    }
  }
}
