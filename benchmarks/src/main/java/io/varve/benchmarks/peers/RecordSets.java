package io.varve.benchmarks.peers;

import java.util.Arrays;

/** Views of record sets. Stateless; thread-safe. */
final class RecordSets {
  private RecordSets() {}

  /** The first {@code count} members of {@code records} (all of them when it has fewer). */
  static RecordSet head(RecordSet records, long count) {
    int n = (int) Math.min(count, records.size());
    byte[][] keys = new byte[n][];
    byte[][] values = new byte[n][];
    Arrays.setAll(keys, j -> records.key(j));
    Arrays.setAll(values, j -> records.value(j));
    return new ExplicitRecords(keys, values);
  }
}
