package io.varve.silt;

import io.varve.core.files.FileTrees;
import io.varve.core.testing.DelegatingChannel;
import io.varve.core.testing.ForceFaults;
import io.varve.core.testing.RecordingChannel;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.LongPredicate;
import java.util.function.Predicate;
import java.util.stream.Stream;

/**
 * The files of a SILT store as a crash leaves them (BufferHash's {@code CrashFiles}, adapted to
 * {@link FileAccess#opener}, with the directory's entries as well). Installed as the hook, it
 * opens every file through a channel that remembers, page by page, what the file held at its last
 * successful {@code force}, and every directory through one that remembers, at each successful
 * {@code force}, which names it held and what {@code MANIFEST} said: a test can then build the
 * directory a power loss, or a failed {@code fsync} (whose pages or entries the kernel may drop),
 * leaves behind. Armed, it fails one {@code force}. Files the hook does not see (the sorted
 * store's, which the builder forces) count as durable when copied. The hook is static: one
 * instance at a time, closed after the test. Thread-safe: the channels and the test's thread share
 * one monitor, so an image is taken while no hooked write or force runs.
 */
final class SiltCrashFiles implements AutoCloseable {
  private static final int PAGE = 4096;

  /** The recording of each file's newest writable channel. */
  private final Map<Path, RecordingChannel> open = new HashMap<>();
  /** Each directory as of its last successful force. */
  private final Map<Path, DurableEntries> directories = new HashMap<>();
  private final ForceFaults forceFaults = new ForceFaults();

  /** A directory's names, and its manifest's bytes (null: none), when it was last forced. */
  private record DurableEntries(Set<String> names, byte[] manifest) {}

  private SiltCrashFiles() {}

  static SiltCrashFiles install() {
    SiltCrashFiles files = new SiltCrashFiles();
    FileAccess.opener = files::open;
    return files;
  }

  private FileChannel open(Path file, OpenOption... options) throws IOException {
    FileChannel real = FileChannel.open(file, options);
    Path absolute = file.toAbsolutePath();
    if (Files.isDirectory(absolute)) {
      return new DirectoryChannel(absolute, real);
    }
    boolean writable = Arrays.asList(options).contains(StandardOpenOption.WRITE);
    RecordingChannel channel = new RecordingChannel(absolute, real, PAGE, forceFaults, this);
    if (writable) {
      synchronized (this) {
        open.put(absolute, channel); // a read-only channel (a conversion's) does not replace the writer's
      }
    }
    return channel;
  }

  /** Lets {@code passing} forces of files or directories named {@code prefix}... succeed, then fails the next one. */
  synchronized void failForce(String prefix, int passing) {
    forceFaults.failForce(prefix, passing);
  }

  /** The successful forces so far of files or directories whose name starts with {@code prefix}. */
  synchronized int forces(String prefix) {
    return forceFaults.forces(prefix);
  }

  /** What the armed failure did, or null while it has not fired. */
  synchronized String fired() {
    return forceFaults.fired();
  }

  /**
   * Copies the store in {@code from} to {@code to} as a killed process leaves it, every write that
   * returned there (not the lock file). Files that go while it copies are left out: they went first.
   */
  synchronized void copyAsKilled(Path from, Path to) throws IOException {
    FileTrees.deleteTree(to);
    Files.createDirectories(to);
    copyTree(from, to);
  }

  private static void copyTree(Path from, Path to) throws IOException {
    List<Path> entries;
    try (Stream<Path> list = Files.list(from)) {
      entries = list.toList();
    } catch (NoSuchFileException gone) {
      return; // deleted by background work meanwhile: it went first
    }
    for (Path p : entries) {
      Path target = to.resolve(p.getFileName().toString());
      if (p.getFileName().toString().equals(SiltManifest.LOCK_FILE)) {
        continue;
      }
      try {
        if (Files.isDirectory(p)) {
          Files.createDirectories(target);
          copyTree(p, target);
        } else {
          Files.copy(p, target);
        }
      } catch (NoSuchFileException gone) {
        // as above
      }
    }
  }

  /**
   * A power loss: {@code to}, a copy of {@code from} ({@link #copyAsKilled}), loses every write no
   * successful force covered, to the files whose names {@code lost} accepts and to the directory.
   */
  synchronized void powerLoss(Path from, Path to, Predicate<String> lost) throws IOException {
    copyAsKilled(from, to);
    loseUnforced(from, to, lost);
    loseUnforcedEntries(from, to);
  }

