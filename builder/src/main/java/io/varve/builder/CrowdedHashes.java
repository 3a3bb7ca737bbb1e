package io.varve.builder;

import io.varve.core.blocked.CrowdedHashesException;

/** What a blocked index that cannot hold the key set means to whoever built or merged it. */
final class CrowdedHashes {
  private CrowdedHashes() {}

  /**
   * The error to give: keys chosen for their hashes (hashes spread evenly otherwise, and a narrow
   * range of them is spread out first) need another seed or an ECT index.
   */
  static IllegalArgumentException explain(CrowdedHashesException e, long seed) {
    return new IllegalArgumentException(
        e.getMessage() + " under hash seed " + seed + ", as keys chosen for their hashes do: build with another seed"
            + " (StoreBuilder.seed) or an ECT index (indexParameters(StoreBuilder.DEFAULT_ECT_INDEX), varve --index ect)",
        e);
  }
}
