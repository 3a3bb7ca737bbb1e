package io.varve.cli;

import io.varve.reader.Store;
import java.io.IOException;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/**
 * {@code varve verify DIR}: every checksum, and every record found by its own key (or kept hash).
 * A damaged store exits 1, naming the file. Not thread-safe.
 */
@Command(
    name = "verify",
    mixinStandardHelpOptions = true,
    header = "Checks every checksum and finds every record.",
    usageHelpWidth = 100,
    description = "Checks every checksum and finds every record by its key (or kept hash); exit 1 naming the damaged file.")
final class VerifyCommand implements Callable<Integer> {
  @ParentCommand Varve varve;

  @Parameters(index = "0", paramLabel = "DIR", description = "the store: a directory, or a .varve artifact")
  String dir;

  @Option(names = "--no-index", description = "open without the index: binary search over the data")
  boolean withoutIndex;

  @Override
  public Integer call() throws IOException {
    long start = System.nanoTime();
    try (Store store = Arguments.openStore(dir, withoutIndex);
        ProgressBar progress = ProgressBar.forTerminal(varve.err, "verify")) {
      // The reader reports no progress of a verification: the bar shows that it runs, and for how long.
      progress.ticking("verify");
      store.verify();
      progress.close();
      // Without full keys the library checks the kept hashes instead: say what was checked.
      varve.out.printf("ok: %s, %,d records, every checksum matches and every %s finds its record (%.1f s)%n",
          dir, store.size(), store.meta().keyMode().keepsKeys() ? "key" : "key's kept hash",
          (System.nanoTime() - start) / 1e9);
      return Varve.OK;
    }
  }
}
