package io.varve.silt;

import io.varve.core.files.FileTrees;
import io.varve.core.format.CorruptStoreException;
import io.varve.core.format.Envelope;
import io.varve.core.store.StoreFile;
import io.varve.reader.Store;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * SILT's SortedStore (§3.3): a Varve store, memory-mapped, which holds all but the newest writes.
 * Thread-safe.
 */
final class SortedStore extends Retained {
  private final long number;
  private final Store store;

  SortedStore(long number, Store store) {
    this.number = number;
    this.store = store;
  }

  /**
   * The CRC32C of the sorted store's meta file in {@code directory}: the manifest (version 2) keeps
   * it, so that another sorted store under the same number (another store's, or an older one) is
   * refused. The meta file holds the store's record check salt, its record count and its data
   * file's checksum: another store's meta file differs, and reading a few hundred bytes is cheap.
   */
  static int metaCheck(Path directory) throws IOException {
    byte[] meta = Files.readAllBytes(directory.resolve(StoreFile.META.fileName()));
    return Envelope.crc32c(meta, 0, meta.length);
  }

  /** Throws unless the sorted store in {@code directory} is the one whose meta CRC32C is {@code expected}. */
  static void checkMeta(Path directory, int expected) throws IOException {
    int found = metaCheck(directory);
    CorruptStoreException.check(found == expected, directory + ": a sorted store whose meta file has CRC32C " + Integer.toHexString(found)
        + " where the manifest records " + Integer.toHexString(expected) + " (another store's, or another version of it)");
  }

  long number() {
    return number;
  }

  Store store() {
    return store;
  }

  Path directory() {
    return store.directory();
  }

  @Override
  void released(boolean delete) throws IOException {
    store.close();
    if (delete) {
      FileTrees.deleteTree(store.directory());
    }
  }

  @Override
  public String toString() {
    return "sorted store " + store.directory();
  }
}
