package io.varve.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The scale run checks what it built, and counts what it checked. */
class ScaleRunTest {
  @TempDir Path temp;

  @Test
  void checksSampledAndAbsentKeys() throws Exception {
    ScaleRun.Result result = ScaleRun.run(100_000, temp.resolve("store"), 1_000);
    assertEquals(100_000, result.records());
    assertEquals(1_000, result.checked());
    assertEquals(1_000, result.absent());
    assertTrue(result.storeBytes() > 100_000 * 24L, "store holds every record's 24 bytes");
    assertTrue(result.memoryBitsPerKey() > 0 && result.memoryBitsPerKey() < 8, "bits/key " + result.memoryBitsPerKey());
  }

  @Test
  void emptyRunBuildsAnEmptyStore() throws Exception {
    ScaleRun.Result result = ScaleRun.run(0, temp.resolve("empty"), 1_000);
    assertEquals(0, result.checked());
    assertEquals(1_000, result.absent());
  }

  @Test
  void refusesAnExistingDirectory() throws IOException {
    Path existing = Files.createDirectories(temp.resolve("there"));
    assertThrows(IllegalArgumentException.class, () -> ScaleRun.run(10, existing, 10));
  }
}
