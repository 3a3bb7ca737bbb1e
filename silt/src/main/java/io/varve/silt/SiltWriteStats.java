package io.varve.silt;

/**
 * What a {@link SiltStore} wrote since it was opened, to measure its write amplification (SILT §5,
 * equation 1) against {@link SiltTuning}'s model. Immutable; thread-safe.
 *
 * @param operations puts and deletes
 * @param operationBytes their keys' and values' bytes
 * @param logRecords records appended to logs (one per operation)
 * @param logBytes their bytes, headers included
 * @param hashEntries entries written by conversions to hash stores (one per key a frozen log held)
 * @param hashBytes bytes of the hash stores written
 * @param sortedRecords records written by merges (every record of every new sorted store)
 * @param sortedBytes bytes of the sorted stores written
 */
public record SiltWriteStats(
    long operations, long operationBytes, long logRecords, long logBytes, long hashEntries, long hashBytes, long sortedRecords,
    long sortedBytes) {

  /** Entries written to disk per operation: the paper's write amplification for entries of one size. */
  public double writeAmplification() {
    return operations == 0 ? 0 : (double) (logRecords + hashEntries + sortedRecords) / operations;
  }

  /** Bytes written to disk per byte of keys and values written. */
  public double byteWriteAmplification() {
    return operationBytes == 0 ? 0 : (double) (logBytes + hashBytes + sortedBytes) / operationBytes;
  }
}
