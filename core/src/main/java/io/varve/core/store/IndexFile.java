package io.varve.core.store;

import io.varve.core.blocked.BlockedIndex;
import io.varve.core.blocked.BlockedIndexParameters;
import io.varve.core.ect.BlockBoundaries;
import io.varve.core.ect.EctIndex;
import io.varve.core.format.CorruptStoreException;
import io.varve.core.index.IndexParameters;
import io.varve.core.index.RankIndex;
import java.io.IOException;
import java.io.InputStream;

/**
 * Reads the {@link StoreFile#INDEX index} file's payload: the serialized index of the kind the meta
 * file names ({@code EctIndex} or {@code BlockedIndex}, each with its own magic, version and
 * checksum). Stateless and thread-safe.
 */
public final class IndexFile {
  private IndexFile() {}

  /**
   * Reads the index that {@code meta} describes and checks that it matches it: its kind and knobs,
   * and one rank per record.
   *
   * @param blocks the block boundaries of a sparse store (its index is an ECT index of blocks), or
   *     null for a dense one
   * @throws CorruptStoreException when the payload is damaged, of another kind, or does not match
   *     the meta file
   */
  public static RankIndex readFrom(InputStream in, StoreMeta meta, BlockBoundaries blocks) throws IOException {
    IndexParameters expected = meta.indexParameters();
    RankIndex index =
        expected instanceof BlockedIndexParameters ? BlockedIndex.readFrom(in) : EctIndex.readFrom(in, blocks);
    CorruptStoreException.check(
        index.size() == meta.recordCount() && index.parameters().equals(expected),
        "index of " + index.size() + " keys with " + index.parameters() + " does not match the meta file ("
            + meta.recordCount() + " records, " + expected + ")");
    return index;
  }
}
