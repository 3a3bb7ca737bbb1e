package io.varve.core.files;

import java.io.Closeable;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Sole use of a mutable store's file or directory, held from its open to its close: an exclusive
 * lock on a file, against another process, and a register of the files this process holds,
 * against a second open in this one. Two writers of one store would lose each other's writes:
 * two SILT stores append to one log at their own offsets, two sketches write back pages over each
 * other's counts.
 *
 * <p>The register is consulted first because POSIX releases a process's locks on a file when any
 * of its descriptors of that file closes: a refused open in this process must not open, and then
 * close, the file. The operating system releases the lock of a process that dies.
 *
 * <p>The register is {@link HeldFiles}, the JVM's, not a class loader's: a copy of this class in
 * another loader with a register of its own would open, be refused, and close the file, dropping
 * the other copy's lock.
 *
 * <p>Thread-safe.
 */
public final class ExclusiveUse implements Closeable {
  private final Path file;
  private final String holder;
  private final FileChannel channel;
  private FileLock lock;
  private boolean released;

  private ExclusiveUse(Path file, String holder, FileChannel channel, FileLock lock) {
    this.file = file;
    this.holder = holder;
    this.channel = channel;
    this.lock = lock;
  }

  /**
   * Takes sole use through a lock on {@code file}: a store's own file, or an empty one beside it.
   *
   * @param create whether to create {@code file} if it does not exist (its directory must)
   * @param what the store, for the message: "a SILT store"
   * @throws IllegalStateException if this process or another holds {@code file}
   * @throws java.nio.file.NoSuchFileException if {@code file} does not exist and {@code create} is false
   */
  public static ExclusiveUse acquire(Path file, boolean create, String what) throws IOException {
    Path real = create ? file.getParent().toRealPath().resolve(file.getFileName()) : file.toRealPath();
    String holder = HeldFiles.hold(real, what);
    if (holder == null) {
      throw new IllegalStateException(file + " is open as " + what + " in this process already: close that one first");
    }
    try {
      FileChannel channel = create
          ? FileChannel.open(real, StandardOpenOption.CREATE, StandardOpenOption.WRITE)
          : FileChannel.open(real, StandardOpenOption.WRITE);
      FileLock lock;
      try {
        lock = channel.tryLock();
      } catch (IOException | RuntimeException e) {
        channel.close();
        throw e;
      }
      if (lock == null) {
        channel.close();
        throw new IllegalStateException(file + " is open as " + what + " in another process (" + real + " is locked)");
      }
      return new ExclusiveUse(real, holder, channel, lock);
    } catch (OverlappingFileLockException e) {
      HeldFiles.release(real, holder);
      throw new IllegalStateException(real + " is locked by other code of this process", e);
    } catch (IOException | RuntimeException e) {
      HeldFiles.release(real, holder);
      throw e;
    }
  }

  /**
   * Takes the lock again after a descriptor of the locked file closed in this process (a channel an
   * interrupt closed, then reopened), which released it: POSIX drops a process's locks on a file
   * when any of its descriptors of that file closes, and another process could then open the store.
   *
   * @throws IllegalStateException if another process took the lock meanwhile
   */
  public synchronized void renew() throws IOException {
    if (released) {
      return;
    }
    lock.release(); // this process's record of it; the operating system's is gone
    FileLock renewed = channel.tryLock();
    if (renewed == null) {
      throw new IllegalStateException(file + " was taken by another process while this one reopened it");
    }
    lock = renewed;
  }

  /** Gives up the use; twice does nothing. */
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
      HeldFiles.release(file, holder);
    }
  }
}
