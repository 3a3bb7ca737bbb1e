package io.varve.builder;

import io.varve.core.store.StoreMeta;
import java.nio.file.Path;

/**
 * What {@link StoreMerger#merge()} produced. An immutable value; thread-safe.
 *
 * @param directory the published store directory
 * @param meta the new store's metadata, as written
 * @param baseRecords the records of the old stores, summed
 * @param operations the calls to {@code put} and {@code delete}, repeats included
 * @param inserted batch records whose key no old store held
 * @param replaced batch records that replaced an old store's record
 * @param deleted old records dropped by a delete
 * @param absentDeletes deletes of keys no old store held (no effect)
 * @param superseded records of an old store replaced by a newer old store's record of the key
 * @param batchDuplicates operations of the batch superseded by a later {@code put} or {@code
 *     delete} of the same key in the batch (they count in {@code operations}, in none of the above)
 * @param nanos wall-clock time from the first operation to publication
 */
public record MergeSummary(
    Path directory,
    StoreMeta meta,
    long baseRecords,
    long operations,
    long inserted,
    long replaced,
    long deleted,
    long absentDeletes,
    long superseded,
    long batchDuplicates,
    long nanos) {}
