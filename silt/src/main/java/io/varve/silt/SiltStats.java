package io.varve.silt;

/**
 * What a {@link SiltStore} holds at one moment. Immutable; thread-safe.
 *
 * @param sortedRecords records of the sorted store
 * @param logStores log stores: the one taking writes and the frozen ones waiting for a merge
 * @param logEntries keys in the log stores (a key in two counts twice; deletes count)
 * @param logBytes bytes of their logs
 * @param hashStores hash stores (frozen log stores converted, waiting for a merge)
 * @param hashEntries keys in the hash stores
 * @param memoryBytes heap bytes of the log stores' tables and the sorted store's index
 * @param conversions log stores converted to hash stores since the store was opened
 * @param merges merges completed since the store was opened
 */
public record SiltStats(
    long sortedRecords, int logStores, long logEntries, long logBytes, int hashStores, long hashEntries, long memoryBytes,
    long conversions, long merges) {
  /** Heap bytes per key held, counting keys of the log stores and the sorted store alike. */
  public double memoryBytesPerEntry() {
    long entries = sortedRecords + logEntries + hashEntries;
    return entries == 0 ? 0 : (double) memoryBytes / entries;
  }
}
