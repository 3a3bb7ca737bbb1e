package io.varve.reader;

import io.varve.core.artifact.StoreArtifact;
import io.varve.core.format.FileRegion;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * Where an open store's files lie: the files of a store directory, or the entries of a one-file
 * artifact ({@link StoreArtifact}), each a {@link FileRegion} of the artifact read in place. The
 * opener, the verifier and the data mapping address a file through its region, so that a store
 * reads the same from either. Immutable; thread-safe.
 */
final class StoreFiles {
  private final Path origin;
  private final StoreArtifact artifact;

  private StoreFiles(Path origin, StoreArtifact artifact) {
    this.origin = origin;
    this.artifact = artifact;
  }

  /**
   * The files of the store at {@code path}: a directory, or an artifact file (its ZIP directory and
   * marker checked here).
   *
   * @throws NoSuchFileException when {@code path} is neither
   * @throws io.varve.core.format.CorruptStoreException when an artifact is damaged or no artifact
   */
  static StoreFiles of(Path path) throws IOException {
    if (Files.isDirectory(path)) {
      return new StoreFiles(path, null);
    }
    if (Files.isRegularFile(path)) {
      return new StoreFiles(path, StoreArtifact.open(path));
    }
    throw new NoSuchFileException(path.toString(), null, "not a store directory or artifact");
  }

  /** The directory or artifact file the store was opened from. */
  Path origin() {
    return origin;
  }

  /** The artifact the files lie in, or null for a directory. */
  StoreArtifact artifact() {
    return artifact;
  }

  /** The region of the file {@code name}, or null when the store has no such file. */
  FileRegion find(String name) throws IOException {
    if (artifact != null) {
      return artifact.region(name);
    }
    Path file = origin.resolve(name);
    try {
      return FileRegion.whole(file, Files.size(file));
    } catch (NoSuchFileException missing) {
      return null;
    }
  }

  @Override
  public String toString() {
    return origin.toString();
  }
}
