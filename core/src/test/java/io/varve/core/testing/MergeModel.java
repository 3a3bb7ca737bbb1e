package io.varve.core.testing;

import java.nio.ByteBuffer;
import java.util.Map;

/**
 * A plain map as the model of a merge, for the tests that check what a merger reports: a batch
 * applied to the old records, and its effects counted as a merge summary counts them.
 */
public final class MergeModel {
  private MergeModel() {}

  /** What a batch did to the old records. */
  public record Counts(long inserted, long replaced, long deleted, long absentDeletes) {}

  /**
   * Applies {@code lastOperations} (each key's last operation in the batch: its value, or null for
   * a delete) to {@code records}, the old store's, and counts what it did.
   */
  public static Counts apply(Map<ByteBuffer, byte[]> records, Map<ByteBuffer, byte[]> lastOperations) {
    long inserted = 0;
    long replaced = 0;
    long deleted = 0;
    long absentDeletes = 0;
    for (Map.Entry<ByteBuffer, byte[]> e : lastOperations.entrySet()) {
      boolean wasThere = records.containsKey(e.getKey());
      if (e.getValue() == null) {
        records.remove(e.getKey());
        if (wasThere) {
          deleted++;
        } else {
          absentDeletes++;
        }
      } else {
        records.put(e.getKey(), e.getValue());
        if (wasThere) {
          replaced++;
        } else {
          inserted++;
        }
      }
    }
    return new Counts(inserted, replaced, deleted, absentDeletes);
  }
}
