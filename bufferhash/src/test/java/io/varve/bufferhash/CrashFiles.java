package io.varve.bufferhash;

import io.varve.core.files.FileTrees;
import io.varve.core.testing.DelegatingChannel;
import io.varve.core.testing.ForceFaults;
import io.varve.core.testing.RecordingChannel;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BiPredicate;
import java.util.function.LongPredicate;

/**
 * The files of a BufferHash as a crash leaves them. Installed as the {@link Channels} hook, it
 * opens every table file through a channel that remembers, page by page, what the file held at
 * its last successful {@code force}: a test can then build the directory a power loss, or a
 * failed {@code fsync} (whose pages the kernel may drop), leaves behind. Armed, it tears one write
 * (a prefix reaches the file, then zeros or garbage up to the next page boundary, then the write
 * throws) or fails one {@code force}. The hook is static: one instance at a time, closed after the
 * test. Thread-safe: the channels and the test's thread share one monitor.
 */
final class CrashFiles implements AutoCloseable {
  /** What follows the torn prefix up to the next page boundary. */
  enum Fill {
    /** The bytes the file held before. */
    OLD,
    ZEROS,
    GARBAGE
  }

  private static final int PAGE = LogFormat.PAGE_BYTES;

  private final Map<Path, Recording> open = new HashMap<>();
  /** The names each directory held at its last successful force. */
  private final Map<Path, Set<String>> forcedNames = new HashMap<>();
  private String tearPrefix;
  private BiPredicate<Long, Integer> tearWhere;
  private Fill tearFill;
  private Random tearRandom;
  private final ForceFaults forceFaults = new ForceFaults();
  private volatile String fired;

  private CrashFiles() {}

  static CrashFiles install() {
    CrashFiles files = new CrashFiles();
    Channels.opener =
        (file, options) -> {
          if (Files.isDirectory(file)) {
            return files.new DirectoryRecording(file.toAbsolutePath(), FileChannel.open(file, options));
          }
          Recording channel = files.new Recording(file.toAbsolutePath(), FileChannel.open(file, options));
          synchronized (files) {
            files.open.put(file.toAbsolutePath(), channel);
          }
          return channel;
        };
    return files;
  }

  /**
   * Tears the next write to a file whose name starts with {@code prefix} at a {@code (position,
   * length)} that {@code where} accepts: a random prefix of it (from {@code random}) reaches the
   * file, then {@code fill} up to the next page boundary, and the write throws.
   */
  synchronized void tearNextWrite(String prefix, BiPredicate<Long, Integer> where, Fill fill, Random random) {
    tearPrefix = prefix;
    tearWhere = where;
    tearFill = fill;
    tearRandom = random;
  }

  /** Fails the next force of a file whose name starts with {@code prefix}, without forcing. */
  synchronized void failNextForce(String prefix) {
    failForce(prefix, 0);
  }

  /** Lets {@code passing} forces of files named {@code prefix}... succeed, then fails the next one. */
  synchronized void failForce(String prefix, int passing) {
    forceFaults.failForce(prefix, passing);
  }

  /** The successful forces so far of files whose name starts with {@code prefix}. */
  synchronized int forces(String prefix) {
    return forceFaults.forces(prefix);
  }

  /** What the armed failure did, or null while it has not fired. */
  synchronized String fired() {
    return fired != null ? fired : forceFaults.fired();
  }

  /** Copies {@code from} to {@code to} as a killed process leaves it: every write that returned is there. */
  static void copyAsKilled(Path from, Path to) throws IOException {
    FileTrees.deleteTree(to);
    Files.createDirectories(to);
    try (var files = Files.list(from)) {
      for (Path file : (Iterable<Path>) files::iterator) {
        if (!file.getFileName().toString().equals("lock")) {
          Files.copy(file, to.resolve(file.getFileName()));
        }
      }
    }
  }

