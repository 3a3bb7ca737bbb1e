package io.varve.builder;

import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.ToLongFunction;

/**
 * Names the directory a full disk refused a write in. The JVM reports ENOSPC (and EDQUOT) on a
 * write as a bare "No space left on device", naming no file, so an operator could not tell whether
 * the temporary directory (the sort's spills) or the store's directory was full. The writers of
 * spills name their files here where they write; the build, merge and re-index name their staging
 * directory for whatever reaches them unnamed. Which of the two a file is in shows in the names
 * {@link TemporaryDirectories} gives: spills in {@code .varve-build-*} or {@code .varve-merge-*},
 * the new store in {@code .NAME.staging-*}. A JVM that runs in another language gets the system's
 * message translated; a plain write failure on a file system with almost no space left is then
 * taken for a full disk. Thread-safe (stateless, but for the test seam {@link #usableSpace}).
 */
final class FullDisk {
  private FullDisk() {}

  /** A full-disk failure already named: passed on as it is. */
  static final class NamedException extends IOException {
    NamedException(String message, IOException cause) {
      super(message, cause);
    }
  }

  /**
   * {@code failure} as it should reach the caller: when it is a full disk or an exceeded quota
   * met while writing {@code file} (a file or directory in a temporary or staging directory),
   * an IOException naming the directory, whether it holds spills or the store, and what to do;
   * else {@code failure} itself.
   */
  static IOException named(IOException failure, Path file) {
    if (file == null || failure instanceof NamedException) {
      return failure;
    }
    String reason = reason(failure, file);
    if (reason == null) {
      return failure;
    }
    Path outermost = null;
    Boolean spills = null;
    for (Path p = file.toAbsolutePath(); p != null && p.getFileName() != null; p = p.getParent()) {
      String name = p.getFileName().toString();
      if (TemporaryDirectories.isWorkspace(name) || TemporaryDirectories.isStaging(name)) {
        outermost = p;
        spills = spills != null ? spills : TemporaryDirectories.isWorkspace(name);
      }
    }
    String message;
    if (outermost == null) {
      message = reason + " (writing " + file + "): free space there";
    } else if (spills) {
      message = reason + " in the temporary directory " + outermost.getParent() + ", where the sort spills (writing " + file
          + "): free space there, or give another temporary directory (option temporaryDirectory, varve --temp)";
    } else {
      message = reason + " in the store's directory " + outermost.getParent() + " (writing " + file
          + "): free space there, or write the store to another disk";
    }
    return new NamedException(message, failure);
  }

  /** {@link #named} of a failure that may be no IOException: others are returned as they are. */
  static Throwable namedIfIo(Throwable failure, Path file) {
    return failure instanceof IOException io ? named(io, file) : failure;
  }

  /** {@code out}, whose write, flush and close failures are {@link #named} after {@code file}. */
  static OutputStream naming(OutputStream out, Path file) {
    return new FilterOutputStream(out) {
      @Override
      public void write(int b) throws IOException {
        try {
          out.write(b);
        } catch (IOException e) {
          throw named(e, file);
        }
      }

      @Override
      public void write(byte[] bytes, int offset, int length) throws IOException {
        try {
          out.write(bytes, offset, length);
        } catch (IOException e) {
          throw named(e, file);
        }
      }

      @Override
      public void flush() throws IOException {
        try {
          out.flush();
        } catch (IOException e) {
          throw named(e, file);
        }
      }

      @Override
      public void close() throws IOException {
        try {
          out.close();
        } catch (IOException e) {
          throw named(e, file);
        }
      }
    };
  }

  /**
   * Below this many usable bytes, a plain write failure on the file's file system is taken for a
   * full disk whatever its words: the system's message is translated where the JVM runs in another
   * language ("Auf dem Gerät ist kein Speicherplatz mehr verfügbar").
   */
  static final long NEARLY_FULL_BYTES = 1 << 20;

  /** The bytes a write to {@code file}'s file system may still use, or -1 when unknown. A seam for tests. */
  static ToLongFunction<Path> usableSpace = FullDisk::usableSpaceOf;

  /**
   * The words for a full disk or quota in {@code failure} met writing {@code file}, else null: the
   * operating system's English ones, or "No space left on device" for a plain write failure
   * ({@code IOException} or {@code FileSystemException} itself, not a subtype that names another
   * cause) on a file system with less than {@link #NEARLY_FULL_BYTES} left.
   */
  private static String reason(IOException failure, Path file) {
    String reason = failure instanceof FileSystemException f ? f.getReason() : failure.getMessage();
    if (reason != null) {
      for (String full : new String[] {FULL, "Disk quota exceeded"}) {
        if (reason.contains(full)) {
          return full;
        }
      }
    }
    boolean plain = failure.getClass() == IOException.class || failure.getClass() == FileSystemException.class;
    if (plain && file != null) {
      long usable = usableSpace.applyAsLong(file);
      if (usable >= 0 && usable < NEARLY_FULL_BYTES) {
        return FULL;
      }
    }
    return null;
  }

  private static final String FULL = "No space left on device";

  /** {@code getUsableSpace} of the file store of {@code file}'s nearest existing ancestor, or -1. */
  private static long usableSpaceOf(Path file) {
    for (Path p = file.toAbsolutePath(); p != null; p = p.getParent()) {
      if (Files.exists(p)) {
        try {
          return Files.getFileStore(p).getUsableSpace();
        } catch (IOException | RuntimeException e) {
          return -1;
        }
      }
    }
    return -1;
  }
}
