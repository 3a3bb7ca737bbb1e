package io.varve.builder;

import io.varve.core.store.KeyMode;

/**
 * The smallest and largest key and value lengths of the records seen: whether a store can be
 * written with fixed-size records (no offsets file). Not thread-safe.
 */
final class RecordShape {
  private long records;
  private int minKeyLength = Integer.MAX_VALUE;
  private int maxKeyLength = -1;
  private int minValueLength = Integer.MAX_VALUE;
  private int maxValueLength = -1;

  void add(int keyLength, int valueLength) {
    records++;
    minKeyLength = Math.min(minKeyLength, keyLength);
    maxKeyLength = Math.max(maxKeyLength, keyLength);
    minValueLength = Math.min(minValueLength, valueLength);
    maxValueLength = Math.max(maxValueLength, valueLength);
  }

  /** Whether there were records, all of one size as stored under {@code mode} (which may drop keys). */
  boolean isFixed(KeyMode mode) {
    boolean keysOfOneLength = !mode.keepsKeys() || minKeyLength == maxKeyLength;
    return records > 0 && keysOfOneLength && minValueLength == maxValueLength;
  }

  /** Whether every record (if any) has these lengths; key lengths count only when {@code keysKept}. */
  boolean allHave(int keyLength, int valueLength, boolean keysKept) {
    boolean keysFit = !keysKept || (minKeyLength == keyLength && maxKeyLength == keyLength);
    return records == 0 || (keysFit && minValueLength == valueLength && maxValueLength == valueLength);
  }

  int minKeyLength() {
    return minKeyLength;
  }

  int minValueLength() {
    return minValueLength;
  }
}
