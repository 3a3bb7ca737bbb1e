package io.varve.reader;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.builder.StoreArtifacts;
import io.varve.builder.StoreBuilder;
import io.varve.core.testing.TestRecords;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link Store#verify()} in a loop holds no more direct memory than one call: each call took a new
 * direct buffer of up to 1 MiB per file (and one more for an artifact's ZIP check), which only a
 * garbage collection frees. A process whose heap stays quiet, run with {@code
 * -XX:+DisableExplicitGC} (so that the JDK cannot collect when direct memory runs out), failed its
 * 229th verify of a 1,000-record store, and its first of the artifact, with {@code
 * OutOfMemoryError: Cannot reserve ... bytes of direct buffer memory} under a 16 MiB limit.
 */
class VerifyDirectMemoryTest {
  private static final int VERIFIES = 40;

  @TempDir Path temp;

  @Test
  void verifyingAgainAndAgainHoldsNoMoreDirectMemory() throws IOException {
    Path dir = temp.resolve("store");
    Map<ByteBuffer, byte[]> records = TestRecords.variable(1_000, 0xD1EC7L, 16, 100);
    try (StoreBuilder builder = StoreBuilder.create(dir)) {
      for (Map.Entry<ByteBuffer, byte[]> e : records.entrySet()) {
        builder.put(e.getKey().array(), e.getValue());
      }
      builder.build();
    }
    Path artifact = temp.resolve("store.varve");
    StoreArtifacts.pack(dir, artifact);
    for (Path path : new Path[] {dir, artifact}) {
      try (Store store = Store.open(path)) {
        store.verify(); // a first call may take the JDK's per-thread buffer for channel reads
        long before = DirectBuffers.usedBytes();
        for (int i = 0; i < VERIFIES; i++) {
          store.verify();
        }
        long grown = DirectBuffers.usedBytes() - before;
        assertTrue(grown < 2 << 20, path + ": " + VERIFIES + " verifies left " + grown + " bytes of direct buffers to the GC");
      }
    }
  }
}
