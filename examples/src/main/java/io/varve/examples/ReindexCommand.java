package io.varve.examples;

import io.varve.builder.StoreBuilder;
import io.varve.builder.StoreReindexer;
import io.varve.core.format.CorruptStoreException;
import io.varve.core.index.IndexParameters;
import io.varve.reader.Store;
import io.varve.reader.StoreStats;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Set;

/**
 * {@code varve reindex DIR --out OUT (--block-size N | --dense)}: writes a copy of a store with
 * another index, sparse over blocks of {@code N} bytes or dense, with {@link StoreReindexer}. The
 * data file is shared (hard-linked) rather than rewritten; the old store is left as it is, and the
 * new one appears complete at {@code OUT} or not at all.
 */
final class ReindexCommand {
  private static final String USAGE =
      "usage: varve reindex DIR --out OUT (--block-size N | --dense)"
          + " [--index ect|blocked] [--bucket-size G --huffman-max H --skip-levels L | --keys-per-block K]";

  private static final Set<String> VALUED = Options.names(BuildCommand.INDEX_OPTIONS, "out", "block-size");

  private ReindexCommand() {}

  static int run(String[] args, PrintStream out) throws IOException {
    Options options = Options.parse(args, Set.of("dense"), VALUED);
    String outDir = options.getString("out", null);
    boolean dense = options.flag("dense");
    boolean blockSizeGiven = options.has("block-size");
    int blockBytes = blockBytes(options);
    IndexParameters knobs = BuildCommand.indexKnobs(options, dense ? StoreBuilder.DEFAULT_ECT_INDEX : StoreReindexer.DEFAULT_SPARSE_INDEX);
    options.checkAllUsed();
    String dir = options.positional(1, 1, "DIR: the store to re-index", USAGE).get(0);
    if (outDir == null) {
      throw Options.missing("--out OUT: where to write the re-indexed store", USAGE);
    }
    if (dense == blockSizeGiven) {
      throw new IllegalArgumentException("give exactly one of --block-size N (a sparse index) or --dense\n" + USAGE);
    }
    Path source = StoreCommands.storeDirectory(dir);
    BuildCommand.checkOutput(outDir);
    Path target = Path.of(outDir);
    try {
      StoreReindexer.reindex(source, target, blockBytes, knobs);
    } catch (NoSuchFileException e) {
      // The store's directory and meta file are there (checked above), so a missing file is one
      // that its meta lists: the store is damaged, as Store.open says of such a store.
      Path missing = e.getFile() == null ? null : Path.of(e.getFile()).toAbsolutePath();
      if (missing != null && source.toAbsolutePath().equals(missing.getParent())) {
        throw new CorruptStoreException(e.getFile() + ": missing, but the meta file lists it (damaged store)", e);
      }
      throw e;
    }
    try (Store store = Store.open(target)) {
      StoreStats stats = store.stats();
      String kind =
          stats.blockBytes() != 0
              ? String.format("sparse index over %d-byte blocks", stats.blockBytes())
              : "dense " + stats.indexKind().label() + " index";
      out.printf("reindexed %s -> %s: %s, %,d records, index %.3f bits/key, %s %.3f bits/key%n",
          dir, outDir, kind, stats.records(), stats.indexBitsPerKey(),
          stats.blockBytes() != 0 ? "blocks" : "offsets", stats.offsetsBitsPerKey());
    }
    return 0;
  }

  /**
   * {@code --block-size}: a size such as {@code 4096} or {@code 4k}, or {@link
   * StoreReindexer#DENSE} when not given. Whether the size suits the store is the library's to
   * say, in its own words; only sizes that could be mistaken for "dense" (0) or that are no size
   * at all (negative) are refused here.
   */
  static int blockBytes(Options options) {
    if (options.has("block-size")) {
      long bytes = options.getBytes("block-size", StoreReindexer.DENSE, Long.MIN_VALUE);
      if (bytes <= 0 || bytes > Integer.MAX_VALUE) {
        throw new IllegalArgumentException("--block-size must be a power of two from 512 bytes to 1m, got " + bytes);
      }
      return (int) bytes;
    }
    return StoreReindexer.DENSE;
  }
}
