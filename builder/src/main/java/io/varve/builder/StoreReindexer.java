package io.varve.builder;

import io.varve.core.artifact.StoreFiles;
import io.varve.core.ect.EctIndex;
import io.varve.core.ect.EctParameters;
import io.varve.core.format.CorruptStoreException;
import io.varve.core.format.FileRegion;
import io.varve.core.index.IndexParameters;
import io.varve.core.index.RankIndex;
import io.varve.core.index.RankIndexBuilder;
import io.varve.core.store.PagedLayout;
import io.varve.core.store.RecordBlocks;
import io.varve.core.store.StoreFile;
import io.varve.core.store.StoreFileWriter;
import io.varve.core.store.StoreFileWriter.FileSummary;
import io.varve.core.store.StoreMeta;
import io.varve.core.succinct.EliasFano;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * Gives an existing store another index without rewriting its data: dense (a rank per key, record
 * offsets) or sparse (a block per key, a table of blocks; ECT paper, section 2.6). The data file is
 * hard-linked into the new store directory (copied where links are not possible); two sequential
 * passes over it find the record starts and the key hashes, and the new index, offsets or blocks
 * and meta are written beside it. A paged store's data is laid out for its page table, so
 * re-indexing into or out of pages (index kind paged) writes the records anew instead, in one
 * sequential pass. The new directory appears complete or not at all; the old store
 * is not changed. The old store may be a one-file artifact ({@code .varve}), read in place and
 * checked as a directory is; its data entry is copied out (it cannot be linked). The new store is
 * always a directory ({@link StoreArtifacts#pack} makes an artifact of it).
 *
 * <pre>{@code
 * // 4 KiB blocks: a fraction of a bit per key in RAM, lookups search one block
 * StoreReindexer.reindex(Path.of("/data/stores/day1"), Path.of("/data/stores/day1-sparse"), 4096, null);
 * }</pre>
 *
 * A sparse index needs a block size from 512 bytes to 1 MiB, a power of two, equal to the store's
 * page alignment when its records are page-aligned ({@link RecordBlocks}). Stateless; thread-safe
 * (the listener of the options is called on the caller's thread).
 */
public final class StoreReindexer {
  /** The block size that asks for a dense index. */
  public static final int DENSE = BuildOptions.DENSE;

  /**
   * The default knobs of a sparse index: buckets of 1024 keys (the directory, a fixed cost per
   * bucket, then costs 0.02 bits per key), no skip lengths (the pruned tries are short). With
   * 16-byte records in 4 KiB blocks: 0.14 bits per key of index and 0.09 of block table.
   */
  public static final EctParameters DEFAULT_SPARSE_INDEX = new EctParameters(1024, 64, 0);

  private StoreReindexer() {}

  /**
   * Writes the store at {@code source} (a directory or an artifact) with a new index to the
   * directory {@code target} (which must not exist).
   *
   * @param blockBytes {@link #DENSE}, or the block size of a sparse index
   * @param parameters the kind and knobs of the new index, or null for the store's when its index
   *     is of the same kind (dense or sparse), else the default of the kind ({@link
   *     StoreBuilder#DEFAULT_INDEX}, {@link #DEFAULT_SPARSE_INDEX}); a sparse index is an ECT index
   * @return the new store's meta
   * @throws IllegalArgumentException if the block size does not suit the store, or blocked
   *     parameters are given for a sparse index
   * @throws io.varve.core.format.CorruptStoreException if the store turns out damaged (nothing is
   *     published)
   * @throws java.nio.file.NoSuchFileException if the store is gone, also when it is deleted while
   *     it is read (nothing is published)
   */
  public static StoreMeta reindex(Path source, Path target, int blockBytes, IndexParameters parameters) throws IOException {
    BuildOptions.Builder options = BuildOptions.builder().sparseIndex(blockBytes);
    if (parameters != null) {
      options.indexParameters(parameters);
    }
    return reindex(source, target, options.build());
  }

  /**
   * Writes the store at {@code source} (a directory or an artifact) with the index {@code options}
   * ask for to the directory {@code target} (which must not exist): {@link
   * BuildOptions#sparseBlockBytes()} and {@link BuildOptions#indexParameters()} as {@link
   * #reindex(Path, Path, int, IndexParameters)} takes them; progress goes to {@link
   * BuildOptions#listener()} ({@code INDEX}, then {@code PUBLISH}). The other options do not apply:
   * the data is not rewritten.
   *
   * @return the new store's meta
   * @throws IllegalArgumentException if the block size does not suit the store
   * @throws io.varve.core.format.CorruptStoreException if the store turns out damaged (nothing is
   *     published)
   * @throws java.nio.file.NoSuchFileException if the store is gone, also when it is deleted while
   *     it is read (nothing is published)
   */
  public static StoreMeta reindex(Path source, Path target, BuildOptions options) throws IOException {
    Path from = source.toAbsolutePath().normalize();
    Path to = target.toAbsolutePath().normalize();
    StoreDirectory.checkNew(to);
    StoreFiles files = StoreFiles.of(from);
    StoreMeta meta = files.readMeta();
    int blockBytes = options.sparseBlockBytes();
    if (options.isSparse()) {
      if (!RecordBlocks.isValidBlockSize(blockBytes, meta.pageBytes())) {
        throw new IllegalArgumentException(
            "block size " + blockBytes + " does not suit a store aligned to " + meta.pageBytes()
                + "-byte pages: use a power of two from 512 bytes to 1 MiB, equal to the page size when records are aligned");
      }
      if (!meta.keyMode().keepsKeys()) {
        throw new IllegalArgumentException("a sparse index needs full keys; this store keeps " + meta.keyMode());
      }
      if (meta.recordCount() > 0 && meta.dataBytes() == 0) {
        throw new IllegalArgumentException("a store of one empty record has no bytes to cut into blocks");
      }
    }
    boolean pageable = PagedLayout.holds(meta.isFixedSize(), meta.keyMode(), meta.pageBytes());
    if (options.isPaged() && !meta.isFixedSize() && !pageable) {
      throw new IllegalArgumentException(
          "a store not aligned to pages, or without full keys, cannot be re-indexed into pages (page size " + meta.pageBytes()
              + ", key mode " + meta.keyMode() + "): build or merge it into a paged store");
    }
    if (meta.isPaged() || (options.isPaged() && pageable)) {
      return relayOut(files, meta, to, options);
    }
    boolean sameKind = meta.isSparse() == options.isSparse();
    // Pages asked for a fixed-size store give way to the default index, as a build's do.
    IndexParameters knobs =
        StoreWriter.suited(
            options.indexParameters()
                .orElse(sameKind ? meta.indexParameters() : options.isSparse() ? DEFAULT_SPARSE_INDEX : StoreBuilder.DEFAULT_INDEX),
            meta.isFixedSize(),
            meta.keyMode(),
            meta.pageBytes());
    Path staging = StoreDirectory.staging(to);
    try {
      StoreMeta written;
      try {
        written = writeIndexed(files, meta, staging, blockBytes, knobs, options.listener());
      } catch (IOException | RuntimeException e) {
        GoneStores.throwIfGone(files, e); // its files are linked or copied before they are scanned
        if (e instanceof IOException io) {
          throw FullDisk.named(io, staging);
        }
        throw e;
      }
      options.listener().progress(BuildListener.Phase.PUBLISH, written.recordCount(), written.recordCount());
      StoreDirectory.publish(staging, to);
      staging = null;
      return written;
    } finally {
      TemporaryDirectories.delete(staging);
    }
  }

  /**
   * Re-indexes to or from a paged store, whose data is laid out for its page table: the records
   * are written anew, in one sequential pass over the old data (checked as a merge checks it), into
   * a paged store or a dense one (made sparse after, as a build does).
   */
  /**
   * The salt of records written anew: as set, else the store's own (the same records in another
   * layout, so a round trip gives back the same bytes), else, for a store whose checks were not
   * salted, a new one.
   */
  private static long relaidOutSalt(StoreMeta meta, BuildOptions options) {
    if (options.recordCheckSalt().isPresent() || meta.recordCheckSalt() == 0) {
      return options.recordCheckSaltForNewFile();
    }
    return meta.recordCheckSalt();
  }

  private static StoreMeta relayOut(StoreFiles files, StoreMeta meta, Path target, BuildOptions options) throws IOException {
    IndexParameters parameters =
        options.isSparse()
            ? StoreBuilder.DEFAULT_INDEX
            : options.indexParameters().orElse(meta.isPaged() ? StoreBuilder.DEFAULT_INDEX : meta.indexParameters());
    long n = meta.recordCount();
    BuildListener listener = options.listener();
    Path staging = StoreDirectory.staging(target);
    StoreWriter writer = null;
    try {
      writer =
          new StoreWriter(
              staging,
              staging,
              n,
              true,
              meta.isFixedSize(),
              meta.keyLength(),
              meta.valueLength(),
              meta.pageBytes(),
              parameters,
              meta.keyMode(),
              options.dataWrites(),
              meta.recordChecksums(),
              relaidOutSalt(meta, options),
              meta.hashRange());
      RankIndexBuilder index = writer.index();
      listener.progress(BuildListener.Phase.INDEX, 0, n);
      long copied = 0;
      try (StoreScan scan = StoreScan.open(files, meta, RecordHasher.xxh3(meta.seed()))) {
        while (scan.next()) {
          if (index != null) {
            index.add(scan.hi, scan.lo);
          }
          writer.add(scan.record, scan.hi, scan.lo);
          if ((++copied & (BuildListener.INTERVAL - 1)) == 0) {
            listener.progress(BuildListener.Phase.INDEX, copied, n);
          }
        }
      }
      StoreMeta written = writer.finish(meta.seed(), parameters, meta.userMetadata());
      writer = null;
      return publish(staging, written, target, options);
    } catch (IOException | RuntimeException | Error e) {
      if (writer != null) {
        // On a full disk closing fails too: that must neither hide the failure nor keep the staging.
        try {
          writer.abandon();
        } catch (IOException | RuntimeException suppressed) {
          e.addSuppressed(suppressed);
        }
      }
      if (e instanceof IOException io) {
        throw FullDisk.named(io, staging);
      }
      throw e;
    } finally {
      // Renamed away when published as it is; still there when a sparse store was made from it.
      TemporaryDirectories.delete(staging);
    }
  }

  /**
   * Publishes a store just written dense in {@code staging} at {@code target}: as it is, or with
   * the sparse index {@code options} ask for (re-indexed into a staging directory of its own).
   * Ends the {@code INDEX} phase that the caller started: for a sparse index, the re-indexing pass
   * carries it on.
   */
  static StoreMeta publish(Path staging, StoreMeta dense, Path target, BuildOptions options) throws IOException {
    if (options.isSparse() && (dense.dataBytes() > 0 || dense.recordCount() == 0)) {
      return reindex(staging, target, options);
    }
    options.listener().progress(BuildListener.Phase.INDEX, dense.recordCount(), dense.recordCount());
    options.listener().progress(BuildListener.Phase.PUBLISH, dense.recordCount(), dense.recordCount());
    StoreDirectory.publish(staging, target);
    return dense;
  }

  private static StoreMeta writeIndexed(
      StoreFiles from, StoreMeta meta, Path staging, int blockBytes, IndexParameters knobs, BuildListener listener) throws IOException {
    long n = meta.recordCount();
    RecordHasher hasher = RecordHasher.xxh3(meta.seed());
    // The scans below check what is linked or copied here: its size now, every byte as they read it.
    linkOrCopy(from, from.listed(meta, StoreFile.DATA), staging.resolve(StoreFile.DATA.fileName()));
    List<StoreMeta.FileEntry> files = new ArrayList<>();
    files.add(meta.file(StoreFile.DATA));
    if (!meta.keyMode().keepsKeys()) {
      linkOrCopy(from, from.listed(meta, StoreFile.HASHES), staging.resolve(StoreFile.HASHES.fileName()));
      files.add(meta.file(StoreFile.HASHES));
    }
    // Pass 1: where records start (blocks or offsets); pass 2 hashes keys for the index.
    RecordBlocks blocks = null;
    if (blockBytes != DENSE) {
      RecordBlocks.Builder builder = RecordBlocks.builder(n, meta.dataBytes(), blockBytes);
      forEachStart(from, meta, builder::add);
      blocks = builder.build();
      RecordBlocks table = blocks;
      files.add(writeFile(staging, StoreFile.BLOCKS, out -> table.writeTo(out)));
    } else if (!meta.isFixedSize()) {
      EliasFano.Builder builder = EliasFano.builder(n + 1, meta.dataBytes());
      forEachStart(from, meta, builder::add);
      builder.add(meta.dataBytes());
      EliasFano offsets = builder.build();
      files.add(writeFile(staging, StoreFile.OFFSETS, offsets::writeTo));
    }
    RankIndexBuilder index =
        meta.hashRange()
            .adapt(blocks == null ? knobs.builder(n) : EctIndex.sparseBuilder(n, (EctParameters) knobs, blocks.boundaries()));
    listener.progress(BuildListener.Phase.INDEX, 0, n);
    long hashed = 0;
    try (StoreScan scan = StoreScan.open(from, meta, hasher)) {
      while (scan.next()) {
        index.add(scan.hi, scan.lo);
        if ((++hashed & (BuildListener.INTERVAL - 1)) == 0) {
          listener.progress(BuildListener.Phase.INDEX, hashed, n);
        }
      }
    }
    RankIndex built = index.finish();
    listener.progress(BuildListener.Phase.INDEX, n, n);
    files.add(writeFile(staging, StoreFile.INDEX, built::writeTo));
    StoreMeta result = meta.withFiles(knobs, meta.dataBytes(), System.currentTimeMillis(), files);
    result.write(staging.resolve(StoreFile.META.fileName()));
    return result;
  }

  private interface StartSink {
    void add(long start);
  }

  /** Reads the record starts of the store in order (one pass over its data, keys not hashed). */
  private static void forEachStart(StoreFiles from, StoreMeta meta, StartSink sink) throws IOException {
    try (StoreScan scan = StoreScan.open(from, meta, (key, offset, length, result) -> {})) {
      while (scan.next()) {
        sink.add(scan.recordStart());
      }
    }
  }

  private interface Payload {
    void writeTo(DataOutputStream out) throws IOException;
  }

  private static StoreMeta.FileEntry writeFile(Path staging, StoreFile kind, Payload payload) throws IOException {
    try (StoreFileWriter out = StoreFileWriter.create(staging.resolve(kind.fileName()), kind)) {
      DataOutputStream data = new DataOutputStream(out);
      payload.writeTo(data);
      data.flush();
      FileSummary summary = out.finish();
      return new StoreMeta.FileEntry(kind.fileName(), summary.size(), summary.checksum());
    }
  }

  /**
   * Hard-links a directory's file as {@code to}, or copies it where the file system cannot link; an
   * artifact's entry is copied out of it. A copy is forced to disk before the store is published.
   */
  private static void linkOrCopy(StoreFiles from, FileRegion region, Path to) throws IOException {
    if (!from.isArtifact()) {
      try {
        Files.createLink(to, region.file());
        return;
      } catch (UnsupportedOperationException | IOException cannotLink) {
        Files.deleteIfExists(to);
      }
    }
    try (FileChannel in = FileChannel.open(region.file(), StandardOpenOption.READ);
        FileChannel out = FileChannel.open(to, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      for (long copied = 0; copied < region.length(); ) {
        long n = in.transferTo(region.offset() + copied, region.length() - copied, out);
        CorruptStoreException.check(n > 0, region + ": ends after " + copied + " of " + region.length() + " bytes (truncated)");
        copied += n;
      }
      out.force(true);
    }
  }
}
