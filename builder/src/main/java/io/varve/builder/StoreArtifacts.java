package io.varve.builder;

import io.varve.core.artifact.StoreArtifact;
import io.varve.core.format.CorruptStoreException;
import io.varve.core.store.StoreFile;
import io.varve.core.store.StoreFileReader;
import io.varve.core.store.StoreMeta;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.zip.CRC32;
import org.apache.commons.compress.archivers.zip.Zip64Mode;
import org.apache.commons.compress.archivers.zip.ZipArchiveEntry;
import org.apache.commons.compress.archivers.zip.ZipArchiveOutputStream;

/**
 * Writes a store directory as a one-file artifact ({@link StoreArtifact}, {@code .varve}): a ZIP of
 * STORED entries aligned to 4 KiB, which a reader maps in place. Through Apache Commons Compress,
 * which writes the alignment ({@link ZipArchiveEntry#setAlignment}) and ZIP64 records; always ZIP64
 * records, so that a small artifact has the layout of one past 4 GiB and the golden file tests the
 * records large stores need, in the form other readers accept ({@link
 * Zip64Mode#AlwaysWithCompatibility}: with {@code Always}, JDK 25's {@code java.util.zip.ZipFile}
 * refuses the central directory's ZIP64 fields, since their sizes and offset also stand in place).
 *
 * <pre>{@code
 * StoreArtifacts.pack(Path.of("/data/users"), Path.of("/data/users.varve"));
 * try (Store store = Store.open(Path.of("/data/users.varve"))) { ... }    // mapped in place
 * }</pre>
 *
 * Only the files the store's meta lists, and the meta, are packed, after a check of each one's size
 * and envelope against the meta (not of every byte: {@code Store.verify} on the artifact does that,
 * ZIP CRC-32s included). Stateless; thread-safe (packs of different targets may run at once).
 */
public final class StoreArtifacts {
  private StoreArtifacts() {}

  /**
   * Packs the store directory {@code storeDirectory} into the artifact {@code artifact}, which must
   * not exist (its parent must): written into a staging directory beside it, forced to disk and
   * linked to its name in one step that never replaces a file, so that readers see a complete
   * artifact or none, and a killed pack leaves a staging directory the next build or pack beside it
   * removes.
   *
   * @return the artifact's size in bytes
   * @throws FileAlreadyExistsException if {@code artifact} exists or appears meanwhile
   * @throws NoSuchFileException if the store has no meta file or its parent does not exist
   * @throws CorruptStoreException if a file of the store is missing or is not what its meta lists
   */
  public static long pack(Path storeDirectory, Path artifact) throws IOException {
    Objects.requireNonNull(storeDirectory, "storeDirectory");
    StoreDirectory.checkNew(artifact);
    List<Path> files = storeFiles(storeDirectory);
    Path staging = StoreDirectory.staging(artifact);
    try {
      Path written = staging.resolve(artifact.getFileName());
      FileChannel channel = FileChannel.open(written, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
      try (channel; ZipArchiveOutputStream zip = new ZipArchiveOutputStream(channel)) {
        writeEntries(zip, files, false); // finishes the archive: the channel holds all of it
        channel.force(true);
      }
      long size = Files.size(written);
      publish(written, artifact);
      return size;
    } catch (IOException e) {
      throw FullDisk.named(e, staging);
    } finally {
      TemporaryDirectories.delete(staging);
    }
  }

  /**
   * Writes the store directory {@code storeDirectory} as an artifact to {@code out}, which it does
   * not close: for a target that is no local file, such as a Hadoop {@code FileSystem} stream of a
   * Spark task writing its shard. Reads each file twice (its CRC-32 first: a ZIP stream that cannot
   * seek back must write it before the entry), and publishes nothing: the caller's commit does.
   *
   * @throws CorruptStoreException if a file of the store is missing or is not what its meta lists
   */
  public static void write(Path storeDirectory, OutputStream out) throws IOException {
    List<Path> files = storeFiles(Objects.requireNonNull(storeDirectory, "storeDirectory"));
    ZipArchiveOutputStream zip = new ZipArchiveOutputStream(new NonClosing(out));
    try (zip) {
      writeEntries(zip, files, true);
    }
    out.flush();
  }

  /**
   * The files to pack, in {@link StoreArtifact#entryOrder()}: the meta and every file it lists,
   * each checked against it (size, envelope, footer checksum).
   */
  private static List<Path> storeFiles(Path directory) throws IOException {
    Path metaPath = directory.resolve(StoreFile.META.fileName());
    StoreMeta meta = StoreMeta.read(metaPath);
    List<Path> files = new ArrayList<>();
    for (StoreFile kind : StoreArtifact.entryOrder()) {
      if (kind == StoreFile.META) {
        files.add(metaPath);
        continue;
      }
      StoreMeta.FileEntry entry = meta.files().stream().filter(e -> e.name().equals(kind.fileName())).findFirst().orElse(null);
      if (entry == null) {
        continue;
      }
      Path file = directory.resolve(entry.name());
      try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
        CorruptStoreException.check(channel.size() == entry.size(),
            file + ": " + channel.size() + " bytes, but the meta file says " + entry.size() + " (truncated or replaced?)");
        CorruptStoreException.check(StoreFileReader.checkEnvelope(channel, file, kind) == entry.checksum(),
            file + ": checksum differs from the meta file's");
      } catch (NoSuchFileException missing) {
        throw new CorruptStoreException(file + ": missing, but the meta file lists it (damaged store)", missing);
      }
      files.add(file);
    }
    return files;
  }

