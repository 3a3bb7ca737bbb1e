package io.varve.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

/**
 * What {@code varve merge} should produce from a base and its batch files, computed on maps: the
 * last operation on a key wins, upserts before deletes. Test support; not thread-safe.
 */
final class MergeModel {
  /** One batch operation: a put when {@code value} is not null, else a delete. */
  record Op(String key, String value) {}

  final List<Op> upserts;
  final List<Op> deletes;
  final Map<String, String> expected;
  final Map<String, String> lastOperation = new LinkedHashMap<>();
  long inserted;
  long replaced;
  long deleted;
  long absentDeletes;
  /** Operations that a later one on the same key overrode: all but the last per key. */
  final long overridden;

  MergeModel(Map<String, String> base, List<Op> upserts, List<Op> deletes) {
    this.upserts = upserts;
    this.deletes = deletes;
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

  /** {@code size} records {@code key0}, {@code key1}, ... with random values: a base for {@link #randomBatch}. */
  static Map<String, String> randomBase(Random random, int size) {
    Map<String, String> base = new TreeMap<>();
    for (int i = 0; i < size; i++) {
      base.put("key" + i, "old" + random.nextInt(1_000_000));
    }
    return base;
  }

  /**
   * Random batches over a {@link #randomBase}: keys drawn from twice the base's range, so that
   * about half exist and half are new. Some repeat within a file, and a quarter of the deletes
   * hit a key that is upserted too, so that "last operation wins" and "upserts before deletes"
   * are both exercised.
   */
  static MergeModel randomBatch(Map<String, String> base, Random random, int upsertCount, int deleteCount) {
    int range = 2 * base.size();
    List<Op> upserts = new ArrayList<>();
    for (int i = 0; i < upsertCount; i++) {
      upserts.add(new Op("key" + random.nextInt(range), "new" + random.nextInt(1_000_000)));
    }
    List<Op> deletes = new ArrayList<>();
    for (int i = 0; i < deleteCount; i++) {
      String key = random.nextInt(4) == 0 ? upserts.get(random.nextInt(upserts.size())).key() : "key" + random.nextInt(range);
      deletes.add(new Op(key, null));
    }
    return new MergeModel(base, upserts, deletes);
  }

  /** The upserts as TSV lines. */
  String upsertsTsv() {
    StringBuilder tsv = new StringBuilder();
    upserts.forEach(op -> tsv.append(op.key()).append('\t').append(op.value()).append('\n'));
    return tsv.toString();
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
