package io.varve.core.files;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
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
   * Forces {@code directory}'s entries to the device, opening it through {@code opener}. A
   * platform that cannot open a directory (Windows), or a file system that does not sync one
   * ({@code EINVAL}), is taken at its word: the rename or creation alone is then what there is.
   * Any other failure, a failed {@code fsync} above all, is thrown: the entries may be lost, and
   * what they publish must not be relied on.
   *
   * @throws java.nio.file.NoSuchFileException if {@code directory} does not exist
   */
  public static void force(Path directory, Opener opener) throws IOException {
    FileChannel channel;
    try {
      channel = opener.open(directory, StandardOpenOption.READ);
    } catch (NoSuchFileException missing) {
      throw missing;
    } catch (IOException cannotOpenDirectories) {
      return;
    }
    // An interrupted thread's force would close the channel and fail: a store closed by a thread
    // being shut down must still publish its files. The interrupt is set again after.
    boolean interrupted = Thread.interrupted();
    try (channel) {
      channel.force(true);
    } catch (IOException e) {
      if (!refusesToSync(e)) {
        throw e;
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /**
   * Creates {@code directory} and its missing parents, as {@link java.nio.file.Files#createDirectories}
   * does, and forces the parent of each one it creates (through {@code opener}): a new directory's
   * name, like a file's, survives a power loss only once its parent is forced.
   */
  public static void createDirectories(Path directory, Opener opener) throws IOException {
    Path absolute = directory.toAbsolutePath();
    Path existing = absolute;
    while (existing != null && !Files.isDirectory(existing)) {
      existing = existing.getParent();
    }
    Files.createDirectories(absolute);
    for (Path created = absolute; existing != null && !created.equals(existing); created = created.getParent()) {
      force(created.getParent(), opener);
    }
  }

  /** Whether {@code e}, from forcing a directory, says that its file system does not sync directories. */
  private static boolean refusesToSync(IOException e) {
    String message = String.valueOf(e.getMessage());
    return message.contains("Invalid argument") || message.contains("not supported");
  }
}
