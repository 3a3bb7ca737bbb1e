package io.varve.examples.dedup;

/**
 * What a dedup run has seen so far (a snapshot; immutable, so thread-safe).
 *
 * @param files streams read to their end
 * @param bytes bytes read
 * @param chunks chunks cut
 * @param duplicateBytes bytes of chunks whose fingerprint the index already held
 * @param duplicateChunks chunks whose fingerprint the index already held
 * @param referenceDuplicateBytes the same as {@code duplicateBytes} by the reference index, or -1
 *     when the run has none
 * @param disagreements chunks that one index had seen and the other had not (0 without reference)
 * @param wrongAddresses chunks that both had seen, at different addresses (0 without reference)
 */
public record DedupStats(
    long files,
    long bytes,
    long chunks,
    long duplicateBytes,
    long duplicateChunks,
    long referenceDuplicateBytes,
    long disagreements,
    long wrongAddresses) {

  /** The fraction of bytes in chunks seen before: what a WAN optimizer would not send again. */
  public double redundancy() {
    return bytes == 0 ? 0 : duplicateBytes / (double) bytes;
  }

  /** {@link #redundancy()} by the reference index, or NaN when there is none. */
  public double referenceRedundancy() {
    return referenceDuplicateBytes < 0 ? Double.NaN : bytes == 0 ? 0 : referenceDuplicateBytes / (double) bytes;
  }
}
