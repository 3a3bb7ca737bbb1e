package io.varve.core.store;

import io.varve.core.files.FileReadInterrupted;
import io.varve.core.format.RegularFiles;
import io.varve.core.files.DirectoryEntries;
import io.varve.core.files.FileTrees;
import io.varve.core.format.CorruptStoreException;
import io.varve.core.shard.ShardManifest;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystemException;
import java.nio.file.LinkOption;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A directory of numbered store versions and a pointer to the one to serve: the way a batch job
 * ships its outputs to serving hosts. The batch job builds each new version into {@link
 * #newVersion()} and {@link #publish}es it; readers follow {@link #current()} (the reader module's
 * {@code FollowingStore} reopens on change, {@code FollowingShardedStore} for sharded versions);
 * {@link #rollback()} points back to the version before.
 *
 * <pre>
 * root/
 *   v0000000001/        a complete store directory (published by StoreBuilder's atomic rename)
 *   v0000000002/        or a sharded store: its {@value ShardManifest#FILE_NAME} and shards
 *   CURRENT             the name of the version to serve, then a newline (UTF-8)
 * </pre>
 *
 * {@code CURRENT} is replaced atomically: written to a temporary file, forced to disk, renamed over
 * the old one. A reader sees the old pointer or the new one, never a partial one, and a published
 * version is complete (only complete store directories can be published). Safe for any number of
 * readers; publishing, rolling back and deleting assume one writer at a time (the batch job).
 * Instances are immutable and thread-safe.
 */
public final class StoreRoot {
  /** The pointer file's name. */
  public static final String CURRENT = "CURRENT";

  private static final Pattern VERSION = Pattern.compile("v\\d{10}");
  /** The prefix of a version being deleted: renamed so, then deleted ({@link #delete}). */
  private static final String DELETING = ".deleting-";
  /** The length of a pointer file: a version name and a newline. */
  private static final int POINTER_BYTES = 12;

  /** How a directory is opened to be forced; tests replace it to fail an {@code fsync}. */
  static volatile DirectoryEntries.Opener directoryOpener = FileChannel::open;

  private final Path root;

  private StoreRoot(Path root) {
    this.root = root;
  }

  /**
   * The root at {@code directory}, created (with its parents, each name forced to disk) if it does
   * not exist.
   */
  public static StoreRoot open(Path directory) throws IOException {
    DirectoryEntries.createDirectories(directory, directoryOpener);
    return new StoreRoot(directory);
  }

  /**
   * The root at {@code directory}, which must exist: for readers, which create nothing (a reader
   * given a mistyped path, or one on a read-only mount, must not make directories there).
   *
   * @throws NoSuchFileException when {@code directory} is not a directory
   */
  public static StoreRoot existing(Path directory) throws IOException {
    if (!Files.isDirectory(directory)) {
      throw new NoSuchFileException(directory.toString(), null, "no store root (not a directory)");
    }
    return new StoreRoot(directory);
  }

  /** The root directory. */
  public Path directory() {
    return root;
  }

  /** The names of the versions present, oldest first. */
  public List<String> versions() throws IOException {
    List<String> names = new ArrayList<>();
    try (Stream<Path> entries = Files.list(root)) {
      entries
          .map(p -> p.getFileName().toString())
          .filter(name -> VERSION.matcher(name).matches())
          .filter(name -> Files.isDirectory(root.resolve(name)))
          .sorted()
          .forEach(names::add);
    }
    return names;
  }

  /** The directory of version {@code name}. */
  public Path path(String name) {
    checkName(name);
    return root.resolve(name);
  }

  /**
   * A directory path for the next version, numbered after every version present, and after any
   * other entry of a version's name (a file, a dangling link), which a rename onto the name would
   * fail on, every time (build the store into it, then {@link #publish} it).
   */
  public Path newVersion() throws IOException {
    long last = 0;
    try (Stream<Path> entries = Files.list(root)) {
      for (Path entry : (Iterable<Path>) entries::iterator) {
        String name = entry.getFileName().toString();
        if (VERSION.matcher(name).matches()) {
          last = Math.max(last, Long.parseLong(name.substring(1)));
        }
      }
    }
    return root.resolve(String.format("v%010d", last + 1));
  }

  /**
   * The version {@code CURRENT} names, if any has been published.
   *
   * @throws CorruptStoreException naming {@code CURRENT} when it is no regular file or holds anything
   *     but a version name and a newline (it is read only that far: a huge or endless file is
   *     refused, not read whole)
   */
  public Optional<String> current() throws IOException {
    Path pointer = root.resolve(CURRENT);
    try {
      RegularFiles.attributes(pointer, "so no pointer");
    } catch (NoSuchFileException none) {
      return Optional.empty();
    }
    byte[] bytes;
    try (InputStream in = Files.newInputStream(pointer)) {
      bytes = FileReadInterrupted.reading(pointer.toString(), () -> in.readNBytes(POINTER_BYTES + 1));
    } catch (NoSuchFileException none) {
      return Optional.empty();
    } catch (FileSystemException named) {
      throw named;
    } catch (IOException e) { // a read error, which names no file
      throw new IOException(pointer + ": cannot be read: " + e.getMessage(), e);
    }
    String text = new String(bytes, 0, Math.min(bytes.length, POINTER_BYTES), StandardCharsets.UTF_8);
    String name = text.strip();
    CorruptStoreException.check(
        bytes.length <= POINTER_BYTES && VERSION.matcher(name).matches() && text.equals(name + "\n"),
        pointer + ": not a version name: '" + name + "'" + (bytes.length > POINTER_BYTES ? "... (longer than a pointer file)" : ""));
    return Optional.of(name);
  }

  /**
   * Points {@code CURRENT} at version {@code name}, atomically.
   *
   * @throws NoSuchFileException unless {@code name} is a complete store directory (it has a meta
   *     file: StoreBuilder writes it last and publishes the directory whole) or a complete sharded
   *     store (it has a {@value ShardManifest#FILE_NAME}, which is written last)
   * @throws IOException if the root directory cannot be forced after the rename (a failed {@code
   *     fsync}): readers already follow {@code name}, but a power loss may bring the old pointer back
   */
  public void publish(String name) throws IOException {
    Path version = path(name);
    if (!Files.isRegularFile(version.resolve(StoreFile.META.fileName()))
        && !Files.isRegularFile(version.resolve(ShardManifest.FILE_NAME))) {
      throw new NoSuchFileException(version.toString(), null,
          "not a complete store version (no meta file, and no " + ShardManifest.FILE_NAME + " of a sharded store)");
    }
    removeStalePointers();
    Path temporary = Files.createTempFile(root, "." + CURRENT + ".", ".tmp");
    try {
      try (FileChannel channel = FileChannel.open(temporary, StandardOpenOption.WRITE)) {
        channel.write(StandardCharsets.UTF_8.encode(name + "\n"));
        channel.force(true);
      }
      Files.move(temporary, root.resolve(CURRENT), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } finally {
      Files.deleteIfExists(temporary);
    }
    try {
      DirectoryEntries.force(root, directoryOpener);
    } catch (IOException e) {
      throw new IOException(
          CURRENT + " in " + root + " now names " + name + ", but the change could not be forced to disk and may not survive a power loss: "
              + e.getMessage(),
          e);
    }
  }

  /**
   * Deletes the temporary pointer files a publish killed before its rename left. Publishing
   * assumes one writer at a time, so none of them is in use.
   */
  private void removeStalePointers() throws IOException {
    try (Stream<Path> entries = Files.list(root)) {
      for (Path entry : (Iterable<Path>) entries::iterator) {
        String name = entry.getFileName().toString();
        if (name.startsWith("." + CURRENT + ".") && name.endsWith(".tmp")) {
          Files.deleteIfExists(entry);
        }
      }
    }
  }

  /**
   * Points {@code CURRENT} at the newest version older than the current one.
   *
   * @return the version now current
   * @throws IllegalStateException when nothing is published or no older version exists
   */
  public String rollback() throws IOException {
    String current = current().orElseThrow(() -> new IllegalStateException(root + ": nothing is published"));
    String previous = null;
    for (String version : versions()) {
      if (version.compareTo(current) < 0) {
        previous = version;
      }
    }
    if (previous == null) {
      throw new IllegalStateException(root + ": no version older than " + current);
    }
    publish(previous);
    return previous;
  }

  /**
   * Deletes version {@code name}. Readers that still have it open keep reading it (its files stay
   * alive while open or mapped).
   *
   * <p>The version is first renamed to a hidden name ({@code .deleting-}{@code name}), which no
   * listing takes for a version, and deleted there: deleted in place, a deletion killed midway left
   * a version with some files gone and its manifest (deleted last: {@code _} sorts before the
   * shards' names) or meta file still there, which {@link #publish} and {@link #rollback} then took
   * for complete. The next deletion removes what a killed one left.
   *
   * @throws IllegalStateException if it is the current version
   * @throws NoSuchFileException if there is no such version
   */
  public void delete(String name) throws IOException {
    if (current().map(name::equals).orElse(false)) {
      throw new IllegalStateException(root + ": " + name + " is the current version");
    }
    Path version = path(name);
    if (!Files.exists(version, LinkOption.NOFOLLOW_LINKS)) {
      throw new NoSuchFileException(version.toString(), null, "no such version");
    }
    removeDeletions();
    Path doomed = root.resolve(DELETING + name);
    Files.move(version, doomed, StandardCopyOption.ATOMIC_MOVE);
    DirectoryEntries.force(root, directoryOpener); // the version is gone from the root before any of its files is
    FileTrees.deleteTree(doomed);
  }

  /** Deletes what deletions killed after their rename left: under the one writer, none is running. */
  private void removeDeletions() throws IOException {
    try (Stream<Path> entries = Files.list(root)) {
      for (Path entry : (Iterable<Path>) entries::iterator) {
        if (entry.getFileName().toString().startsWith(DELETING)) {
          FileTrees.deleteTree(entry);
        }
      }
    }
  }

  private static void checkName(String name) {
    if (!VERSION.matcher(name).matches()) {
      throw new IllegalArgumentException("not a version name (v and 10 digits): " + name);
    }
  }

  @Override
  public String toString() {
    return "StoreRoot[" + root + "]";
  }

}
