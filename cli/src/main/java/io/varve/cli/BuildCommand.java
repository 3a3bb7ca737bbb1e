package io.varve.cli;

import io.varve.builder.BuildSummary;
import io.varve.builder.DuplicateKeyException;
import io.varve.builder.DuplicatePolicy;
import io.varve.builder.StoreBuilder;
import io.varve.builder.StoreReindexer;
import io.varve.cli.input.InputFormatException;
import io.varve.cli.input.RecordReader;
import io.varve.core.index.IndexParameters;
import io.varve.core.store.KeyMode;
import io.varve.core.store.PageCacheWrites;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/**
 * {@code varve build INPUT --out DIR}: reads records from a TSV, CSV or JSON-lines file (or stdin)
 * and builds a store, with a dense index or, given {@code --block-size}, a sparse one. Bad input
 * stops the build with the file and line, and leaves no store. Not thread-safe.
 */
@Command(
    name = "build",
    mixinStandardHelpOptions = true,
    header = "Builds a store from a TSV, CSV or JSON-lines file.",
    usageHelpWidth = 100,
    sortOptions = false,
    description = "Builds a store from a TSV, CSV or JSON-lines file (- for stdin) in UTF-8. A byte that is not UTF-8, a malformed line or a repeated key (unless --duplicates last-wins) stops the build, naming the file and line, and leaves no store.")
final class BuildCommand implements Callable<Integer> {
  @ParentCommand Varve varve;

  @Parameters(index = "0", paramLabel = "INPUT", description = "a TSV, CSV or JSON-lines file, or - for stdin")
  String input;

  @Option(names = "--out", required = true, paramLabel = "DIR", description = "where to write the new store (must not exist)")
  String out;

  @Mixin InputOptions inputOptions;

  @Option(
      names = "--duplicates",
      paramLabel = "fail|last-wins",
      defaultValue = "fail",
      description = "a repeated key: fail (default) or keep the last value")
  String duplicates;

  @Option(names = "--memory", paramLabel = "SIZE", converter = ByteSizes.Converter.class,
      description = "memory budget for sorting, e.g. 1g (default 256m, or a quarter of a smaller heap)")
  Long memory;

  @Option(names = "--temp", paramLabel = "DIR", description = "where sorted runs spill (default: next to --out)")
  String temp;

  @Mixin IndexOptions index;

  @Option(
      names = "--block-size",
      paramLabel = "N",
      converter = ByteSizes.Converter.class,
      description = "a sparse index over N-byte blocks (e.g. 4k): under a bit per key; N must equal the page alignment (any power of two from 512 to 1m when it is 0)")
  Long blockSize;

  @Option(
      names = "--page-alignment",
      paramLabel = "N",
      converter = ByteSizes.Converter.class,
      description = "records up to N bytes never cross an N-byte page: a power of two from 512 to 4096 (default), or 0 = off")
  Long pageAlignment;

  @Option(
      names = "--key-mode",
      paramLabel = "M",
      description = "what records keep of their keys: full (default); signature:K, a K-bit signature (K from 1 to 64): an absent key is reported present, with another key's value, with probability 2^-K; none, for lookups of member keys only. signature and none keep a hashes file, so the store can still be merged and re-indexed; they cannot have a sparse index nor be read with --no-index")
  String keyMode;

  @Option(
      names = "--record-check-salt",
      paramLabel = "N",
      description = "mix N into the records' checks instead of a random salt: for stores that must be reproducible byte for byte (0: unsalted, readable by readers older than meta version 7)")
  Long recordCheckSalt;

  @Option(
      names = "--huge-page-writes",
      description = "write the data file in 2 MiB pieces, so that this host's page cache maps it with huge pages")
  boolean hugePageWrites;

