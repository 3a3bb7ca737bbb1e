package io.varve.builder;

import io.varve.core.files.FileIdentity;
import io.varve.core.files.FileTrees;
import io.varve.core.files.HeldFiles;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The directories a build, merge or re-index works in before it publishes (spills, a merge's batch,
 * the staging directory renamed to the store), owned by the process that made them so that a later
 * run can remove what a killed one left: {@code kill -9} runs no cleanup code.
 *
 * <p>Each directory {@code D} has a lock file {@code D.lock} beside it (beside, so that a staging
 * directory is renamed to the store without it), locked exclusively by its owner for as long as
 * the directory lives; the operating system drops the lock when the owner dies, however it dies,
 * and a lock cannot be fooled by a reused process id. Before creating one, a run {@link #sweep
 * sweeps} the parent: every directory of a Varve name whose lock it can take is a dead run's and is
 * deleted with its lock file. A directory without a lock file (left by a version before lock files)
 * is deleted once nothing in it has changed for {@link #ORPHAN_AGE}. Locks taken by this process are
 * never probed: on Linux closing any channel of a file drops every lock the process holds on it.
 * This process's locks are known by {@link HeldFiles}, the JVM's register, so that a copy of this
 * class in another class loader does not probe them either. A lock file is unlocked for a moment
 * after its creation, when another process's sweep may take it for a dead run's: its creator checks
 * after locking that the file is still in place, else starts again under another name, so that no
 * directory is made without its lock.
 *
 * <p>Names: {@code .varve-build-*}, {@code .varve-merge-*} and {@code .NAME.staging-*}, nothing
 * else is ever touched. Thread-safe.
 */
final class TemporaryDirectories {
  /** How long a directory of a Varve name without a lock file must be left untouched to be removed. */
  static final Duration ORPHAN_AGE = Duration.ofHours(1);

  private static final Pattern OURS = Pattern.compile("\\.varve-(build|merge)-[0-9a-f]+|\\..+\\.staging-[0-9a-f]+");
  private static final String LOCK_SUFFIX = ".lock";

  /** A lock this class holds: its channel, and its entry in {@link HeldFiles}. */
  private record Owned(FileChannel channel, Path lockFile, String token) {}

  /**
   * Called with a new lock file between its creation and its locking: a seam for tests, which
   * run another process's sweep there.
   */
  static volatile Consumer<Path> lockFileCreated = lockFile -> {};

  /** The locks this copy of the class holds, by the directory they guard. */
  private static final Map<Path, Owned> OWNED = new ConcurrentHashMap<>();

  private static final Pattern WORKSPACE = Pattern.compile("\\.varve-(build|merge)-[0-9a-f]+");

  private TemporaryDirectories() {}

  /** Whether {@code name} is that of a build's or merge's temporary directory (its spills). */
  static boolean isWorkspace(String name) {
    return WORKSPACE.matcher(name).matches();
  }

  /** Whether {@code name} is that of a staging directory (a store being written). */
  static boolean isStaging(String name) {
    return OURS.matcher(name).matches() && !isWorkspace(name);
  }

  /**
   * Creates directory {@code parent/prefix<random hex>} ({@code prefix} must be one of the names
   * above), owned by this process, after removing what dead runs left in {@code parent}.
   *
   * @param private_ whether only this user may read it (spills of the user's records), else it gets
   *     the permissions the umask gives (a staging directory becomes the store)
   */
  static Path create(Path parent, String prefix, boolean private_) throws IOException {
    sweep(parent);
    while (true) {
      Path directory = parent.resolve(prefix + Long.toHexString(ThreadLocalRandom.current().nextLong() >>> 1));
      if (!OURS.matcher(directory.getFileName().toString()).matches()) {
        throw new IllegalArgumentException("not a temporary directory name of Varve: " + directory.getFileName());
      }
      Path lockFile = heldKey(directory);
      // Registered before the file exists: a sweep in this JVM then never opens it.
      String token = HeldFiles.hold(lockFile, "a temporary directory of a build");
      if (token == null) {
        continue;
      }
      FileChannel lock;
      try {
        lock = FileChannel.open(lockFile, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
      } catch (IOException | RuntimeException e) {
        HeldFiles.release(lockFile, token);
        if (e instanceof FileAlreadyExistsException) {
          continue;
        }
        if (e instanceof IOException io) {
          throw FullDisk.named(io, directory);
        }
        throw e;
      }
      OWNED.put(key(directory), new Owned(lock, lockFile, token));
      try {
        if (!lockedInPlace(lock, lockFile)) {
          // Another process's sweep took the new lock file, not locked yet, for a dead run's and
          // deleted it (or is about to): a directory made now would lie there without its lock.
          OWNED.remove(key(directory));
          try {
            lock.close();
          } finally {
            HeldFiles.release(lockFile, token);
          }
          continue;
        }
        if (private_ && parent.getFileSystem().supportedFileAttributeViews().contains("posix")) {
          Files.createDirectory(directory, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        } else {
          Files.createDirectory(directory);
        }
        return directory;
      } catch (IOException | RuntimeException e) {
        release(directory);
        if (e instanceof IOException io) {
          throw FullDisk.named(io, directory);
        }
        throw e;
      }
    }
  }

  /**
   * Locks the lock file just created as {@code lockFile} through {@code lock}, and tells whether
   * {@code lockFile} still names the file locked. Between its creation and its lock, the file is
   * unlocked for all to see: a sweep in another process may take the lock first (it then deletes
   * the file), or take it, delete the file and let go before this lock, which then holds a file
   * no longer there. A sweep can delete a lock file only while holding its lock, so once this lock
   * is held and the file is still in place, it stays.
   */
  private static boolean lockedInPlace(FileChannel lock, Path lockFile) throws IOException {
    FileIdentity created;
    try {
      created = FileIdentity.of(lockFile);
    } catch (NoSuchFileException deleted) {
      return false;
    }
    lockFileCreated.accept(lockFile);
    if (lock.tryLock() == null) {
      return false; // held by a sweep, which deletes it
    }
    return created.stillNamed();
  }

  /**
   * Gives up ownership of {@code directory} (after it was renamed away, or deleted): unlocks and
   * deletes its lock file. Does nothing for a directory this process does not own.
   */
  static void release(Path directory) throws IOException {
    Owned owned = OWNED.remove(key(directory));
    if (owned != null) {
      // Delete first, then unlock: a sweeper that takes the lock meanwhile finds nothing to remove.
      try {
        Files.deleteIfExists(owned.lockFile());
        owned.channel().close();
      } finally {
        HeldFiles.release(owned.lockFile(), owned.token());
      }
    }
  }

  /** Deletes {@code directory} and everything in it, then {@link #release releases} it. */
  static void delete(Path directory) throws IOException {
    if (directory == null) {
      return;
    }
    try {
      FileTrees.deleteTree(directory);
    } finally {
      release(directory);
    }
  }

  /**
   * Removes from {@code parent} what dead runs left: directories of a Varve name whose lock is free
   * (or that have no lock file and were not touched for {@link #ORPHAN_AGE}), and lock files
   * without a directory. Returns how many directories it removed.
   */
  static int sweep(Path parent) throws IOException {
    int removed = 0;
    try (Stream<Path> entries = Files.list(parent)) {
      for (Path entry : (Iterable<Path>) entries::iterator) {
        String name = entry.getFileName().toString();
        if (name.endsWith(LOCK_SUFFIX)) {
          Path directory = parent.resolve(name.substring(0, name.length() - LOCK_SUFFIX.length()));
          if (ours(directory) && !Files.exists(directory)) {
            removeIfDead(directory); // a lock file whose directory is gone
          }
        } else if (ours(entry) && Files.isDirectory(entry)) {
          if (Files.exists(lockOf(entry))) {
            removed += removeIfDead(entry) ? 1 : 0;
          } else if (untouchedSince(entry, Instant.now().minus(ORPHAN_AGE))) {
            FileTrees.deleteTree(entry);
            removed++;
          }
        }
      }
    } catch (NoSuchFileException parentGone) {
      return removed;
    }
    return removed;
  }

  /** Whether {@code directory} has a Varve name and is not this process's own. */
  private static boolean ours(Path directory) throws IOException {
    return OURS.matcher(directory.getFileName().toString()).matches() && !HeldFiles.isHeld(heldKey(directory));
  }

  /** Deletes {@code directory} and its lock file if no live process holds the lock. */
  private static boolean removeIfDead(Path directory) throws IOException {
    Path lockPath = lockOf(directory);
    FileChannel channel;
    try {
      channel = FileChannel.open(lockPath, StandardOpenOption.WRITE);
    } catch (NoSuchFileException gone) {
      return false; // its owner finished meanwhile
    }
    try (channel) {
      FileLock lock;
      try {
        lock = channel.tryLock();
      } catch (OverlappingFileLockException heldHere) {
        return false;
      }
      if (lock == null) {
        return false; // a live owner
      }
      boolean existed = Files.exists(directory);
      FileTrees.deleteTree(directory);
      Files.deleteIfExists(lockPath);
      return existed;
    }
  }

  private static boolean untouchedSince(Path directory, Instant limit) throws IOException {
    try (Stream<Path> walk = Files.walk(directory)) {
      return walk.allMatch(p -> lastModified(p).toInstant().isBefore(limit));
    } catch (java.io.UncheckedIOException changing) {
      return false;
    }
  }

  private static FileTime lastModified(Path path) {
    try {
      return Files.getLastModifiedTime(path);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static Path lockOf(Path directory) {
    return directory.resolveSibling(directory.getFileName() + LOCK_SUFFIX);
  }

  private static Path key(Path directory) {
    return directory.toAbsolutePath().normalize();
  }

  /** {@code directory}'s lock file as {@link HeldFiles} knows it: the same for every spelling of the parent. */
  private static Path heldKey(Path directory) throws IOException {
    Path lockFile = lockOf(directory.toAbsolutePath());
    return lockFile.getParent().toRealPath().resolve(lockFile.getFileName());
  }

}
