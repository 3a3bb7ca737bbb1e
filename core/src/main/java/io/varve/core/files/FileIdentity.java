package io.varve.core.files;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Objects;

/**
 * Which file a path named when a store opened it, to check that the path still names it: an open
 * channel keeps writing and forcing a file that was deleted (its directory with it) or replaced
 * under the store, and a sync that forced only such a file makes nothing durable that a reopen
 * would find. One {@code stat} per check. Immutable; thread-safe.
 */
public final class FileIdentity {
  private final Path path;
  /** The file system's key of the file (an inode on POSIX), or null where it has none. */
  private final Object key;

  private FileIdentity(Path path, Object key) {
    this.path = path;
    this.key = key;
  }

  /** The file {@code path} names now. */
  public static FileIdentity of(Path path) throws IOException {
    return new FileIdentity(path, Files.readAttributes(path, BasicFileAttributes.class).fileKey());
  }

  /**
   * Whether the path still names the file it named when this was made: false once it was deleted
   * (or its directory was) or names another file. Where the file system has no file keys, its
   * being there has to do.
   */
  public boolean stillNamed() throws IOException {
    try {
      return key == null || key.equals(Files.readAttributes(path, BasicFileAttributes.class).fileKey());
    } catch (NoSuchFileException e) {
      return false;
    }
  }

  /**
   * Throws unless the path still names the file it named when this was made.
   *
   * @throws IOException naming the path, if it was deleted (or its directory) or now names another file
   */
  public void check() throws IOException {
    Object now;
    try {
      now = Files.readAttributes(path, BasicFileAttributes.class).fileKey();
    } catch (NoSuchFileException e) {
      throw new IOException(path + " was deleted while open (or its directory was): what was written to it since"
          + " is not in the directory, and a reopen will not find it", e);
    }
    if (key != null && !Objects.equals(key, now)) {
      throw new IOException(path + " was replaced by another file while open: what was written to it since is not"
          + " in the file the path names, and a reopen will not find it");
    }
  }
}
