package io.varve.builder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.core.store.RecordChecksum;
import io.varve.core.store.RecordFormat;
import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A record one byte over the largest (header, key, value and checksum in {@link
 * RecordFormat#MAX_LENGTH} bytes) is refused with a clear error by the builder and the merger,
 * which stay usable. Until 2026-11-27 the builder checked key and value apart: a 1 GiB key with a
 * 1 GiB value made its length overflow, {@code put} failed with "an empty buffer refused a record"
 * and {@code build()} with an {@code IndexOutOfBoundsException}. One array of 1 GiB serves as both.
 */
class RecordLimitTest {
  /** Key and value lengths whose record, with two 5-byte varints and the checksum, is one byte over. */
  private static final int HALF = (RecordFormat.MAX_LENGTH + 1 - 10 - RecordChecksum.BYTES) / 2;

  @TempDir Path parent;

  @Test
  void oneByteOverTheLargestRecordIsRefused() throws IOException {
    assertEquals(RecordFormat.MAX_LENGTH + 1L, 2L * HALF + RecordFormat.headerLength(HALF, HALF) + RecordChecksum.BYTES);
    byte[] huge = new byte[HALF];
    String expected =
        "a record of a " + HALF + "-byte key and a " + HALF + "-byte value takes " + (RecordFormat.MAX_LENGTH + 1L)
            + " bytes with its header and checksum: records are limited to " + RecordFormat.MAX_LENGTH + " bytes";
    Path base = parent.resolve("base");
    try (StoreBuilder builder = StoreBuilder.create(base)) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> builder.put(huge, huge));
      assertEquals(expected, e.getMessage());
      builder.put(new byte[] {1}, new byte[] {2});
      assertEquals(1, builder.build().meta().recordCount());
    }
    try (StoreMerger merger = StoreMerger.create(parent.resolve("merged")).base(base)) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> merger.put(huge, huge));
      assertEquals(expected, e.getMessage());
      merger.put(new byte[] {3}, new byte[] {4});
      assertEquals(2, merger.merge().meta().recordCount());
    }
    StoreFiles.assertNoLeftovers(parent);
    assertTrue(StoreFiles.read(parent.resolve("merged")).keys().size() == 2);
  }

  /** The limit in lengths alone: a delete's key within a few bytes of it overflowed as a put's record did. */
  @Test
  void theLimitCountsTheHeaderAndTheChecksum() {
    int largestKey = RecordFormat.MAX_LENGTH - RecordFormat.headerLength(RecordFormat.MAX_LENGTH, 0) - RecordChecksum.BYTES;
    RecordLimit.check(largestKey, 0);
    assertThrows(IllegalArgumentException.class, () -> RecordLimit.check(largestKey + 1, 0));
    assertThrows(IllegalArgumentException.class, () -> RecordLimit.check(RecordFormat.MAX_LENGTH, 0));
  }
}
