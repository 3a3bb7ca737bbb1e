package io.varve.cli;

import io.varve.builder.StoreBuilder;
import io.varve.builder.StoreReindexer;
import io.varve.core.format.CorruptStoreException;
import io.varve.core.index.IndexParameters;
import io.varve.core.store.StoreFile;
import io.varve.reader.Store;
import io.varve.reader.StoreStats;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/**
 * {@code varve reindex DIR --out OUT (--block-size N | --dense)}: writes a copy of a store with
 * another index, sparse over blocks of {@code N} bytes or dense, with {@link StoreReindexer}. The
 * data file is shared (hard-linked; copied out of a {@code .varve} artifact) rather than rewritten,
 * except into or out of pages ({@code --dense --index paged}), whose data is laid out for its table;
 * the old store is left as it is, and the new one appears complete at {@code OUT} or not at all.
 * Not thread-safe.
 */
@Command(
    name = "reindex",
    mixinStandardHelpOptions = true,
    header = "Writes a copy of a store with another index.",
    usageHelpWidth = 100,
    sortOptions = false,
    description = "Writes a copy of a store with another index; the data file is shared, not rewritten"
        + " (except into or out of pages: --dense --index paged).")
final class ReindexCommand implements Callable<Integer> {
  @ParentCommand Varve varve;

  @Parameters(index = "0", paramLabel = "DIR", description = "the store to re-index (a directory or a .varve artifact)")
  String dir;

  @Option(names = "--out", required = true, paramLabel = "OUT", description = "where to write the re-indexed store")
  String out;

  @ArgGroup(exclusive = true, multiplicity = "1")
  Shape shape;

  @Mixin IndexOptions index;

  /** Exactly one of the two. */
  static final class Shape {
    @Option(names = "--block-size", paramLabel = "N", converter = ByteSizes.Converter.class,
        description = "a sparse index over blocks of N bytes (e.g. 4096 or 4k)")
    Long blockSize;

    @Option(names = "--dense", description = "a dense index")
    boolean dense;
  }

  @Override
  public Integer call() throws IOException {
    int blockBytes = Arguments.blockBytes(shape.blockSize, StoreReindexer.DENSE);
    IndexParameters knobs = index.parameters(shape.dense ? StoreBuilder.DEFAULT_ECT_INDEX : StoreReindexer.DEFAULT_SPARSE_INDEX);
    Path source = Arguments.storeDirectoryOrArtifact(dir);
    Path target = Arguments.checkOutput(out);
    ProgressBar progress = ProgressBar.forTerminal(varve.err, "reindex");
    try (progress) {
      progress.ticking("reindex");
      StoreReindexer.reindex(source, target, blockBytes, knobs);
    } catch (NoSuchFileException e) {
      // The store's directory and meta file were there (checked above), so a missing file is one
      // that its meta lists: the store is damaged, as Store.open says of such a store. Unless its
      // meta file is gone too: then the store was deleted meanwhile, as the library says.
      Path missing = e.getFile() == null ? null : Path.of(e.getFile()).toAbsolutePath();
      if (missing != null && source.toAbsolutePath().equals(missing.getParent())
          && Files.exists(source.resolve(StoreFile.META.fileName()))) {
        throw new CorruptStoreException(e.getFile() + ": missing, but the meta file lists it (damaged store)", e);
      }
      throw e;
    }
    try (Store store = Store.open(target)) {
      StoreStats stats = store.stats();
      if (store.meta().isPaged()) {
        varve.out.printf("reindexed %s -> %s: paged, %,d records, page table %.3f bits/key (%d-byte pages)%n",
            dir, out, stats.records(), stats.indexBitsPerKey(), store.meta().pageBytes());
        return Varve.OK;
      }
      String kind =
          stats.blockBytes() != 0
              ? String.format("sparse index over %d-byte blocks", stats.blockBytes())
              : "dense " + stats.indexKind().label() + " index";
      varve.out.printf("reindexed %s -> %s: %s, %,d records, index %.3f bits/key, %s %.3f bits/key%n",
          dir, out, kind, stats.records(), stats.indexBitsPerKey(),
          stats.blockBytes() != 0 ? "blocks" : "offsets", stats.offsetsBitsPerKey());
    }
    return Varve.OK;
  }
}