  /**
   * In {@code to}, a copy of {@code from}, undoes every write to the files of {@code from} whose
   * names {@code lost} accepts that no successful force covered: each is back to its last forced
   * pages and length, as a power loss may leave it, or a failed {@code fsync} whose pages were dropped.
   */
  synchronized void loseUnforced(Path from, Path to, Predicate<String> lost) throws IOException {
    for (Map.Entry<Path, RecordingChannel> entry : open.entrySet()) {
      Path file = entry.getKey();
      String name = file.getFileName().toString();
      if (!file.getParent().equals(from.toAbsolutePath()) || !lost.test(name)) {
        continue;
      }
      Path copy = to.resolve(name);
      if (Files.exists(copy)) {
        entry.getValue().forcedPages().undoInto(copy, page -> true, true);
      }
    }
  }

  /**
   * In {@code to}, a copy of {@code from}, undoes what {@code from}'s entries changed since its last
   * successful force: names created since are gone, and {@code MANIFEST} is what it was then (a
   * rename not yet forced). Names deleted since stay deleted: the copy cannot bring them back, and
   * a store deletes a file only once a manifest that no longer names it is durable.
   */
  synchronized void loseUnforcedEntries(Path from, Path to) throws IOException {
    // A directory never forced (nor marked durable) holds nothing durable.
    DurableEntries durable = directories.getOrDefault(from.toAbsolutePath(), new DurableEntries(Set.of(), null));
    try (Stream<Path> list = Files.list(to)) {
      for (Path p : list.toList()) {
        String name = p.getFileName().toString();
        if (!durable.names.contains(name) && !name.equals(SiltManifest.FILE)) {
          FileTrees.deleteTree(p);
        }
      }
    }
    Path manifest = to.resolve(SiltManifest.FILE);
    if (durable.manifest == null) {
      Files.deleteIfExists(manifest);
    } else {
      Files.write(manifest, durable.manifest);
    }
  }

  /** Takes {@code directory}'s entries as they are now as durable: it was made before these files were installed. */
  synchronized void markDurable(Path directory) throws IOException {
    recordDurable(directory.toAbsolutePath());
  }

  private void recordDurable(Path directory) throws IOException {
    Set<String> names = new HashSet<>();
    try (Stream<Path> list = Files.list(directory)) {
      list.forEach(p -> names.add(p.getFileName().toString()));
    }
    Path manifest = directory.resolve(SiltManifest.FILE);
    directories.put(directory, new DurableEntries(names, Files.exists(manifest) ? Files.readAllBytes(manifest) : null));
  }

  /**
   * As {@link #loseUnforced}, for the one file {@code name} of {@code from}, but only the unforced
   * pages that {@code lost} accepts (page numbers of the file) go back to their forced content; the
   * others keep what was written, and the file keeps its length: a power loss may keep any subset
   * of the pages not yet forced.
   */
  synchronized void loseUnforcedPages(Path from, Path to, String name, LongPredicate lost) throws IOException {
    RecordingChannel recording = open.get(from.toAbsolutePath().resolve(name));
    if (recording == null) {
      throw new IllegalArgumentException(name + " of " + from + " was not opened through these files");
    }
    recording.forcedPages().undoInto(to.resolve(name), lost, false);
  }

  /** Pages of {@code name} in {@code from} written since their last force. */
  synchronized List<Long> unforcedPages(Path from, String name) {
    RecordingChannel recording = open.get(from.toAbsolutePath().resolve(name));
    return recording == null ? List.of() : recording.forcedPages().unforcedPages();
  }

  @Override
  public void close() {
    FileAccess.opener = FileChannel::open;
  }

  /** A directory's channel: its successful forces make its names, and its manifest, durable. */
  private final class DirectoryChannel extends DelegatingChannel {
    private final Path directory;

    DirectoryChannel(Path directory, FileChannel real) {
      super(real);
      this.directory = directory;
    }

    @Override
    public void force(boolean metaData) throws IOException {
      synchronized (SiltCrashFiles.this) {
        forceFaults.force(directory.getFileName().toString(), () -> real.force(metaData));
        recordDurable(directory);
      }
    }
  }
}
