package io.varve.spark;

import io.varve.core.artifact.StoreArtifact;
import io.varve.core.files.DirectoryEntries;
import io.varve.core.files.ExclusiveUse;
import io.varve.core.files.FileTrees;
import io.varve.core.format.CorruptStoreException;
import io.varve.core.format.FileRegion;
import io.varve.core.shard.ShardManifest;
import io.varve.core.store.StoreFile;
import io.varve.core.store.StoreMeta;
import io.varve.core.store.StoreRoot;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * The serving host's half of a Spark job's output: downloads a published sharded store from any
 * Hadoop file system ({@code hdfs:}, {@code s3a:}, {@code file:}, ...) into a new version of a local
 * {@link StoreRoot}, checks it, and publishes it, for {@code FollowingShardedStore} (reader module)
 * to pick up on its next refresh.
 *
 * <pre>{@code
 * String version = ShardedStoreFetcher.fetch(URI.create("hdfs:///stores/users/v=2026-11-26"),
 *     new Configuration(), java.nio.file.Path.of("/data/stores/users"));
 * }</pre>
 *
 * <p>What is copied: the {@value ShardManifest#FILE_NAME}, and per shard its directory (the meta
 * file and the files it lists) or its one-file artifact ({@code shard-00000.varve}). What is
 * checked, with {@code core}'s format code, along the manifest's checksum chain: each shard's meta
 * file against its manifest entry (footer CRC32C, records, seed, key mode, total size), then every
 * other file's size and full CRC32C against what the meta file lists; a directory shard's sizes are
 * checked at the source before its data is copied. Then the first keys of each shard (2^16 in all,
 * at least 64 a shard) must route to it under the manifest's seed and shard count ({@link
 * io.varve.builder.ShardRouting}): a manifest can match each shard's meta file and still list the
 * shards in another order, or with another seed or shard count, than their keys were routed by.
 * Each defect is a {@link CorruptStoreException} naming the source and the shard; a source without a manifest (no store, or a build that did not
 * finish) is a {@link NoSuchFileException}.
 *
 * <p>Nothing half-done is ever visible: the copy goes to a hidden staging directory in the root
 * ({@code .fetch-*}), forced to disk, renamed to the next version ({@link StoreRoot#newVersion()})
 * and only then published ({@link StoreRoot#publish}). A failed fetch removes what it copied and
 * leaves {@code CURRENT} as it was (except a publish that renamed {@code CURRENT} and then failed
 * to force the root to disk: its exception says so, and the version it names stays); one killed outright leaves a staging directory, which the next
 * fetch into the root removes.
 *
 * <p>Stateless and thread-safe: fetches into one root, from threads, processes or copies of this
 * class in other class loaders, take turns (a lock file in the root, {@code .fetch.lock}, held
 * through {@link ExclusiveUse}, whose register is the JVM's; a fetch waiting for its turn polls);
 * fetches into different roots run in parallel.
 */
public final class ShardedStoreFetcher {
  /** The lock file that serializes fetches into a root. */
  private static final String LOCK_FILE = ".fetch.lock";

  private static final String STAGING_PREFIX = ".fetch-";
  private static final int COPY_BUFFER_BYTES = 1 << 20;
  /** The longest pause between two tries for a root's turn. */
  private static final long MAX_TURN_POLL_MILLIS = 100;

  /** How a directory is opened to be forced; tests replace it to fail an {@code fsync}. */
  static volatile DirectoryEntries.Opener directoryOpener = FileChannel::open;

  private ShardedStoreFetcher() {}

  /**
   * Downloads the sharded store at {@code source} into a new version under {@code localRoot}
   * (created if absent), checks every shard against the manifest, and publishes the version.
   *
   * @param source the sharded store's directory: a Hadoop file system URI ({@code hdfs://...},
   *     {@code s3a://...}, {@code file:///...})
   * @param conf the Hadoop configuration of the source's file system
   * @param localRoot the local {@link StoreRoot} directory
   * @return the name of the version published, e.g. {@code v0000000007}
   * @throws NoSuchFileException when the source has no {@value ShardManifest#FILE_NAME}; nothing is published
   * @throws CorruptStoreException naming the shard when one is missing, truncated, damaged or not
   *     the one the manifest names; nothing is published
   * @throws IOException when reading the source or writing locally fails; nothing is published
   */
  public static String fetch(URI source, Configuration conf, java.nio.file.Path localRoot) throws IOException {
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(conf, "conf");
    StoreRoot root = StoreRoot.open(Objects.requireNonNull(localRoot, "localRoot").toAbsolutePath().normalize());
    try (ExclusiveUse turn = awaitTurn(root)) {
      removeStaging(root);
      return fetchLocked(new Path(source), conf, root);
    }
  }

  /**
   * Waits until no other fetch into {@code root} runs, then holds its lock file. A process must
   * not lock one file twice, nor open and close it while locked (POSIX would drop the lock), so
   * {@link ExclusiveUse} refuses at once while any code of this JVM holds it, and this polls.
   */
  private static ExclusiveUse awaitTurn(StoreRoot root) throws IOException {
    java.nio.file.Path lockFile = root.directory().resolve(LOCK_FILE);
    long pauseMillis = 1;
    while (true) {
      try {
        return ExclusiveUse.acquire(lockFile, true, "a fetch into " + root.directory());
      } catch (IllegalStateException anotherFetchRuns) {
        try {
          Thread.sleep(pauseMillis);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new InterruptedIOException("interrupted while waiting for another fetch into " + root.directory() + " to end");
        }
        pauseMillis = Math.min(MAX_TURN_POLL_MILLIS, 2 * pauseMillis);
      }
    }
  }

  private static String fetchLocked(Path source, Configuration conf, StoreRoot root) throws IOException {
    FileSystem fs = HadoopFiles.fileSystem(source, conf);
    byte[] manifestBytes = readManifest(fs, source);
    ShardManifest manifest = ShardManifest.parse(manifestBytes, new Path(source, ShardManifest.FILE_NAME).toString());
    java.nio.file.Path staging = Files.createTempDirectory(root.directory(), STAGING_PREFIX);
    java.nio.file.Path version = null; // set once staging is renamed to it
    try {
      for (int i = 0; i < manifest.shardCount(); i++) {
        fetchShard(fs, source, manifest, i, staging);
      }
      java.nio.file.Path manifestFile = staging.resolve(ShardManifest.FILE_NAME);
      try {
        Files.write(manifestFile, manifestBytes, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        force(manifestFile);
      } catch (IOException e) {
        throw writeFailure(e, manifestFile, source.toString());
      }
      force(staging);
      java.nio.file.Path next = root.newVersion();
      // rename(2) replaces an empty directory silently: check just before it, as builds do.
      if (Files.exists(next, LinkOption.NOFOLLOW_LINKS)) {
        throw new FileAlreadyExistsException(next.toString(), null, "the version appeared during the fetch");
      }
      Files.move(staging, next, StandardCopyOption.ATOMIC_MOVE);
      version = next;
      force(root.directory());
      String name = version.getFileName().toString();
      try {
        root.publish(name);
      } catch (IOException | RuntimeException | Error e) {
        // A publish that fails after renaming CURRENT (forcing the root) leaves the version current.
        if (isCurrent(root, name, e)) {
          version = null;
          staging = null;
        }
        throw e;
      }
      return name;
    } catch (IOException | RuntimeException | Error e) {
      // Before the rename the staging directory holds everything; after it, the unpublished version,
      // which goes back to the staging name before it is deleted: deleted in place, a deletion killed
      // midway left a version whose manifest outlived its shards, which a rollback would publish.
      if (version != null) {
        try {
          Files.move(version, staging, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException | RuntimeException moveFailed) {
          e.addSuppressed(moveFailed);
          staging = null; // the version stays whole: checked and complete, unlike one half deleted
        }
      }
      if (staging != null) {
        deleteQuietly(staging, e);
      }
      throw e;
    }
  }

  /** Whether {@code CURRENT} names {@code name} after a failed publish (which a failure to read it adds to). */
  private static boolean isCurrent(StoreRoot root, String name, Throwable failure) {
    try {
      return root.current().filter(name::equals).isPresent();
    } catch (IOException | RuntimeException e) {
      failure.addSuppressed(e);
      return true; // unknown: keep the version rather than delete what CURRENT may name
    }
  }

  private static byte[] readManifest(FileSystem fs, Path source) throws IOException {
    Path file = new Path(source, ShardManifest.FILE_NAME);
    FileStatus status;
    try {
      status = fs.getFileStatus(file);
    } catch (FileNotFoundException e) {
      throw new NoSuchFileException(file.toString(), null,
          "no " + ShardManifest.FILE_NAME + ": not a sharded store, or its build did not finish; nothing was fetched");
    }
    CorruptStoreException.check(status.isFile() && status.getLen() <= ShardManifest.MAX_FILE_BYTES,
        file + ": not a manifest (" + (status.isFile() ? status.getLen() + " bytes" : "a directory") + ")");
    try (InputStream in = fs.open(file)) {
      byte[] bytes = in.readNBytes((int) status.getLen());
      CorruptStoreException.check(bytes.length == status.getLen() && in.read() < 0,
          file + ": changed while being read (" + status.getLen() + " bytes listed)");
      return bytes;
    }
  }

  /** Copies shard {@code i} from {@code source} into {@code staging}, as a directory or an artifact as it is there, and checks it. */
  private static void fetchShard(FileSystem fs, Path source, ShardManifest manifest, int i, java.nio.file.Path staging) throws IOException {
    String name = manifest.shards().get(i).name();
    String what = source + ": shard " + i + " of " + manifest.shardCount() + " (" + name + ")";
    Path directory = new Path(source, name);
    FileStatus status = statusOrNull(fs, directory);
    if (status != null && status.isDirectory()) {
      java.nio.file.Path local = staging.resolve(name);
      fetchDirectory(fs, directory, manifest, i, local, what);
      FetchedShard.checkRouting(what, manifest, i, local);
      return;
    }
    Path artifact = new Path(source, name + StoreArtifact.SUFFIX);
    FileStatus artifactStatus = statusOrNull(fs, artifact);
    CorruptStoreException.check(artifactStatus != null && artifactStatus.isFile(),
        what + " is missing: no directory " + directory + " and no artifact " + artifact);
    FetchedShard.checkSourceLength(what, manifest, i, "the artifact", artifactStatus.getLen(), true);
    java.nio.file.Path local = staging.resolve(name + StoreArtifact.SUFFIX);
    copy(fs, artifactStatus, local, what);
    FetchedShard.checkArtifact(what, manifest, i, local);
    FetchedShard.checkRouting(what, manifest, i, local);
  }

  private static void fetchDirectory(FileSystem fs, Path directory, ShardManifest manifest, int i, java.nio.file.Path local, String what)
      throws IOException {
    Map<String, FileStatus> files = new HashMap<>();
    for (FileStatus file : fs.listStatus(directory)) {
      files.put(file.getPath().getName(), file);
    }
    FileStatus metaStatus = files.get(StoreFile.META.fileName());
    CorruptStoreException.check(metaStatus != null && metaStatus.isFile(), what + ": no meta file (not a complete store)");
    FetchedShard.checkSourceLength(what, manifest, i, "the meta file", metaStatus.getLen(), false);
    Files.createDirectory(local);
    java.nio.file.Path metaFile = local.resolve(StoreFile.META.fileName());
    copy(fs, metaStatus, metaFile, what);
    StoreMeta meta = FetchedShard.checkMeta(what, manifest, i, FileRegion.whole(metaFile, Files.size(metaFile)));
    for (StoreMeta.FileEntry entry : meta.files()) {
      FileStatus file = files.get(entry.name());
      CorruptStoreException.check(file != null && file.isFile(), what + ": file " + entry.name() + " is missing");
      FetchedShard.checkLength(what, entry, file.getLen());
    }
    for (StoreMeta.FileEntry entry : meta.files()) {
      java.nio.file.Path copy = local.resolve(entry.name());
      copy(fs, files.get(entry.name()), copy, what);
      FetchedShard.checkFile(what, entry, FileRegion.whole(copy, Files.size(copy)));
    }
    force(local);
  }

  private static FileStatus statusOrNull(FileSystem fs, Path path) throws IOException {
    try {
      return fs.getFileStatus(path);
    } catch (FileNotFoundException e) {
      return null;
    }
  }

  /** Copies {@code from} to the new local file {@code to}, forced to disk, and checks that all its listed bytes came. */
  private static void copy(FileSystem fs, FileStatus from, java.nio.file.Path to, String what) throws IOException {
    long expected = from.getLen();
    long copied = 0;
    try (InputStream in = fs.open(from.getPath());
        FileChannel out = FileChannel.open(to, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      byte[] buffer = new byte[(int) Math.min(COPY_BUFFER_BYTES, Math.max(1, expected))];
      for (int n; (n = in.read(buffer)) > 0 && copied <= expected; ) {
        ByteBuffer chunk = ByteBuffer.wrap(buffer, 0, n);
        try {
          while (chunk.hasRemaining()) {
            out.write(chunk);
          }
        } catch (IOException e) {
          throw writeFailure(e, to, what);
        }
        copied += n;
      }
      try {
        out.force(true);
      } catch (IOException e) {
        throw writeFailure(e, to, what);
      }
    }
    if (copied != expected) {
      throw new IOException(what + ": " + from.getPath() + " was listed with " + expected + " bytes, but "
          + (copied < expected ? "only " + copied : "more") + " could be read (it changed during the fetch)");
    }
  }

  /**
   * {@code failure} of a write of the local {@code file}, named after it: the JVM's "No space left
   * on device" (or any other write error) names no file, so an operator could not tell that the
   * serving host's disk was full, nor which. Failures that name their file, and interrupts, pass.
   */
  private static IOException writeFailure(IOException failure, java.nio.file.Path file, String what) {
    if (failure instanceof FileSystemException || failure instanceof InterruptedIOException || failure instanceof ClosedChannelException) {
      return failure;
    }
    return new IOException(what + ": writing " + file + " failed: " + failure.getMessage(), failure);
  }

  /** Deletes the staging directories that killed fetches left: under the lock, no other fetch owns one. */
  private static void removeStaging(StoreRoot root) throws IOException {
    try (Stream<java.nio.file.Path> entries = Files.list(root.directory())) {
      for (java.nio.file.Path entry : (Iterable<java.nio.file.Path>) entries::iterator) {
        if (entry.getFileName().toString().startsWith(STAGING_PREFIX) && Files.isDirectory(entry, LinkOption.NOFOLLOW_LINKS)) {
          FileTrees.deleteTree(entry);
        }
      }
    }
  }

  private static void deleteQuietly(java.nio.file.Path path, Throwable failure) {
    try {
      FileTrees.deleteTree(path);
    } catch (IOException | RuntimeException e) {
      failure.addSuppressed(e);
    }
  }

  /**
   * Forces a file, or a directory's entries, to disk. A failed {@code fsync} of either fails the
   * fetch ({@link DirectoryEntries#force(java.nio.file.Path, DirectoryEntries.Opener)} says which
   * answers of a platform that cannot sync directories are taken at their word).
   */
  private static void force(java.nio.file.Path path) throws IOException {
    if (Files.isDirectory(path)) {
      DirectoryEntries.force(path, directoryOpener);
      return;
    }
    try (FileChannel channel = FileChannel.open(path, StandardOpenOption.WRITE)) {
      channel.force(true);
    }
  }
}
