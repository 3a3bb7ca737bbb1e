package io.varve.cli;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What {@code varve merge} should produce from a base and its batch files, computed on maps: the
 * last operation on a key wins, upserts before deletes. Test support; not thread-safe.
 */
final class MergeModel {
  /** One batch operation: a put when {@code value} is not null, else a delete. */
  record Op(String key, String value) {}

  final Map<String, String> expected;
  final Map<String, String> lastOperation = new LinkedHashMap<>();
  long inserted;
  long replaced;
  long deleted;
  long absentDeletes;
  /** Operations that a later one on the same key overrode: all but the last per key. */
  final long overridden;

  MergeModel(Map<String, String> base, List<Op> upserts, List<Op> deletes) {
    upserts.forEach(op -> lastOperation.put(op.key(), op.value()));
    deletes.forEach(op -> lastOperation.put(op.key(), null));
    overridden = upserts.size() + deletes.size() - lastOperation.size();
    expected = new TreeMap<>(base);
    for (Map.Entry<String, String> e : lastOperation.entrySet()) {
      boolean old = base.containsKey(e.getKey());
      if (e.getValue() == null) {
        expected.remove(e.getKey());
        deleted += old ? 1 : 0;
        absentDeletes += old ? 0 : 1;
      } else {
        expected.put(e.getKey(), e.getValue());
        replaced += old ? 1 : 0;
        inserted += old ? 0 : 1;
      }
    }
  }

  long overridden() {
    return overridden;
  }

  /** The counts as the merge command prints them. */
  String countsLine() {
    return String.format(
        "%,d records (%,d inserted, %,d replaced, %,d deleted, %,d deletes of absent keys, 0 superseded)",
        expected.size(), inserted, replaced, deleted, absentDeletes);
  }
}
