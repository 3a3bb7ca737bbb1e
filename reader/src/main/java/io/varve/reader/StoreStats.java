package io.varve.reader;

import io.varve.core.ect.EctIndex;
import io.varve.core.index.IndexKind;
import io.varve.core.index.RankIndex;
import io.varve.core.store.PageTable;
import io.varve.core.store.RecordBlocks;
import io.varve.core.store.StoreMeta;
import io.varve.core.succinct.EliasFano;

/**
 * Sizes of an open {@link Store}. An immutable value; thread-safe.
 *
 * @param records the number of records
 * @param dataBytes bytes of records in the data file (its header and footer excluded)
 * @param indexKind the kind of the store's index
 * @param indexBits bits of the index as stored (0 for a store opened without it): tries and
 *     bucket directory of an ECT index, blocks and spill stream of a blocked one, the page table of
 *     a paged store (as held in memory: 64 bits per page)
 * @param trieBits bits of an ECT index's tries alone (0 for a blocked index)
 * @param directoryBits bits of an ECT index's bucket directory alone (0 for a blocked index)
 * @param offsetsBits bits of the offsets (0 in a fixed-size store), or of the block table of a
 *     sparse index
 * @param memoryBytes heap bytes held by the open store (index and offsets or blocks, or page table)
 * @param loadedBytes bytes of the data file copied into memory outside the heap by {@link
 *     Store#load}; 0 for a mapped store, whose records stay in the page cache
 * @param fileBytes bytes of all the store's files
 * @param formatVersion the store's format version (its meta file's, see {@code docs/FORMAT.md})
 * @param blockBytes the block size of a sparse index, 0 for a dense one
 */
public record StoreStats(
    long records,
    long dataBytes,
    IndexKind indexKind,
    long indexBits,
    long trieBits,
    long directoryBits,
    long offsetsBits,
    long memoryBytes,
    long loadedBytes,
    long fileBytes,
    int formatVersion,
    int blockBytes) {

  /**
   * The sizes of a store of {@code meta} holding what its open loaded: its index (null when opened
   * without it), offsets, blocks or page table (each null when it has none).
   */
  static StoreStats of(
      StoreMeta meta, RankIndex index, EliasFano offsets, RecordBlocks blocks, PageTable pages, long loadedBytes, long fileBytes) {
    long offsetsBits = offsets != null ? offsets.encodedBits() : blocks != null ? blocks.encodedBits() : 0;
    long memory =
        (index == null ? 0 : index.ramBytesUsed())
            + (offsets == null ? 0 : offsets.ramBytesUsed())
            + (blocks == null ? 0 : blocks.ramBytesUsed())
            + (pages == null ? 0 : pages.ramBytesUsed());
    EctIndex ect = index instanceof EctIndex e ? e : null;
    return new StoreStats(
        meta.recordCount(),
        meta.dataBytes(),
        meta.indexKind(),
        index != null ? index.encodedBits() : pages != null ? pages.encodedBits() : 0,
        ect == null ? 0 : ect.trieBits(),
        ect == null ? 0 : ect.directoryBits(),
        offsetsBits,
        memory,
        loadedBytes,
        fileBytes,
        meta.formatVersion(),
        blocks == null ? 0 : blocks.blockBytes());
  }

  /** Index bits per record. */
  public double indexBitsPerKey() {
    return perRecord(indexBits);
  }

  /** Offsets bits per record. */
  public double offsetsBitsPerKey() {
    return perRecord(offsetsBits);
  }

  /** Heap bits per record (index and offsets as held in memory). */
  public double memoryBitsPerKey() {
    return perRecord(8.0 * memoryBytes);
  }

  private double perRecord(double bits) {
    return records == 0 ? 0 : bits / records;
  }

  /** The stats as a JSON object (fields named as the record components, plus the per-key ratios). */
  public String toJson() {
    return String.format(
        java.util.Locale.ROOT,
        "{\"records\":%d,\"dataBytes\":%d,\"indexKind\":\"%s\",\"indexBits\":%d,\"trieBits\":%d,\"directoryBits\":%d,"
            + "\"offsetsBits\":%d,\"memoryBytes\":%d,\"loadedBytes\":%d,\"fileBytes\":%d,\"formatVersion\":%d,\"blockBytes\":%d,"
            + "\"indexBitsPerKey\":%.4f,\"offsetsBitsPerKey\":%.4f,\"memoryBitsPerKey\":%.4f}",
        records,
        dataBytes,
        indexKind.label(),
        indexBits,
        trieBits,
        directoryBits,
        offsetsBits,
        memoryBytes,
        loadedBytes,
        fileBytes,
        formatVersion,
        blockBytes,
        indexBitsPerKey(),
        offsetsBitsPerKey(),
        memoryBitsPerKey());
  }
}