  private static void writeEntries(ZipArchiveOutputStream zip, List<Path> files, boolean crcFirst) throws IOException {
    zip.setUseZip64(Zip64Mode.AlwaysWithCompatibility);
    zip.setComment(StoreArtifact.COMMENT);
    byte[] marker = StoreArtifact.marker(StoreArtifact.KIND_STORE);
    CRC32 markerCrc = new CRC32();
    markerCrc.update(marker);
    zip.putArchiveEntry(entry(StoreArtifact.MARKER, marker.length, markerCrc.getValue()));
    zip.write(marker);
    zip.closeArchiveEntry();
    byte[] buffer = new byte[1 << 16];
    for (Path file : files) {
      long size = Files.size(file);
      zip.putArchiveEntry(entry(file.getFileName().toString(), size, crcFirst ? crc32(file, buffer) : -1));
      long copied = 0;
      try (InputStream in = Files.newInputStream(file)) {
        for (int n; (n = in.read(buffer)) > 0; ) {
          zip.write(buffer, 0, n);
          copied += n;
        }
      }
      CorruptStoreException.check(copied == size, file + ": changed while being packed (" + copied + " bytes of " + size + ")");
      zip.closeArchiveEntry();
    }
    zip.finish();
  }

  private static ZipArchiveEntry entry(String name, long size, long crc) {
    ZipArchiveEntry entry = new ZipArchiveEntry(name);
    entry.setMethod(ZipArchiveEntry.STORED);
    entry.setAlignment(StoreArtifact.ALIGNMENT);
    entry.setSize(size);
    if (crc >= 0) {
      entry.setCrc(crc);
    }
    entry.setTime(0); // the same store packs to the same bytes
    return entry;
  }

  private static long crc32(Path file, byte[] buffer) throws IOException {
    CRC32 crc = new CRC32();
    try (InputStream in = Files.newInputStream(file)) {
      for (int n; (n = in.read(buffer)) > 0; ) {
        crc.update(buffer, 0, n);
      }
    }
    return crc.getValue();
  }

  /**
   * Gives the finished artifact {@code target}'s name without replacing a file there: a hard link
   * fails if the name exists (where links are not supported, a check and an atomic rename).
   */
  private static void publish(Path written, Path target) throws IOException {
    try {
      Files.createLink(target, written);
    } catch (FileAlreadyExistsException e) {
      throw new FileAlreadyExistsException(target.toString(), null, "the artifact appeared while being packed");
    } catch (UnsupportedOperationException | FileSystemException noLinks) {
      if (Files.exists(target, LinkOption.NOFOLLOW_LINKS)) {
        throw new FileAlreadyExistsException(target.toString(), null, "the artifact appeared while being packed");
      }
      Files.move(written, target, StandardCopyOption.ATOMIC_MOVE);
    }
    StoreDirectory.forceName(target);
  }

  /** {@code out} without its close: the caller owns the stream. */
  private static final class NonClosing extends java.io.FilterOutputStream {
    NonClosing(OutputStream out) {
      super(out);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      out.write(b, off, len);
    }

    @Override
    public void close() throws IOException {
      flush();
    }
  }
}
