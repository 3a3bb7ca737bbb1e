package io.varve.silt;

import io.varve.core.files.FileTrees;
import io.varve.reader.Store;
import java.io.IOException;
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
