package io.varve.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** Deleting a directory tree: the scratch directories of {@code varve demo} and of the examples. Stateless; thread-safe. */
public final class FileTrees {
  private FileTrees() {}

  /** Deletes {@code root} and everything under it, if it exists ({@code null}: nothing). */
  public static void deleteTree(Path root) throws IOException {
    if (root == null || !Files.exists(root)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(root)) {
      for (Path p : (Iterable<Path>) walk.sorted(Comparator.reverseOrder())::iterator) {
        Files.delete(p);
      }
    }
  }
}