  /**
   * In {@code to}, a copy of {@code from}, undoes every write to the files named {@code prefix}...
   * of {@code from} that no successful force covered: the file is back to its last forced pages
   * and length, as a power loss may leave it, or a failed {@code fsync} whose pages were dropped.
   */
  synchronized void loseUnforced(Path from, Path to, String prefix) throws IOException {
    for (Map.Entry<Path, Recording> entry : open.entrySet()) {
      Path file = entry.getKey();
      if (!file.getParent().equals(from.toAbsolutePath()) || !file.getFileName().toString().startsWith(prefix)) {
        continue;
      }
      Path copy = to.resolve(file.getFileName());
      if (Files.exists(copy)) {
        entry.getValue().forcedPages().undoInto(copy, page -> true, true);
      }
    }
  }

  /**
   * As {@link #loseUnforced}, for the one file {@code name} of {@code from}, but only the unforced
   * pages that {@code lost} accepts (page numbers of the file) go back to their forced content; the
   * others keep what was written, and the file keeps its length: a power loss may keep any subset
   * of the pages not yet forced.
   */
  synchronized void loseUnforcedPages(Path from, Path to, String name, LongPredicate lost) throws IOException {
    Recording recording = open.get(from.toAbsolutePath().resolve(name));
    if (recording == null) {
      throw new IllegalArgumentException(name + " of " + from + " was not opened through these files");
    }
    recording.forcedPages().undoInto(to.resolve(name), lost, false);
  }

  /**
   * In {@code to}, a copy of {@code from}, deletes every file whose name {@code from} did not hold
   * at its last directory force through these files (all of them, if it was never forced): a file
   * created or renamed since may be gone after a power loss.
   */
  synchronized void loseUnforcedNames(Path from, Path to) throws IOException {
    Set<String> durable = forcedNames.getOrDefault(from.toAbsolutePath(), Set.of());
    try (var files = Files.list(to)) {
      for (Path file : (Iterable<Path>) files::iterator) {
        if (!durable.contains(file.getFileName().toString())) {
          Files.delete(file);
        }
      }
    }
  }

  @Override
  public void close() {
    Channels.opener = FileChannel::open;
  }

  /** A directory's channel whose force remembers the names the directory then held. */
  private final class DirectoryRecording extends DelegatingChannel {
    private final Path directory;

    DirectoryRecording(Path directory, FileChannel real) {
      super(real);
      this.directory = directory;
    }

    @Override
    public void force(boolean metaData) throws IOException {
      synchronized (CrashFiles.this) {
        real.force(metaData);
        Set<String> names = new TreeSet<>();
        try (var files = Files.list(directory)) {
          files.forEach(file -> names.add(file.getFileName().toString()));
        }
        forcedNames.put(directory, names);
      }
    }
  }

  /** A file's recording channel that tears the armed write. */
  private final class Recording extends RecordingChannel {
    Recording(Path file, FileChannel real) throws IOException {
      super(file, real, PAGE, forceFaults, CrashFiles.this);
    }

    @Override
    protected void beforeWrite(ByteBuffer src, long position) throws IOException {
      int length = src.remaining();
      synchronized (CrashFiles.this) {
        if (tearPrefix == null || !file.getFileName().toString().startsWith(tearPrefix) || !tearWhere.test(position, length)) {
          return;
        }
        tearPrefix = null;
        int kept = tearRandom.nextInt(length);
        long end = (position + kept + PAGE - 1) / PAGE * PAGE;
        ByteBuffer prefix = src.duplicate();
        prefix.limit(prefix.position() + kept);
        real.write(prefix, position);
        if (tearFill != Fill.OLD && end > position + kept) {
          byte[] fill = new byte[(int) (end - position - kept)];
          if (tearFill == Fill.GARBAGE) {
            tearRandom.nextBytes(fill);
          }
          remember(position + kept, fill.length);
          real.write(ByteBuffer.wrap(fill), position + kept);
        }
        fired = "tore a write of " + length + " bytes at " + position + " of " + file.getFileName() + " after " + kept + " bytes, " + tearFill;
        throw new IOException("No space left on device (injected torn write)");
      }
    }
  }
}
