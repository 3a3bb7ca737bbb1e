package io.varve.core.store;

import io.varve.core.index.IndexKind;
import io.varve.core.index.IndexParameters;
import io.varve.core.index.RankIndexBuilder;
import java.io.DataOutput;

/**
 * The index kind of a paged store ({@link PagedLayout}): keys are found through the {@link
 * PageTable} that the data's writer builds as it packs the records into frames, not through a
 * {@link io.varve.core.index.RankIndex} fed with hashes. It has no knobs. Immutable; thread-safe.
 */
public final class PagedParameters implements IndexParameters {
  /** The one instance. */
  public static final PagedParameters INSTANCE = new PagedParameters();

  private PagedParameters() {}

  @Override
  public IndexKind kind() {
    return IndexKind.PAGED;
  }

  /**
   * Never: a paged store's table comes from its data's layout, which hashes alone cannot give.
   *
   * @throws UnsupportedOperationException always
   */
  @Override
  public RankIndexBuilder builder(long keyCount) {
    throw new UnsupportedOperationException("a paged store's page table is built by its data writer, not from hashes");
  }

  /**
   * Never, as {@link #builder}.
   *
   * @throws UnsupportedOperationException always
   */
  @Override
  public RankIndexBuilder builderUpTo(long maxKeyCount) {
    throw new UnsupportedOperationException("a paged store's page table is built by its data writer, not from hashes");
  }

  /** Writes nothing: the kind has no knobs. */
  @Override
  public void writeKnobs(DataOutput out) {}

  @Override
  public String toString() {
    return "PagedParameters";
  }
}
