package io.varve.core.files;

import java.io.Closeable;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Sole use of a mutable store's directory, held from its open to its close: an exclusive lock on a
 * file in it, against another process, and a register of the directories this process holds,
 * against a second open in this one. Two writers in one directory would append to the same log
 * at their own offsets, and each would delete the other's unpublished files as leftovers.
 *
 * <p>The register comes first because POSIX releases a process's locks on a file when any of its
 * descriptors of that file closes: a second open in the same process must not open, and then close,
 * the lock file. The operating system releases the lock of a process that dies.
 *
 * <p>Thread-safe.
 */
public final class DirectoryLock implements Closeable {
  private static final Set<Path> HELD = ConcurrentHashMap.newKeySet();

  private final Path file;
  private final FileChannel channel;
  private final FileLock lock;
  private boolean released;

  private DirectoryLock(Path file, FileChannel channel, FileLock lock) {
    this.file = file;
    this.channel = channel;
    this.lock = lock;
  }

  /**
   * Locks {@code directory} (which must exist) through its file {@code fileName}, created if
   * missing and never deleted.
   *
   * @param what the kind of store, for the message: "a SILT store"
   * @throws IllegalStateException if this process or another holds the directory
   */
  public static DirectoryLock acquire(Path directory, String fileName, String what) throws IOException {
    Path file = directory.toRealPath().resolve(fileName);
    if (!HELD.add(file)) {
      throw new IllegalStateException(directory + " is open as " + what + " in this process already: close that one first");
    }
    try {
      FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
      FileLock lock;
      try {
        lock = channel.tryLock();
      } catch (IOException | RuntimeException e) {
        channel.close();
        throw e;
      }
      if (lock == null) {
        channel.close();
        throw new IllegalStateException(directory + " is open as " + what + " in another process (" + file + " is locked)");
      }
      return new DirectoryLock(file, channel, lock);
    } catch (OverlappingFileLockException e) {
      HELD.remove(file);
      throw new IllegalStateException(directory + " is locked by other code of this process (" + file + ")", e);
    } catch (IOException | RuntimeException e) {
      HELD.remove(file);
      throw e;
    }
  }

  /** Releases the directory; releasing twice does nothing. */
  @Override
  public synchronized void close() {
    if (released) {
      return;
    }
    released = true;
    try {
      lock.release();
      channel.close();
    } catch (IOException e) {
      // Closing the channel releases the lock in any case; nothing is left to undo.
    } finally {
      HELD.remove(file);
    }
  }
}
