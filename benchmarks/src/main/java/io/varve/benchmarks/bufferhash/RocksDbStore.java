package io.varve.benchmarks.bufferhash;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import io.varve.benchmarks.RocksDbTables;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.CompressionType;
import org.rocksdb.FlushOptions;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteOptions;

/**
 * RocksDB with its memory inside the RAM budget: an LRU block cache of {@value #CACHE_SHARE} of the
 * budget that also holds the index and filter blocks, partitioned (RocksDB's advice for a bounded
 * cache: a lookup then reads one 4 KiB partition of a filter, not a whole file's filter, which
 * with whole filters here cost 296 KiB read per lookup, measured), two memtables of {@value
 * #MEMTABLE_SHARE} of the budget each, a 10-bit Bloom filter per key as in the paper's
 * configuration, level compaction otherwise at its defaults. The rest of the budget is for what
 * RocksDB does not account (the allocator's overhead, compaction's buffers, about 12 MiB here) and
 * the page cache: with half the budget as cache and memtables the kernel killed the run at 32 MiB
 * (measured).
 *
 * <p>Writes go without a write-ahead log: BufferHash by default keeps its buffers in RAM only, so a
 * crash loses what is not yet flushed in both. No compression: fingerprints and the values here are
 * random bytes, which Snappy would only spend time on.
 *
 * <p>Not thread-safe as used here (the harness drives one thread); RocksDB itself is.
 */
final class RocksDbStore implements MutableStore {
  static final double CACHE_SHARE = 0.25;
  static final double MEMTABLE_SHARE = 0.0625;

  static {
    RocksDB.loadLibrary();
  }

  private final LRUCache blockCache;
  private final Options options;
  private final WriteOptions writeOptions;
  private final RocksDB db;

  RocksDbStore(long ramBytes, Path dir) throws IOException {
    Files.createDirectories(dir);
    blockCache = new LRUCache((long) (ramBytes * CACHE_SHARE));
    BlockBasedTableConfig table = RocksDbTables.cachedIn(blockCache);
    options = new Options()
        .setCreateIfMissing(true)
        .setTableFormatConfig(table)
        .setWriteBufferSize((long) (ramBytes * MEMTABLE_SHARE))
        .setMaxWriteBufferNumber(2)
        .setCompressionType(CompressionType.NO_COMPRESSION)
        .setMaxBackgroundJobs(2);
    writeOptions = new WriteOptions().setDisableWAL(true);
    try {
      db = RocksDB.open(options, dir.toString());
    } catch (RocksDBException e) {
      options.close();
      writeOptions.close();
      blockCache.close();
      throw new IOException(e);
    }
  }

  @Override
  public void put(byte[] key, byte[] value) throws IOException {
    try {
      db.put(writeOptions, key, value);
    } catch (RocksDBException e) {
      throw new IOException(e);
    }
  }

  @Override
  public byte[] get(byte[] key) throws IOException {
    try {
      return db.get(key);
    } catch (RocksDBException e) {
      throw new IOException(e);
    }
  }

  /** The block cache's usage (data, index and filter blocks), the memtables, and table readers' own memory. */
  @Override
  public long ramBytesUsed() throws IOException {
    try {
      return blockCache.getUsage() + db.getLongProperty("rocksdb.cur-size-all-mem-tables")
          + db.getLongProperty("rocksdb.estimate-table-readers-mem");
    } catch (RocksDBException e) {
      throw new IOException(e);
    }
  }

  /** Flushes the memtables (without a log they would be lost) and closes. */
  @Override
  public void close() throws IOException {
    try (FlushOptions flush = new FlushOptions().setWaitForFlush(true)) {
      db.flush(flush);
    } catch (RocksDBException e) {
      throw new IOException(e);
    } finally {
      db.close();
      options.close();
      writeOptions.close();
      blockCache.close();
    }
  }
}
