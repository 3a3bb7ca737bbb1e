package io.varve.reader;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitOption;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.stream.Stream;

/**
 * What a version's files are at one moment: each file's name, size, modification time and identity
 * (device and inode where the file system has them). A follower that could not open a version
 * remembers this, and reads the version again only once it differs: a new file, one gone, one
 * written (its time), one replaced by a rename (its identity). Without it a loaded follower whose
 * newest version stays damaged read all of it at every refresh. Immutable; thread-safe.
 *
 * <p>Times are trusted only when the files are older than the attempt that read them by {@link
 * #SETTLED_MILLIS}: a file system stamps writes with a coarse clock (a few milliseconds on Linux,
 * seconds on some), so a file written again within the same tick as the read keeps its time; and
 * a network file system stamps with the server's clock. Such a version is read again at the next
 * refresh, as before.
 */
final class VersionFiles {
  /** How much older than an attempt every file must be for its times to tell a later change. */
  static final long SETTLED_MILLIS = 2_000;
  /** Deep enough for a sharded version's shard directories. */
  private static final int DEPTH = 3;

  private record File(String name, long size, long modifiedNanos, Object key) {}

  private final List<File> files;

  private VersionFiles(List<File> files) {
    this.files = files;
  }

  /**
   * The files under {@code version} now, or null when they cannot be listed (a version directory
   * gone, say): nothing is then remembered, and nothing compares equal.
   */
  static VersionFiles read(Path version) {
    List<File> files = new ArrayList<>();
    try (Stream<Path> walk = Files.walk(version, DEPTH, FileVisitOption.FOLLOW_LINKS)) {
      for (Path path : (Iterable<Path>) walk.sorted()::iterator) {
        BasicFileAttributes attributes = Files.readAttributes(path, BasicFileAttributes.class);
        if (attributes.isRegularFile()) {
          files.add(new File(version.relativize(path).toString(), attributes.size(),
              attributes.lastModifiedTime().to(java.util.concurrent.TimeUnit.NANOSECONDS), attributes.fileKey()));
        }
      }
    } catch (IOException | UncheckedIOException | SecurityException unreadable) {
      return null;
    }
    return new VersionFiles(List.copyOf(files));
  }

  /**
   * {@link #read} of the files of an attempt to open {@code version} that began at {@code
   * startedMillis} (wall clock), or null when a file is too recent for its times to tell whether the
   * attempt read what it holds now (see the class comment).
   */
  static VersionFiles readSettled(Path version, long startedMillis) {
    VersionFiles read = read(version);
    if (read == null) {
      return null;
    }
    long settledNanos = (startedMillis - SETTLED_MILLIS) * 1_000_000L;
    for (File file : read.files) {
      if (file.modifiedNanos() >= settledNanos) {
        return null;
      }
    }
    return read;
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof VersionFiles that && files.equals(that.files);
  }

  @Override
  public int hashCode() {
    return Objects.hash(files);
  }

  @Override
  public String toString() {
    return files.size() + " files";
  }
}
