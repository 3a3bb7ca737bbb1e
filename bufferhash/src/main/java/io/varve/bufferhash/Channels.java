package io.varve.bufferhash;

import io.varve.core.files.DirectoryEntries;
import io.varve.core.files.InterruptSafeFile;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Opens the channels of a table's files (its log, state and write-ahead segments) and of its
 * directory, through one hook that tests replace with channels that fail as a full disk or a
 * failing device does, or that remember what a power loss would undo. Thread-safe.
 */
final class Channels {
  /** How a file is opened. */
  interface Opener {
    FileChannel open(Path file, OpenOption... options) throws IOException;
  }

  /** {@link FileChannel#open}; changed only by tests, between tables. */
  static volatile Opener opener = FileChannel::open;

  private Channels() {}

  static FileChannel open(Path file, OpenOption... options) throws IOException {
    return opener.open(file, options);
  }

  /**
   * Opens {@code file} for reading and writing (with {@code extra} options too, such as {@code
   * CREATE_NEW}), through the hook, as a file no thread's interrupt closes for the others.
   */
  static InterruptSafeFile openShared(Path file, OpenOption... extra) throws IOException {
    OpenOption[] options = new OpenOption[extra.length + 2];
    options[0] = StandardOpenOption.READ;
    options[1] = StandardOpenOption.WRITE;
    System.arraycopy(extra, 0, options, 2, extra.length);
    return InterruptSafeFile.open(opener::open, file, options, StandardOpenOption.READ, StandardOpenOption.WRITE);
  }

  /**
   * Forces {@code directory}'s entries to the device, through the hook: a file created or renamed
   * there survives a power loss only once this returns.
   */
  static void forceDirectory(Path directory) throws IOException {
    DirectoryEntries.force(directory, opener::open);
  }

  /** Creates {@code directory} and its missing parents, each one's name forced into its parent, through the hook. */
  static void createDirectories(Path directory) throws IOException {
    DirectoryEntries.createDirectories(directory, opener::open);
  }
}
