package io.varve.builder;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * How a build, a merge and a re-index publish a store directory: checked before any work
 * ({@link #checkNew}), written into a staging directory beside it ({@link #staging}), forced to disk
 * and renamed to it in one step ({@link #publish}), so that readers see a complete store or none.
 * Stateless; thread-safe.
 */
final class StoreDirectory {
  private StoreDirectory() {}

  /**
   * Checks that a store can be published at {@code target}: it does not exist, its parent does.
   *
   * @throws FileAlreadyExistsException if {@code target} exists
   * @throws NoSuchFileException if its parent directory does not exist
   */
  static void checkNew(Path target) throws IOException {
    if (Files.exists(target, LinkOption.NOFOLLOW_LINKS)) {
      throw new FileAlreadyExistsException(target.toString(), null, "the store directory already exists");
    }
    Path parent = target.getParent();
    if (parent == null || !Files.isDirectory(parent)) {
      throw new NoSuchFileException(String.valueOf(parent), null, "the parent of the store directory does not exist");
    }
  }

  /** Creates an empty staging directory beside {@code target}, to be {@link #publish published} as it. */
  static Path staging(Path target) throws IOException {
    // Not private: the store gets the permissions the umask gives, not 0700.
    return TemporaryDirectories.create(target.toAbsolutePath().getParent(), "." + target.getFileName() + ".staging-", false);
  }

  /** Forces {@code staging} to disk and renames it to {@code target}, which must not exist. */
  static void publish(Path staging, Path target) throws IOException {
    force(staging);
    // rename(2) silently replaces an empty directory and fails on a file with a generic error:
    // check just before it (Java offers no atomic no-replace rename; this narrows the window).
    if (Files.exists(target, LinkOption.NOFOLLOW_LINKS)) {
      throw new FileAlreadyExistsException(target.toString(), null, "the store directory appeared during the build");
    }
    try {
      Files.move(staging, target, StandardCopyOption.ATOMIC_MOVE);
    } catch (FileAlreadyExistsException | DirectoryNotEmptyException e) {
      throw new FileAlreadyExistsException(target.toString(), null, "the store directory appeared during the build");
    }
    TemporaryDirectories.release(staging);
    force(target.toAbsolutePath().getParent());
  }

  /** Forces a directory's entries to disk, where the platform can open a directory. */
  static void force(Path directory) throws IOException {
    try (FileChannel channel = FileChannel.open(directory, StandardOpenOption.READ)) {
      channel.force(true);
    } catch (IOException unsupported) {
      // Some platforms cannot open directories; the files themselves are forced.
    }
  }
}
