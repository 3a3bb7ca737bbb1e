package io.varve.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/** The scratch directories of the whole-process harnesses. Stateless; thread-safe. */
public final class WorkDirectory {
  private WorkDirectory() {}

  /** Bytes of all the files under {@code dir} (or of {@code dir} when it is a file). */
  public static long treeBytes(Path dir) throws IOException {
    try (Stream<Path> walk = Files.walk(dir)) {
      long bytes = 0;
      for (Path p : (Iterable<Path>) walk::iterator) {
        if (Files.isRegularFile(p)) {
          bytes += Files.size(p);
        }
      }
      return bytes;
    }
  }

  /** Bytes of the files directly in {@code dir}. */
  static long bytes(Path dir) throws IOException {
    long bytes = 0;
    try (Stream<Path> files = Files.list(dir)) {
      for (Path file : (Iterable<Path>) files::iterator) {
        bytes += Files.size(file);
      }
    }
    return bytes;
  }
}
