package io.varve.builder;

import static io.varve.builder.SpillDirectories.findPartitions;
import static io.varve.builder.SpillDirectories.list;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.core.files.FileTrees;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A spill that fails on the sort's background thread: the records of its buffer reached the
 * partition files in part. The builder (and a merger, which sorts its batch alike) must then refuse
 * to go on, rather than publish a store without them. Until 2026-11-27 a caller that caught the
 * failed {@code put} and called {@code build()} got a store short of those records.
 */
class SpillFailureTest {
  private static final long MIB = 1 << 20;
  /** The partition whose file a directory takes the place of (a record's partition is its key's first byte). */
  private static final int BLOCKED_PARTITION = 7;

  @TempDir Path parent;

  /** hi's top byte is the key's first byte (the record's partition), the rest its 8-byte number. */
  private static final RecordHasher BY_FIRST_BYTE = (key, offset, length, result) -> {
    long n = ByteBuffer.wrap(key, offset + 1, 8).getLong();
    result[0] = ((long) (key[offset] & 0xFF) << 56) | (n & 0x00FF_FFFF_FFFF_FFFFL);
    result[1] = n * 0x9E37_79B9_7F4A_7C15L;
  };

  private static byte[] key(int partition, long n) {
    return ByteBuffer.allocate(9).put((byte) partition).putLong(n).array();
  }

  @Test
  void buildAfterAFailedSpillIsRefused() throws Exception {
    Path temporary = Files.createDirectory(parent.resolve("tmp"));
    Path target = parent.resolve("store");
    byte[] value = new byte[40];
    long n = 0;
    try (StoreBuilder builder =
        StoreBuilder.create(target)
            .memoryBudget(2 * MIB)
            .temporaryDirectory(temporary)
            .duplicates(DuplicatePolicy.LAST_WINS)
            .hashers(seed -> BY_FIRST_BYTE)) {
      // Fill the first buffer and start its spill: partition 0's file appears.
      while (findPartitions(temporary) == null) {
        builder.put(key(0, n++), value);
      }
      Path partitions = findPartitions(temporary);
      // Partition 7 has no file yet: a directory in its place makes the next spill fail midway.
      Files.createDirectory(partitions.resolve("p" + BLOCKED_PARTITION));
      builder.put(key(BLOCKED_PARTITION, n++), value);
      IOException failed = null;
      while (failed == null) {
        try {
          builder.put(key(0, n), value);
          n++;
        } catch (IOException e) {
          failed = e; // the spill's failure, reported by the put that needed its buffer
        }
      }
      // The disk is fine again; a caller that goes on must not get a store short of records.
      FileTrees.deleteTree(partitions.resolve("p" + BLOCKED_PARTITION));
      long put = n;
      IllegalStateException refused = assertThrows(IllegalStateException.class, builder::build, () -> {
        try {
          return "built " + StoreFiles.readMeta(target).recordCount() + " records of " + put;
        } catch (IOException e) {
          return e.toString();
        }
      });
      assertTrue(refused.getMessage().startsWith("records could not be spilled to disk earlier"), refused.getMessage());
      assertEquals(failed, refused.getCause());
      assertThrows(IllegalStateException.class, () -> builder.put(key(0, put), value));
    }
    StoreFiles.assertCleanFailure(target);
    assertEquals(List.of(), list(temporary));
  }

  /** The merger sorts its batch the same way: a merge after a failed spill is refused alike. */
  @Test
  void mergeAfterAFailedSpillIsRefused() throws Exception {
    Path base = parent.resolve("base");
    try (StoreBuilder builder = StoreBuilder.create(base).hashers(seed -> BY_FIRST_BYTE)) {
      builder.put(key(1, 1), new byte[1]).build();
    }
    Path temporary = Files.createDirectory(parent.resolve("tmp"));
    Path target = parent.resolve("merged");
    byte[] value = new byte[40];
    long n = 0;
    try (StoreMerger merger =
        StoreMerger.create(target).base(base).memoryBudget(2 * MIB).temporaryDirectory(temporary).hashers(seed -> BY_FIRST_BYTE)) {
      while (findPartitions(temporary) == null) {
        merger.put(key(0, n++), value);
      }
      Path partitions = findPartitions(temporary);
      Files.createDirectory(partitions.resolve("p" + BLOCKED_PARTITION));
      merger.put(key(BLOCKED_PARTITION, n++), value);
      IOException failed = null;
      while (failed == null) {
        try {
          merger.delete(key(0, n));
          n++;
        } catch (IOException e) {
          failed = e;
        }
      }
      FileTrees.deleteTree(partitions.resolve("p" + BLOCKED_PARTITION));
      IllegalStateException refused = assertThrows(IllegalStateException.class, merger::merge);
      assertTrue(refused.getMessage().startsWith("records could not be spilled to disk earlier"), refused.getMessage());
      assertEquals(failed, refused.getCause());
    }
    assertEquals(false, Files.exists(target));
    StoreFiles.assertNoLeftovers(parent);
    assertEquals(List.of(), list(temporary));
  }
}
