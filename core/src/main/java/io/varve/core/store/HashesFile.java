package io.varve.core.store;

import io.varve.core.format.CorruptStoreException;
import java.nio.file.Path;

/**
 * The layout of the {@link StoreFile#HASHES hashes} file, shared by its writer ({@link
 * HashesWriter}) and its reader ({@link HashesReader}): every record's 128-bit key hash, in record
 * order, in a store that keeps no full keys (signatures or none), so that a merge, a re-index or
 * {@code verify} can rank the records again without their keys. Lookups never read it.
 *
 * <pre>
 * File    := Header Payload Footer          (the {@link StoreFile} envelope, format name "varve-hashes", version 1)
 * Payload := (hi:int64 lo:int64)^recordCount (the key hash of record i; record order is hash order)
 * </pre>
 *
 * Stateless; thread-safe.
 */
public final class HashesFile {
  /** Bytes of one hash in the payload. */
  public static final int HASH_BYTES = 2 * Long.BYTES;

  private HashesFile() {}

  /** The size of the hashes file of a store of {@code recordCount} records. */
  public static long fileSize(long recordCount) {
    return StoreFile.HASHES.envelopeLength() + HASH_BYTES * recordCount;
  }

  /**
   * Checks that the meta file's entry for the hashes file has the size {@code recordCount} hashes
   * take.
   *
   * @throws CorruptStoreException naming the file otherwise
   */
  static void checkSize(StoreMeta meta, Path path) {
    CorruptStoreException.check(
        meta.file(StoreFile.HASHES).size() == fileSize(meta.recordCount()),
        path + ": does not hold the " + meta.recordCount() + " hashes the meta file records");
  }
}
