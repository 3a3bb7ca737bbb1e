package io.varve.builder;

import io.varve.core.artifact.StoreFiles;
import io.varve.core.hash.HashRange;
import io.varve.core.store.KeyMode;
import io.varve.core.store.StoreMeta;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The old stores of a {@link StoreMerger}, oldest first, and what the new store takes from them:
 * their one hash seed and key mode, the newest one's layout, their user metadata. Each store's
 * meta is read and checked against the first's when it is added. Not thread-safe.
 */
final class MergeBases {
  private final List<StoreFiles> files = new ArrayList<>();
  private final List<StoreMeta> metas = new ArrayList<>();

  /**
   * Adds {@code directory} (a store directory or an artifact), newer than those added before.
   *
   * @throws IllegalArgumentException if its hash seed or key mode differs from the first store's
   */
  void add(Path directory) throws IOException {
    StoreFiles store = StoreFiles.of(directory);
    StoreMeta meta = store.readMeta();
    if (!metas.isEmpty() && meta.seed() != seed()) {
      throw new IllegalArgumentException(
          directory + " was built with hash seed " + meta.seed() + ", " + files.get(0) + " with " + seed()
              + ": stores of different seeds cannot be merged in hash order (rebuild one of them)");
    }
    if (!metas.isEmpty() && !meta.keyMode().equals(keyMode())) {
      throw new IllegalArgumentException(
          directory + " keeps keys as " + meta.keyMode() + ", " + files.get(0) + " as " + keyMode()
              + ": stores merged into one must keep keys alike");
    }
    files.add(store);
    metas.add(meta);
  }

  boolean isEmpty() {
    return metas.isEmpty();
  }

  /** The stores, oldest first. */
  List<StoreFiles> files() {
    return Collections.unmodifiableList(files);
  }

  /** Their metas, in the order of {@link #files()}. */
  List<StoreMeta> metas() {
    return Collections.unmodifiableList(metas);
  }

  /** The hash seed they share, which orders their records and the batch's. */
  long seed() {
    return metas.get(0).seed();
  }

  /** What they keep of their keys (all alike). */
  KeyMode keyMode() {
    return metas.get(0).keyMode();
  }

  /** The newest store, whose layout the new store keeps unless told otherwise. */
  StoreMeta newest() {
    return metas.get(metas.size() - 1);
  }

  /** Their records, together. */
  long records() {
    long records = 0;
    for (StoreMeta meta : metas) {
      records += meta.recordCount();
    }
    return records;
  }

  /** Whether every one holds fixed-size records, all of one key size and one value size. */
  boolean shareOneFixedSize() {
    StoreMeta first = metas.get(0);
    if (!first.isFixedSize()) {
      return false;
    }
    for (StoreMeta meta : metas) {
      if (meta.keyLength() != first.keyLength() || meta.valueLength() != first.valueLength()) {
        return false;
      }
    }
    return true;
  }

  /** Adds to {@code range} the hash range of every store that holds records. */
  void addHashRanges(HashRange.Tracker range) {
    for (StoreMeta meta : metas) {
      if (meta.recordCount() > 0) {
        range.add(meta.hashRange());
      }
    }
  }

  /** Their user metadata, newer entries winning. */
  SortedMap<String, String> userMetadata() {
    SortedMap<String, String> result = new TreeMap<>();
    for (StoreMeta meta : metas) {
      result.putAll(meta.userMetadata());
    }
    return result;
  }
}
