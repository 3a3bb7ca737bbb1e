package io.varve.builder;

import io.varve.core.files.DirectoryEntries;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * How a build, a merge and a re-index publish a store directory: checked before any work
 * ({@link #checkNew}), written into a staging directory beside it ({@link #staging}), forced to disk
 * and renamed to it in one step ({@link #publish}), so that readers see a complete store or none.
 * Stateless; thread-safe.
 */
final class StoreDirectory {
  /** How a directory is opened to be forced; tests replace it to fail an {@code fsync}. */
  static volatile DirectoryEntries.Opener directoryOpener = FileChannel::open;

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

  /**
   * The bytes of {@code target}'s name kept in its staging directory's name: a file name has at
   * most 255 bytes on common file systems, and the staging name adds a dot, {@code .staging-}, up
   * to 16 hex digits and its lock file's {@code .lock} (31 bytes).
   */
  static final int STAGING_NAME_BYTES = 255 - 31;

  /** Creates an empty staging directory beside {@code target}, to be {@link #publish published} as it. */
  static Path staging(Path target) throws IOException {
    // Not private: the store gets the permissions the umask gives, not 0700.
    String name = utf8Prefix(target.getFileName().toString(), STAGING_NAME_BYTES);
    return TemporaryDirectories.create(target.toAbsolutePath().getParent(), "." + name + ".staging-", false);
  }

  /** The longest prefix of {@code name} of at most {@code maxBytes} bytes in UTF-8, whole characters only. */
  static String utf8Prefix(String name, int maxBytes) {
    int bytes = 0;
    int end = 0;
    while (end < name.length()) {
      int codePoint = name.codePointAt(end);
      int length = codePoint < 0x80 ? 1 : codePoint < 0x800 ? 2 : codePoint < 0x10000 ? 3 : 4;
      if (bytes + length > maxBytes) {
        break;
      }
      bytes += length;
      end += Character.charCount(codePoint);
    }
    return name.substring(0, end);
  }

  /**
   * Forces {@code staging} to disk and renames it to {@code target}, which must not exist.
   *
   * @throws IOException if forcing {@code staging} fails (nothing is published), or if forcing
   *     {@code target}'s parent after the rename fails: the store is then complete at {@code
   *     target}, but its name may not survive a power loss, and the message says so
   */
  static void publish(Path staging, Path target) throws IOException {
    try {
      force(staging);
    } catch (IOException e) {
      throw FullDisk.named(e, staging); // some file systems report a full disk only when forced
    }
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
    forceName(target);
  }

  /**
   * Forces a directory's entries to disk, as {@link DirectoryEntries#force(Path,
   * DirectoryEntries.Opener)} does: a failed {@code fsync} is thrown, never taken for success.
   */
  static void force(Path directory) throws IOException {
    DirectoryEntries.force(directory, directoryOpener);
  }

  /** Forces the parent of {@code published}, just renamed or linked there, so that its name is durable. */
  static void forceName(Path published) throws IOException {
    try {
      force(published.toAbsolutePath().getParent());
    } catch (IOException e) {
      throw new IOException(
          published + " is complete, but its name could not be forced to disk and may not survive a power loss: " + e.getMessage(), e);
    }
  }
}
