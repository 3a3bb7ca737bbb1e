package io.varve.cli;

import io.varve.core.artifact.StoreArtifact;
import io.varve.core.shard.ShardManifest;
import io.varve.reader.ShardedStore;
import io.varve.reader.Store;
import io.varve.reader.StoreCursor;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/**
 * {@code varve dump DIR [--limit N]}: records in hash order as TSV (escaped like the TSV input). A
 * store without full keys has no keys to print: its records are printed as {@code rank<TAB>value},
 * the rank being the record's position in hash order, with a note on stderr so that the numbers
 * are not taken for keys when read back. A sharded store prints its shards one after the other, in
 * shard order, each in hash order (ranks then count on across the shards). Not thread-safe.
 */
@Command(
    name = "dump",
    mixinStandardHelpOptions = true,
    header = "Prints the records in hash order as TSV.",
    usageHelpWidth = 100,
    description = "Prints records in hash order as TSV; a store without full keys prints rank<TAB>value (the rank: the record's"
        + " position in hash order). A sharded store prints its shards in shard order.")
final class DumpCommand implements Callable<Integer> {
  @ParentCommand Varve varve;

  @Parameters(index = "0", paramLabel = "DIR", description = Arguments.STORE_PARAMETER)
  String dir;

  @Option(names = "--limit", paramLabel = "N", description = "print at most N records")
  Long limit;

  @Option(names = "--no-index", description = "open without the index: binary search over the data")
  boolean withoutIndex;

  @Override
  public Integer call() throws IOException {
    if (limit != null && limit < 0) {
      throw new IllegalArgumentException("--limit must be at least 0, got " + limit);
    }
    long max = limit == null ? Long.MAX_VALUE : limit;
    if (Arguments.isShardedRoot(dir)) {
      dumpShards(max);
    } else {
      try (Store store = Arguments.openStore(dir, withoutIndex)) {
        noteMissingKeys(store.directory(), store);
        print(store, 0, max);
      }
    }
    varve.out.flush();
    return Varve.OK;
  }

  /**
   * Every shard in turn, once the sharded store has opened (so that every shard was checked against
   * the manifest); each shard is opened again alone, as the reader finds it, for its cursor.
   */
  private void dumpShards(long max) throws IOException {
    try (ShardedStore sharded = Arguments.openSharded(dir, withoutIndex)) {
      long printed = 0;
      for (ShardManifest.Shard shard : sharded.manifest().shards()) {
        if (printed >= max) {
          break;
        }
        Path directory = sharded.root().resolve(shard.name());
        Path path = Files.isDirectory(directory) ? directory : sharded.root().resolve(shard.name() + StoreArtifact.SUFFIX);
        try (Store store = Store.open(path)) {
          if (shard == sharded.manifest().shards().get(0)) {
            noteMissingKeys(sharded.root(), store);
          }
          printed += print(store, printed, max - printed);
        }
      }
    }
  }

  /** Says on stderr that ranks are printed for keys, when the store keeps no keys. */
  private void noteMissingKeys(Path what, Store store) {
    if (!store.meta().keyMode().keepsKeys()) {
      varve.err.println("varve dump: " + what + " keeps no full keys (key mode " + store.meta().keyMode() + "): printing rank<TAB>value");
    }
  }

  /**
   * Prints up to {@code max} records of {@code store}, ranks counted from {@code firstRank} (the
   * records of the shards before it); returns how many.
   */
  private long print(Store store, long firstRank, long max) {
    boolean keys = store.meta().keyMode().keepsKeys();
    StoreCursor cursor = store.cursor();
    long i = 0;
    for (; i < max && cursor.next(); i++) {
      varve.out.print(keys ? escapeTsv(cursor.key()) : Long.toString(firstRank + cursor.index()));
      varve.out.print('\t');
      varve.out.print(escapeTsv(cursor.value()));
      varve.out.print('\n');
    }
    return i;
  }

  /** Bytes as UTF-8 text with tab, newline, carriage return and backslash escaped, as TSV input reads them back. */
  static String escapeTsv(byte[] bytes) {
    String text = new String(bytes, StandardCharsets.UTF_8);
    StringBuilder escaped = new StringBuilder(text.length());
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      switch (c) {
        case '\t' -> escaped.append("\\t");
        case '\n' -> escaped.append("\\n");
        case '\r' -> escaped.append("\\r");
        case '\\' -> escaped.append("\\\\");
        default -> escaped.append(c);
      }
    }
    return escaped.toString();
  }
}
