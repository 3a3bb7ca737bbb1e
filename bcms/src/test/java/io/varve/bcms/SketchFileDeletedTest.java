package io.varve.bcms;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A sketch whose file is deleted while it is open: a flush must not report the counts complete
 * and durable. Before, the open channel (and mapping) went on writing and forcing the unlinked
 * file, and flush returned normally though the file, and so every count, was gone.
 */
class SketchFileDeletedTest {
  @TempDir Path dir;

  @ParameterizedTest
  @EnumSource(SketchFileCorruptionTest.Format.class)
  void aFlushAfterTheFileWasDeletedFails(SketchFileCorruptionTest.Format format) throws Exception {
    Path path = dir.resolve("deleted.cms");
    AnySketch sketch = format.create(path);
    try {
      for (long i = 0; i < 1_000; i++) {
        sketch.update(i, 1);
      }
      sketch.flush();
      Files.delete(path);
      sketch.update(7, 1);
      UncheckedIOException refused = assertThrows(UncheckedIOException.class, sketch::flush, format + ": a flush of a deleted file");
      assertTrue(String.valueOf(refused.getCause()).contains("deleted while open"), format + ": " + refused.getCause());
      assertTrue(sketch.estimate(7) >= 2, format + ": estimates go on");
    } finally {
      try {
        sketch.close();
      } catch (UncheckedIOException expected) {
        // the flush failed: the file takes no more changes
      }
    }
  }
}
