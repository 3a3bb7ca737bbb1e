package io.varve.core.files;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Makes a directory's entries durable. A file created or renamed in a directory survives a power
 * loss only once the directory itself is forced: forcing the file does not make its name durable
 * on every file system. Stateless; thread-safe.
 */
public final class DirectoryEntries {
  /** How the directory's channel is opened: {@code FileChannel::open}, or a test's hook. */
  @FunctionalInterface
  public interface Opener {
    FileChannel open(Path path, OpenOption... options) throws IOException;
  }

  private DirectoryEntries() {}

  /** Forces {@code directory}'s entries to the device. */
  public static void force(Path directory) throws IOException {
    force(directory, FileChannel::open);
  }

  /**
   * Forces {@code directory}'s entries to the device, opening it through {@code opener}. Where a
   * directory cannot be opened (not Linux), returns: the rename or creation alone is then what
   * there is. A failed force is thrown.
   */
  public static void force(Path directory, Opener opener) throws IOException {
    FileChannel channel;
    try {
      channel = opener.open(directory, StandardOpenOption.READ);
    } catch (IOException unsupported) {
      return;
    }
    try (channel) {
      channel.force(true);
    }
  }
}
