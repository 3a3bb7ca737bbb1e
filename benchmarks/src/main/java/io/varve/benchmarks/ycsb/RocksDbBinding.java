package io.varve.benchmarks.ycsb;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import io.varve.benchmarks.RocksDbTables;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.CompressionType;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import site.ycsb.DBException;

/**
 * YCSB binding of RocksDB ({@code -db io.varve.benchmarks.ycsb.RocksDbBinding}), configured as in
 * the BufferHash comparison ({@code bufferhash.RocksDbStore}): an LRU block cache of {@value
 * KeyValueDb#CACHE_BYTES_PROPERTY} bytes that also holds the index and filter blocks (partitioned,
 * top levels pinned), so that the cache bounds them; a 10-bit Bloom filter per key; level
 * compaction; two memtables of RocksDB's default 64 MiB besides the cache; no compression (YCSB's
 * values are random, Snappy finds nothing to take out). The write-ahead log is on and not synced:
 * a write reaches the operating system before it returns, as SILT's do.
 *
 * <p>Scans are implemented (an iterator from the start key). The last instance to close prints
 * the block cache's, memtables' and table readers' bytes as one {@value KeyValueDb#STATS_PREFIX}
 * line to stderr.
 *
 * <p>Not thread-safe (one instance per YCSB client thread); the database it shares is.
 */
public final class RocksDbBinding extends KeyValueDb {
  private static final SharedStore<OpenRocksDb> SHARED = new SharedStore<>();

  static {
    RocksDB.loadLibrary();
  }

  private RocksDB db;

  @Override
  public void init() throws DBException {
    String dir = directory();
    long cacheBytes = cacheBytes();
    try {
      db = SHARED.acquire(dir, () -> OpenRocksDb.open(Path.of(dir), cacheBytes)).db;
    } catch (Exception e) {
      throw new DBException("opening RocksDB in " + dir, e);
    }
  }

  @Override
  public void cleanup() throws DBException {
    try {
      SHARED.release();
    } catch (Exception e) {
      throw new DBException("closing RocksDB", e);
    }
  }

  @Override
  byte[] get(byte[] key) throws RocksDBException {
    return db.get(key);
  }

  @Override
  void put(byte[] key, byte[] value) throws RocksDBException {
    db.put(key, value);
  }

  @Override
  void remove(byte[] key) throws RocksDBException {
    db.delete(key);
  }

  @Override
  boolean scan(byte[] start, int count, RecordVisitor visitor) throws RocksDBException {
    try (RocksIterator records = db.newIterator()) {
      records.seek(start);
      for (int i = 0; i < count && records.isValid(); i++, records.next()) {
        visitor.visit(records.key(), records.value());
      }
      records.status();
    }
    return true;
  }

  /** The database and the native objects that must outlive it. */
  private record OpenRocksDb(RocksDB db, Options options, LRUCache cache) implements AutoCloseable {
    static OpenRocksDb open(Path dir, long cacheBytes) throws Exception {
      Files.createDirectories(dir);
      LRUCache cache = new LRUCache(cacheBytes);
      BlockBasedTableConfig table = RocksDbTables.cachedIn(cache);
      Options options = new Options()
          .setCreateIfMissing(true)
          .setTableFormatConfig(table)
          .setCompressionType(CompressionType.NO_COMPRESSION)
          .setMaxBackgroundJobs(2);
      try {
        return new OpenRocksDb(RocksDB.open(options, dir.toString()), options, cache);
      } catch (RocksDBException e) {
        options.close();
        cache.close();
        throw e;
      }
    }

    @Override
    public void close() throws RocksDBException {
      try {
        Map<String, Object> line = new LinkedHashMap<>();
        long cached = cache.getUsage();
        long memtables = db.getLongProperty("rocksdb.cur-size-all-mem-tables");
        long readers = db.getLongProperty("rocksdb.estimate-table-readers-mem");
        line.put("ramBytes", cached + memtables + readers);
        line.put("blockCacheBytes", cached);
        line.put("memtableBytes", memtables);
        line.put("tableReaderBytes", readers);
        line.put("estimatedKeys", db.getLongProperty("rocksdb.estimate-num-keys"));
        printStats("RocksDB", line);
      } finally {
        db.close();
        options.close();
        cache.close();
      }
    }
  }
}
