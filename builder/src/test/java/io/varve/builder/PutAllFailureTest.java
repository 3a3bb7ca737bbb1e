package io.varve.builder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An input whose iterator breaks off midway, given to {@code putAll}: the builder then refuses to
 * build (a store of part of the input would be published as if complete) and every later put,
 * naming the failure, and close removes what it spilled. Until 2026-11-27 {@code build()} after a
 * {@code putAll} that threw published the 150,000 records read before the failure.
 */
class PutAllFailureTest {
  @TempDir Path parent;

  private static Iterator<Map.Entry<byte[], byte[]>> breakingAfter(int records, RuntimeException failure) {
    return new Iterator<>() {
      private int i;

      @Override
      public boolean hasNext() {
        return true;
      }

      @Override
      public Map.Entry<byte[], byte[]> next() {
        if (i == records) {
          throw failure;
        }
        i++;
        return Map.entry(ByteBuffer.allocate(8).putLong(i * 0x9E37_79B9_7F4A_7C15L).array(), new byte[8]);
      }
    };
  }

  @Test
  void aBrokenInputLeavesTheBuilderUnusable() throws IOException {
    Path target = parent.resolve("store");
    RuntimeException broken = new IllegalStateException("the source broke");
    try (StoreBuilder builder = StoreBuilder.create(target).memoryBudget(2 << 20)) {
      assertSame(broken, assertThrows(IllegalStateException.class, () -> builder.putAll(breakingAfter(150_000, broken))));
      IllegalStateException refused = assertThrows(IllegalStateException.class, builder::build);
      assertEquals(
          "putAll failed after 150000 of its records (java.lang.IllegalStateException: the source broke): the builder holds"
              + " part of its input, so build() cannot make a complete store; close it and start again",
          refused.getMessage());
      assertSame(broken, refused.getCause());
      assertThrows(IllegalStateException.class, () -> builder.put(new byte[1], new byte[1]));
    }
    StoreFiles.assertCleanFailure(target);
    assertEquals(false, Files.exists(target));
  }
}
