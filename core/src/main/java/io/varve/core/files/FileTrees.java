package io.varve.core.files;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * Directory trees as whole things: deleting one (a store replaced by a merge, a build's scratch
 * space) and copying one. Symbolic links are never followed: a link is deleted or copied as itself.
 * Stateless; thread-safe, but a tree changed by someone else during a call may be left half done.
 */
public final class FileTrees {
  private FileTrees() {}

  /** Deletes {@code root} (a file or a directory with everything below it), if it exists; {@code null}: nothing. */
  public static void deleteTree(Path root) throws IOException {
    if (root == null || !Files.exists(root, LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(root)) {
      for (Path p : (Iterable<Path>) walk.sorted(Comparator.reverseOrder())::iterator) {
        Files.deleteIfExists(p);
      }
    }
  }

  /** Copies the tree {@code from} to {@code to}, creating directories and replacing files that exist. */
  public static void copyTree(Path from, Path to) throws IOException {
    try (Stream<Path> walk = Files.walk(from)) {
      for (Path p : (Iterable<Path>) walk::iterator) {
        Path target = to.resolve(from.relativize(p).toString());
        if (Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
          Files.createDirectories(target);
        } else {
          Files.copy(p, target, StandardCopyOption.REPLACE_EXISTING, LinkOption.NOFOLLOW_LINKS);
        }
      }
    }
  }
}
