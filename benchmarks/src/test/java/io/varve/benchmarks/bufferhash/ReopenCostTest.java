package io.varve.benchmarks.bufferhash;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The harness reads every key back after the reopen, which writes the buffers out and removes their file. */
class ReopenCostTest {
  @TempDir Path temp;

  @Test
  void theReopenKeepsEveryKeyAndWritesTheBuffersOut() throws Exception {
    ReopenCost.Reopen reopen = ReopenCost.run(temp.resolve("table"), 50_000);
    assertTrue(reopen.flushes() > 0, "the reopen wrote no incarnations: " + reopen);
    assertFalse(reopen.buffersFileLeft(), "the buffers file is still there: " + reopen);
  }
}
