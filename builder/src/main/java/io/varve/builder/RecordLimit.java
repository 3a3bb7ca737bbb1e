package io.varve.builder;

import io.varve.core.store.RecordChecksum;
import io.varve.core.store.RecordFormat;

/**
 * The largest record a build or merge takes: its header, key, value and record checksum together
 * at most {@link RecordFormat#MAX_LENGTH} bytes, since the sort's buffers, the writer, a merge
 * reading the store back and every lookup hold a record in one Java array. (The checksum's 4 bytes
 * count also when a store is written without checksums, which a later merge may add.) Stateless.
 */
final class RecordLimit {
  private RecordLimit() {}

  /**
   * Checks a record's key and value lengths (each at least 0).
   *
   * @throws IllegalArgumentException naming both lengths when the record would be too large
   */
  static void check(int keyLength, int valueLength) {
    long bytes = (long) RecordFormat.headerLength(keyLength, valueLength) + keyLength + valueLength + RecordChecksum.BYTES;
    if (bytes > RecordFormat.MAX_LENGTH) {
      throw new IllegalArgumentException(
          "a record of a " + keyLength + "-byte key and a " + valueLength + "-byte value takes " + bytes
              + " bytes with its header and checksum: records are limited to " + RecordFormat.MAX_LENGTH + " bytes");
    }
  }
}
