package io.varve.core.artifact;

import io.varve.core.format.RegularFiles;
import io.varve.core.format.CorruptStoreException;
import io.varve.core.format.FileRegion;
import io.varve.core.store.StoreFile;
import io.varve.core.store.StoreMeta;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * Where a store's files lie: the files of a store directory, or the entries of a one-file artifact
 * ({@link StoreArtifact}), each a {@link FileRegion} of the artifact read in place. Whatever reads a
 * finished store (the reader's opener and verifier, a merge's or re-index's scan) addresses its
 * files through their regions, so that a store reads the same from either, and messages name a
 * file as {@code dir/name} or {@code file.varve!/name}. Immutable; thread-safe.
 */
public final class StoreFiles {
  private final Path origin;
  private final StoreArtifact artifact;

  private StoreFiles(Path origin, StoreArtifact artifact) {
    this.origin = origin;
    this.artifact = artifact;
  }

  /**
   * The files of the store at {@code path}: a directory, or an artifact file (its ZIP directory and
   * marker checked here; any regular file is taken for one, whatever its name).
   *
   * @throws NoSuchFileException when {@code path} is neither
   * @throws CorruptStoreException when an artifact is damaged or no artifact
   */
  public static StoreFiles of(Path path) throws IOException {
    if (Files.isDirectory(path)) {
      return new StoreFiles(path, null);
    }
    if (Files.isRegularFile(path)) {
      return new StoreFiles(path, StoreArtifact.open(path));
    }
    throw new NoSuchFileException(path.toString(), null, "not a store directory or artifact");
  }

  /** The directory or artifact file the store lies in. */
  public Path origin() {
    return origin;
  }

  /** The artifact the files lie in, or null for a directory. */
  public StoreArtifact artifact() {
    return artifact;
  }

  /** Whether the files are entries of a one-file artifact. */
  public boolean isArtifact() {
    return artifact != null;
  }

  /** How messages name the store's file {@code name}: its path, or {@code artifact!/name}. */
  public String nameOf(String name) {
    return artifact != null ? origin + "!/" + name : origin.resolve(name).toString();
  }

  /**
   * The region of the file {@code name}, or null when the store has no such file.
   *
   * @throws CorruptStoreException when it is no regular file (a FIFO, a device, a directory)
   */
  public FileRegion find(String name) throws IOException {
    if (artifact != null) {
      return artifact.region(name);
    }
    Path file = origin.resolve(name);
    try {
      return FileRegion.whole(file, RegularFiles.attributes(file, "damaged or hostile store").size());
    } catch (NoSuchFileException missing) {
      return null;
    }
  }

  /**
   * The region of the meta file.
   *
   * @throws NoSuchFileException when a directory has none: it is no store
   * @throws CorruptStoreException when an artifact has none: it is damaged
   */
  public FileRegion metaRegion() throws IOException {
    FileRegion region = find(StoreFile.META.fileName());
    if (region == null && artifact != null) {
      throw new CorruptStoreException(origin + ": the artifact holds no meta file (damaged)");
    }
    if (region == null) {
      throw new NoSuchFileException(nameOf(StoreFile.META.fileName()), null, "no meta file: not a store");
    }
    return region;
  }

  /**
   * Reads and checks the meta file (envelope, checksum, payload).
   *
   * @throws CorruptStoreException naming it on any defect
   */
  public StoreMeta readMeta() throws IOException {
    return StoreMeta.read(metaRegion());
  }

  /**
   * The region of a file the meta lists, whose length must be the one it records: a listed file
   * that is missing or of another size is a damaged store.
   *
   * @throws CorruptStoreException naming the file when it is missing or of another size
   */
  public FileRegion listed(StoreMeta.FileEntry entry) throws IOException {
    FileRegion region = find(entry.name());
    if (region == null) {
      throw new CorruptStoreException(nameOf(entry.name()) + ": missing, but the meta file lists it (damaged store)");
    }
    CorruptStoreException.check(
        region.length() == entry.size(),
        region + ": " + region.length() + " bytes, but the meta file says " + entry.size() + " (truncated or replaced?)");
    return region;
  }

  /** {@link #listed(StoreMeta.FileEntry)} of the file of {@code kind}, which {@code meta} must list. */
  public FileRegion listed(StoreMeta meta, StoreFile kind) throws IOException {
    return listed(meta.file(kind));
  }

  @Override
  public String toString() {
    return origin.toString();
  }
}
