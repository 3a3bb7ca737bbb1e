package io.varve.benchmarks;

import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.IndexType;
import org.rocksdb.LRUCache;

/**
 * How every RocksDB peer here lays out its tables: Bloom filters of 10 bits per key, partitioned
 * indexes and filters held in the block cache (so that the cache bounds them too), their top levels
 * pinned. Stateless; thread-safe.
 */
public final class RocksDbTables {
  private RocksDbTables() {}

  /** The table configuration over {@code cache}. */
  public static BlockBasedTableConfig cachedIn(LRUCache cache) {
    return new BlockBasedTableConfig()
        .setBlockCache(cache)
        .setFilterPolicy(new BloomFilter(10, false))
        .setCacheIndexAndFilterBlocks(true)
        .setCacheIndexAndFilterBlocksWithHighPriority(true)
        .setIndexType(IndexType.kTwoLevelIndexSearch)
        .setPartitionFilters(true)
        .setMetadataBlockSize(4096)
        // The top levels of the partitioned indexes and filters are small: keep them in the cache.
        .setPinTopLevelIndexAndFilter(true);
  }
}
