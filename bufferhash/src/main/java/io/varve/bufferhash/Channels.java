package io.varve.bufferhash;

import io.varve.core.files.DirectoryEntries;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.OpenOption;
import java.nio.file.Path;

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
