package io.varve.benchmarks.bufferhash;

import java.io.IOException;
import java.nio.file.Path;

/** The systems the BufferHash comparison measures, each opened the same way. Immutable; thread-safe. */
public enum StoreKind {
  BUFFERHASH("BufferHash"),
  JE("Berkeley DB JE"),
  ROCKSDB("RocksDB"),
  LMDB("LMDB");

  public final String label;

  StoreKind(String label) {
    this.label = label;
  }

  /**
   * Opens (creating if needed) this system's store in {@code dir}, configured to keep its own
   * memory within {@code ramBytes} (see each implementation for what that covers). {@code
   * expectedRecords} sizes BufferHash's log, which evicts when full; the others grow and ignore it.
   */
  public MutableStore open(long ramBytes, Path dir, long expectedRecords) throws IOException {
    switch (this) {
      case BUFFERHASH:
        return new BufferHashStore(ramBytes, dir, expectedRecords);
      case JE:
        return new JeStore(ramBytes, dir);
      case ROCKSDB:
        return new RocksDbStore(ramBytes, dir);
      case LMDB:
        return new LmdbStore(dir);
      default:
        throw new AssertionError(this);
    }
  }
}
