package io.varve.cli;

import io.varve.reader.ShardedStore;
import io.varve.reader.Store;
import java.io.IOException;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/**
 * {@code varve verify DIR}: every checksum, and every record found by its own key (or kept hash).
 * A damaged store exits 1, naming the file. A sharded store's manifest is read again and every
 * shard checked against it, then verified; a damaged shard is named. Not thread-safe.
 */
@Command(
    name = "verify",
    mixinStandardHelpOptions = true,
    header = "Checks every checksum and finds every record.",
    usageHelpWidth = 100,
    description = "Checks every checksum and finds every record by its key (or kept hash); exit 1 naming the damaged file"
        + " (and, in a sharded store, the damaged shard).")
final class VerifyCommand implements Callable<Integer> {
  @ParentCommand Varve varve;

  @Parameters(index = "0", paramLabel = "DIR", description = Arguments.STORE_PARAMETER)
  String dir;

  @Option(names = "--no-index", description = "open without the index: binary search over the data")
  boolean withoutIndex;

  @Override
  public Integer call() throws IOException {
    long start = System.nanoTime();
    if (Arguments.isShardedRoot(dir)) {
      try (ShardedStore store = Arguments.openSharded(dir, withoutIndex);
          ProgressBar progress = ProgressBar.forTerminal(varve.err, "verify")) {
        progress.ticking("verify");
        store.verify();
        progress.close();
        varve.out.printf("ok: %s, %,d shards, %,d records, every checksum matches and every %s finds its record (%.1f s)%n",
            dir, store.shardCount(), store.size(), checkedKeys(store.manifest().keyMode().keepsKeys()), seconds(start));
        return Varve.OK;
      }
    }
    try (Store store = Arguments.openStore(dir, withoutIndex);
        ProgressBar progress = ProgressBar.forTerminal(varve.err, "verify")) {
      // The reader reports no progress of a verification: the bar shows that it runs, and for how long.
      progress.ticking("verify");
      store.verify();
      progress.close();
      varve.out.printf("ok: %s, %,d records, every checksum matches and every %s finds its record (%.1f s)%n",
          dir, store.size(), checkedKeys(store.meta().keyMode().keepsKeys()), seconds(start));
      return Varve.OK;
    }
  }

  /** What was found by what: without full keys the library checks the kept hashes instead. */
  private static String checkedKeys(boolean keepsKeys) {
    return keepsKeys ? "key" : "key's kept hash";
  }

  private static double seconds(long start) {
    return (System.nanoTime() - start) / 1e9;
  }
}
