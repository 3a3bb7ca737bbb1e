package io.varve.spark;

import io.varve.builder.ShardRouting;
import io.varve.core.artifact.StoreArtifact;
import io.varve.core.format.CorruptStoreException;
import io.varve.core.format.FileRegion;
import io.varve.core.shard.ShardManifest;
import io.varve.core.store.StoreFile;
import io.varve.core.store.StoreFileReader;
import io.varve.core.store.StoreMeta;
import java.io.IOException;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;

/**
 * Checks a fetched shard's local copy against the manifest, with {@code core}'s format code and the
 * builder's scan of a finished store (the reader stays off this module's classpath), following the
 * checksum chain {@link ShardManifest} describes: the meta file's footer CRC32C must be the
 * manifest's, the meta file must match the rest of the manifest's entry, and every other file must
 * have the size and the CRC32C (read in full) the meta file lists; then the shard's first keys must
 * route to it. Every defect is a {@link CorruptStoreException} whose message
 * starts with {@code what} (the shard's source and number). Stateless; thread-safe.
 */
final class FetchedShard {
  private FetchedShard() {}

  /**
   * Checks the meta file in {@code region} (all of it) against entry {@code shard} of {@code
   * manifest} and returns it.
   */
  static StoreMeta checkMeta(String what, ShardManifest manifest, int shard, FileRegion region) throws IOException {
    try {
      int checksum = StoreFileReader.verify(region, StoreFile.META);
      StoreMeta meta = StoreMeta.read(region);
      manifest.checkShard(shard, meta, region.length(), checksum);
      return meta;
    } catch (CorruptStoreException e) {
      throw new CorruptStoreException(what + ": the meta file is damaged or not the manifest's: " + e.getMessage(), e);
    }
  }

  /**
   * The most bytes an artifact holds beyond its store files: per entry, the padding to {@link
   * StoreArtifact#ALIGNMENT} and ZIP's headers, whose names, extra fields and comments are each
   * under 64 KiB, and the end records with their comment.
   */
  static final long MAX_ARTIFACT_OVERHEAD = StoreArtifact.MAX_ENTRIES * (StoreArtifact.ALIGNMENT + 6 * 65_536L) + 2 * 65_536L;

  /**
   * Checks, before copying it, that the source's {@code file} of shard {@code shard} ({@code
   * length} bytes listed there) can be what the manifest describes: a meta file holds at most the
   * shard's bytes, an artifact at most those and its ZIP's overhead. A source that lies is then
   * refused before it fills the local disk, not after.
   */
  static void checkSourceLength(String what, ShardManifest manifest, int shard, String file, long length, boolean artifact) {
    long bytes = manifest.shards().get(shard).bytes();
    long most = artifact ? bytes + MAX_ARTIFACT_OVERHEAD : bytes;
    CorruptStoreException.check(length <= most, what + ": " + file + " has " + length + " bytes at the source, more than " + most
        + " (the manifest gives the shard's files " + bytes + " bytes" + (artifact ? ", and an artifact's ZIP adds at most "
        + MAX_ARTIFACT_OVERHEAD : "") + "): not the manifest's shard; nothing of it was copied");
  }

  /** Checks that the source's length of {@code file} is the one its meta file lists, before copying it. */
  static void checkLength(String what, StoreMeta.FileEntry file, long length) {
    CorruptStoreException.check(length == file.size(), what + ": file " + file.name() + " has " + length
        + " bytes, its meta file says " + file.size() + (length < file.size() ? " (truncated)" : " (damaged)"));
  }

  /** Checks the store file in {@code region} against its meta file's entry: size, then every byte's CRC32C. */
  static void checkFile(String what, StoreMeta.FileEntry file, FileRegion region) throws IOException {
    checkLength(what, file, region.length());
    int checksum;
    try {
      checksum = StoreFileReader.verify(region, kindOf(what, file.name()));
    } catch (CorruptStoreException e) {
      throw new CorruptStoreException(what + ": file " + file.name() + " is damaged: " + e.getMessage(), e);
    }
    CorruptStoreException.check(checksum == file.checksum(), String.format(
        "%s: file %s has checksum %08x, its meta file says %08x (a file of another store)", what, file.name(), checksum, file.checksum()));
  }

  /**
   * Checks the artifact {@code file} (a {@code .varve}, fetched whole) as entry {@code shard} of
   * {@code manifest}: its ZIP directory and marker, its meta entry, then every entry the meta file
   * lists (an entry it does not list is refused too).
   */
  static void checkArtifact(String what, ShardManifest manifest, int shard, Path file) throws IOException {
    StoreArtifact artifact;
    try {
      artifact = StoreArtifact.open(file);
    } catch (CorruptStoreException e) {
      throw new CorruptStoreException(what + ": the artifact is damaged or truncated: " + e.getMessage(), e);
    }
    FileRegion metaRegion = artifact.region(StoreFile.META.fileName());
    CorruptStoreException.check(metaRegion != null, what + ": the artifact holds no meta file");
    StoreMeta meta = checkMeta(what, manifest, shard, metaRegion);
    Set<String> listed = new HashSet<>();
    listed.add(StoreFile.META.fileName());
    for (StoreMeta.FileEntry entry : meta.files()) {
      listed.add(entry.name());
      FileRegion region = artifact.region(entry.name());
      CorruptStoreException.check(region != null, what + ": file " + entry.name() + " is missing from the artifact");
      checkFile(what, entry, region);
    }
    for (String name : artifact.storeFiles()) {
      CorruptStoreException.check(listed.contains(name), what + ": the artifact holds file " + name + ", which its meta file does not list");
    }
  }

  /**
   * The keys whose routes a fetch checks, over all shards, each shard at least {@link
   * #MIN_ROUTED_PER_SHARD}: a fetch of 2 million records in 8 shards from a local source took 1.14
   * times as long with this check as without it, 2.9 times with every record read.
   */
  static final long ROUTED_KEYS = 1 << 16;

  static final long MIN_ROUTED_PER_SHARD = 64;

  /**
   * Checks that the first keys of the fetched shard {@code local} (checked already) route to it
   * under the manifest's seed and shard count ({@link ShardRouting}, which says why a prefix is a
   * fair sample): a manifest whose entries each match their shard's meta file can still list them
   * in another order, or with another seed or shard count, than their keys were routed by.
   * Published, such a version was refused by every reader that opened it (or, where the reader's
   * two keys a shard happened to route right, missed keys silently).
   */
  static void checkRouting(String what, ShardManifest manifest, int shard, Path local) throws IOException {
    try {
      ShardRouting.check(local, manifest, shard, Math.max(MIN_ROUTED_PER_SHARD, ROUTED_KEYS / manifest.shardCount()));
    } catch (CorruptStoreException e) {
      throw new CorruptStoreException(what + ": its keys are not routed as the manifest says: " + e.getMessage(), e);
    }
  }

  /** The kind of the store file named {@code name}. */
  static StoreFile kindOf(String what, String name) {
    for (StoreFile kind : StoreFile.values()) {
      if (kind.fileName().equals(name)) {
        return kind;
      }
    }
    throw new CorruptStoreException(what + ": its meta file lists " + name + ", which is no store file");
  }
}
