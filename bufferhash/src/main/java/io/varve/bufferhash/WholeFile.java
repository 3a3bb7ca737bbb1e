package io.varve.bufferhash;

import io.varve.core.format.CorruptStoreException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Reads a file of the table that is read whole on open (a write-ahead segment, the buffers file).
 * Stateless; thread-safe.
 */
final class WholeFile {
  /** The longest array the JVM allocates. */
  static final long MAX_BYTES = Integer.MAX_VALUE - 8;

  private WholeFile() {}

  /**
   * The bytes of {@code file}, a {@code what}.
   *
   * @throws CorruptStoreException if it is longer than an array: no table writes one so long, and
   *     {@link Files#readAllBytes} threw {@link OutOfMemoryError} for it (a file extended under the
   *     table, or a damaged file system)
   */
  static byte[] read(Path file, String what) throws IOException {
    long size = Files.size(file);
    if (size > MAX_BYTES) {
      throw new CorruptStoreException(file + ": " + size + " bytes, longer than any " + what + " (extended or damaged)");
    }
    return Files.readAllBytes(file);
  }
}