  @Override
  public Integer call() throws IOException {
    long budget = Arguments.memoryBudget(memory);
    int blockBytes = Arguments.blockBytes(blockSize, StoreReindexer.DENSE);
    boolean sparse = blockBytes != StoreReindexer.DENSE;
    IndexParameters knobs = index.parameters(sparse ? StoreReindexer.DEFAULT_SPARSE_INDEX : StoreBuilder.DEFAULT_ECT_INDEX);
    KeyMode mode = Arguments.keyMode(keyMode);
    DuplicatePolicy policy =
        switch (duplicates) {
          case "fail" -> DuplicatePolicy.FAIL;
          case "last-wins" -> DuplicatePolicy.LAST_WINS;
          default -> throw new IllegalArgumentException("--duplicates expects fail or last-wins, got '" + duplicates + "'");
        };
    // After the options, so that a bad option is reported even when a file is wrong too.
    Arguments.checkInput(input);
    Arguments.checkTemporaryDirectory(temp);
    Path target = Arguments.checkOutput(out);
    StoreBuilder builder = StoreBuilder.create(target).memoryBudget(budget).duplicates(policy);
    // Before the block size: the builder checks the block size against the alignment set by then.
    if (pageAlignment != null) {
      builder.pageAlignment((int) Math.min(Integer.MAX_VALUE, pageAlignment));
    }
    // Left to the library to refuse with a sparse index, in its own words.
    if (mode != null) {
      builder.keyMode(mode);
    }
    if (sparse) {
      builder.sparseIndex(blockBytes);
    }
    // Left unset without knobs, so that the builder picks the default of the index kind.
    if (knobs != null) {
      builder.indexParameters(knobs);
    }
    if (temp != null) {
      builder.temporaryDirectory(Path.of(temp));
    }
    if (hugePageWrites) {
      builder.dataWrites(PageCacheWrites.HUGE_PAGES);
    }
    if (recordCheckSalt != null) {
      builder.recordCheckSalt(recordCheckSalt);
    }
    try {
      builder.checkOptions(); // before any input is read
    } catch (IllegalArgumentException e) {
      builder.close();
      throw e;
    }
    String label = InputOptions.label(input);
    ProgressBar progress = ProgressBar.forTerminal(varve.err, "build");
    builder.listener(progress);
    long start = System.nanoTime();
    try (builder;
        CloseOnExit closing = CloseOnExit.of(builder);
        progress;
        RecordReader records = inputOptions.open(input, varve.stdin, false)) {
      builder.metadata("varve.source", input.equals("-") ? "stdin" : String.valueOf(Path.of(input).getFileName()));
      while (records.next()) {
        try {
          builder.put(records.key(), records.value());
        } catch (IllegalArgumentException e) {
          // An oversized key or value: name the line, as for malformed input.
          throw new InputError(label + ": line " + records.lineNumber() + ": " + e.getMessage());
        }
      }
      progress.phase("write");
      BuildSummary summary = builder.build();
      progress.close();
      if (summary.recordsPut() == 0) {
        // Not an error (a day without data makes an empty store), but worth a word: it may be the wrong file.
        varve.err.println("varve build: warning: " + label + " holds no records: the store is empty");
      }
      double seconds = (System.nanoTime() - start) / 1e9;
      KeyMode kept = summary.meta().keyMode();
      varve.out.printf("built %s: %,d records (%,d put, %,d duplicates dropped) in %.1f s, %,.0f records/s%s%s%n",
          summary.directory(), summary.meta().recordCount(), summary.recordsPut(), summary.duplicatesDropped(),
          seconds, summary.recordsPut() / Math.max(1e-9, seconds),
          sparse ? "; sparse index over " + blockBytes + "-byte blocks" : "",
          kept.keepsKeys() ? "" : "; keys kept as " + kept);
      return Varve.OK;
    } catch (InputFormatException e) {
      throw new InputError(label + ": " + e.getMessage());
    } catch (DuplicateKeyException e) {
      throw new InputError(label + ": duplicate key " + showKey(e.key()) + whereRepeated(e.key())
          + "; give --duplicates last-wins to keep the last value of a repeated key");
    }
  }

  /** A key as it would be written in TSV, in quotes, cut after 200 chars. */
  static String showKey(byte[] key) {
    String text = DumpCommand.escapeTsv(key);
    return text.length() <= 200 ? "\"" + text + "\"" : "\"" + text.substring(0, 200) + "...\" (" + key.length + " bytes)";
  }

  /**
   * {@code " on lines 3 and 17"}: where {@code key} first appears twice in the input, found by
   * reading it again (the builder finds repeats after sorting, when lines are long forgotten), or
   * a note that stdin cannot be read again. Only on the error path, so a second read costs nothing
   * in a build that succeeds.
   */
  private String whereRepeated(byte[] key) throws IOException {
    if (input.equals("-")) {
      return " (read from stdin, so its lines are not known)";
    }
    long first = 0;
    try (RecordReader records = inputOptions.open(input, null, true)) {
      while (records.next()) {
        if (Arrays.equals(records.key(), key)) {
          if (first != 0) {
            return " on lines " + first + " and " + records.lineNumber();
          }
          first = records.lineNumber();
        }
      }
    } catch (InputFormatException | UncheckedIOException changed) {
      // Handled below, as a file without the repeat.
    }
    // The file changed since it was read: say nothing rather than something wrong.
    return "";
  }
}
