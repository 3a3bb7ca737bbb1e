package io.varve.benchmarks.peers;

import java.io.Closeable;
import java.nio.file.Path;
import java.util.List;

/**
 * One key-value system in the comparison, driven the same way for all: build a store in a fresh
 * directory from a {@link RecordSet}, apply a batch, open a reader. Implementations are stateless
 * and thread-safe; their readers say what they allow.
 */
public interface Peer {
  /** The name in tables and on the command line. */
  String name();

  /** Builds a store of {@code records} in the (new, empty) directory {@code dir}. */
  void build(RecordSet records, Path dir) throws Exception;

  /**
   * Produces in {@code out} the store of {@code dataset.merged()}, from the store of {@code
   * dataset.base()} in {@code base}, as this system's users would: incrementally where the system
   * can (see {@link #updateMethod}), else by a full rebuild, the default. Work a user would not
   * repeat (copying the base so it stays untouched) happens in {@link #prepareUpdate}, outside the
   * timed part.
   */
  default void update(Dataset dataset, Path base, Path out) throws Exception {
    build(dataset.merged(), out);
  }

  /** How {@link #update} applies the batch: {@link UpdateMethod#REBUILD} unless overridden. */
  default UpdateMethod updateMethod() {
    return UpdateMethod.REBUILD;
  }

  /** Copies or links the base store so that {@link #update} may change it in {@code out}. */
  default void prepareUpdate(Path base, Path out) throws Exception {}

  /** Opens the store in {@code dir}. */
  Reader open(Path dir) throws Exception;

  /**
   * Other ways of reading the store this system builds, measured warm on its files right after
   * it and reported as systems of their own (Varve's store loaded into memory); none by default.
   * A variant is only opened: its {@link #build} and {@link #update} are never called.
   */
  default List<Peer> warmVariants() {
    return List.of();
  }

  /** How {@link #update} applied the batch. */
  enum UpdateMethod {
    /** The batch was merged into (or appended to) the existing store. */
    INCREMENTAL,
    /** The store was rebuilt from all the records. */
    REBUILD
  }

  /** An open store. */
  interface Reader extends Closeable {
    /** The value of {@code key}, or null when absent. */
    byte[] get(byte[] key) throws Exception;

    /**
     * A reader for one more thread: this reader (the default) when it is thread-safe, else a new
     * one over the same files, which the caller closes.
     */
    default Reader forAnotherThread() throws Exception {
      return this;
    }

    /**
     * Bytes that must stay in memory for a lookup to cost one disk read: the index (and offsets)
     * on the heap, native memory or the page cache.
     */
    long indexBytes();

    /**
     * Files (or byte ranges of them) holding that index when it lives in the page cache: read
     * after dropping the page cache so that cold lookups find the index resident, as a serving host
     * would keep it. Empty when the index is on the heap or in native memory.
     */
    default List<FileRange> pageCacheIndex() {
      return List.of();
    }

    @Override
    void close();
  }

  /** {@code length} bytes of {@code file} from {@code offset}. */
  record FileRange(Path file, long offset, long length) {}
}
