package io.varve.bcms;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A new sketch file's name is made durable (its directory forced, after the file exists) before
 * create returns: forcing the file alone does not keep its name through a power loss on every
 * file system, and a sketch that later closed cleanly would then be gone.
 */
class SketchFileDirectoryTest {
  @TempDir Path dir;

  @ParameterizedTest
  @EnumSource(SketchFileCorruptionTest.Format.class)
  void createForcesTheDirectoryOnceTheFileExists(SketchFileCorruptionTest.Format format) throws Exception {
    Path path = dir.resolve("sketch.cms");
    List<String> forced = new ArrayList<>();
    SketchFileHandle.DirectorySync real = SketchFileHandle.directorySync;
    SketchFileHandle.directorySync =
        directory -> {
          forced.add(directory + (Files.exists(path) ? " with the file" : " without the file"));
          real.force(directory);
        };
    try (AnySketch sketch = format.create(path)) {
      assertEquals(List.of(dir.toAbsolutePath() + " with the file"), forced, format + ": directory forces during create");
    } finally {
      SketchFileHandle.directorySync = real;
    }
  }
}
