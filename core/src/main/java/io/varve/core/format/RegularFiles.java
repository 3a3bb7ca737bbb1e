package io.varve.core.format;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * The one check that a file a store reads is a regular file. A FIFO in its place would block the
 * open that reads it for good (and a follower's refresh with it, and a close waiting on that), and
 * a device reads as anything. Stateless; thread-safe.
 */
public final class RegularFiles {
  private RegularFiles() {}

  /**
   * The attributes of {@code file}, following links, once it is known to be a regular file.
   *
   * @param what how the message calls the file when it is not one (e.g. "damaged or hostile store")
   * @throws java.nio.file.NoSuchFileException when it does not exist
   * @throws CorruptStoreException naming the file when it is a FIFO, a device or a directory
   */
  public static BasicFileAttributes attributes(Path file, String what) throws IOException {
    BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class);
    if (!attributes.isRegularFile()) {
      throw new CorruptStoreException(file + ": not a regular file (" + what + ")");
    }
    return attributes;
  }
}
