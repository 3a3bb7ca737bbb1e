package io.varve.core.format;

import java.nio.file.Path;
import java.util.Objects;

/**
 * Where one Varve file's bytes lie: the whole of a file in a store directory, or an entry of a
 * one-file artifact, read in place at its offset. Readers address the file's bytes relative to
 * {@code offset}, so a store file reads the same wherever it lies. Immutable; thread-safe.
 *
 * @param file the file that holds the bytes
 * @param offset where they start in {@code file}
 * @param length how many bytes
 * @param name how messages name the bytes: the path, or {@code artifact!/entry}
 */
public record FileRegion(Path file, long offset, long length, String name) {
  /** Validates the region's bounds (not against the file: its readers do that). */
  public FileRegion {
    Objects.requireNonNull(file, "file");
    Objects.requireNonNull(name, "name");
    if (offset < 0 || length < 0 || offset + length < 0) {
      throw new IllegalArgumentException(name + ": region of " + length + " bytes at " + offset);
    }
  }

  /** All {@code size} bytes of {@code file}, named by its path. */
  public static FileRegion whole(Path file, long size) {
    return new FileRegion(file, 0, size, file.toString());
  }

  /** Where the region ends in {@code file}. */
  public long end() {
    return offset + length;
  }

  @Override
  public String toString() {
    return name;
  }
}
