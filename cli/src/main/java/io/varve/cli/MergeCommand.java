package io.varve.cli;

import io.varve.builder.MergeSummary;
import io.varve.builder.StoreMerger;
import io.varve.cli.input.InputFormatException;
import io.varve.cli.input.RecordReader;
import io.varve.core.store.KeyMode;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/**
 * {@code varve merge BASE... --out DIR [--upserts FILE] [--deletes FILE]}: makes a new store from
 * old stores (directories or {@code .varve} artifacts; oldest first, newest wins) and a batch of
 * upserts and deletes read from TSV, CSV or JSON-lines files, with {@link StoreMerger}. Upserts
 * are applied before deletes, so a key in both files ends deleted. Bad input stops the merge with
 * the file and line and leaves no store. Not thread-safe.
 */
@Command(
    name = "merge",
    mixinStandardHelpOptions = true,
    header = "Merges old stores and a batch of upserts and deletes into a new store.",
    usageHelpWidth = 100,
    sortOptions = false,
    description = "Makes a new store from old ones (oldest first: newer stores win) and a batch of upserts and deletes. Upserts are applied first, then deletes: a key in both ends deleted. Either file may be - for stdin (not both), or left out.")
final class MergeCommand implements Callable<Integer> {
  @ParentCommand Varve varve;

  @Parameters(arity = "1..*", paramLabel = "BASE", description = "the old stores (directories or .varve artifacts), oldest first")
  List<String> baseNames;

  @Option(names = "--out", required = true, paramLabel = "DIR", description = "where to write the new store (must not exist)")
  String out;

  @Option(names = "--upserts", paramLabel = "FILE", description = "records to insert or replace (formats and columns as for build)")
  String upserts;

  @Option(names = "--deletes", paramLabel = "FILE", description = "keys to delete (only the key column is read)")
  String deletes;

  @Mixin InputOptions inputOptions;

  @Option(names = "--memory", paramLabel = "SIZE", converter = ByteSizes.Converter.class, description = "as for build")
  Long memory;

  @Option(
      names = "--record-check-salt",
      paramLabel = "N",
      description = "mix N into the records' checks instead of a random salt: for stores that must be reproducible byte for byte (0: unsalted, readable by readers older than meta version 7)")
  Long recordCheckSalt;

  @Option(names = "--temp", paramLabel = "DIR", description = "as for build")
  String temp;

  @Option(
      names = "--key-mode",
      paramLabel = "M",
      description = "as for build (default: the bases' mode); bases with full keys may give signature:K or none, but keys thrown away never come back")
  String keyMode;

  @Override
  public Integer call() throws IOException {
    long budget = Arguments.memoryBudget(memory);
    KeyMode mode = Arguments.keyMode(keyMode);
    if ("-".equals(upserts) && "-".equals(deletes)) {
      throw new IllegalArgumentException("--upserts and --deletes cannot both read stdin (-)");
    }
    // Fail before any work on a missing input, rather than after reading the other one.
    for (String file : new String[] {upserts, deletes}) {
      if (file != null) {
        Arguments.checkInput(file);
      }
    }
    Arguments.checkTemporaryDirectory(temp);
    Path target = Arguments.checkOutput(out);
    List<Path> bases = new ArrayList<>();
    for (String base : baseNames) {
      bases.add(Arguments.storeDirectoryOrArtifact(base));
    }

    StoreMerger merger = StoreMerger.create(target).memoryBudget(budget);
    if (recordCheckSalt != null) {
      merger.recordCheckSalt(recordCheckSalt);
    }
    if (temp != null) {
      merger.temporaryDirectory(Path.of(temp));
    }
    ProgressBar progress = ProgressBar.forTerminal(varve.err, "read");
    merger.listener(progress);
    MergeSummary summary;
    try (merger; CloseOnExit closing = CloseOnExit.of(merger); progress) {
      for (Path base : bases) {
        merger.base(base);
      }
      // After the bases, so that the library judges the mode against theirs (keys cannot come back).
      if (mode != null) {
        merger.keyMode(mode);
      }
      merger.metadata("varve.merge", describe(bases));
      // The order is the contract: the merger lets the last operation on a key win.
      if (upserts != null) {
        feed(merger, upserts, false);
      }
      if (deletes != null) {
        feed(merger, deletes, true);
      }
      progress.phase("write");
      summary = merger.merge();
    }
    KeyMode kept = summary.meta().keyMode();
    varve.out.printf(
        "merged %s: %,d records (%,d inserted, %,d replaced, %,d deleted, %,d deletes of absent keys, %,d superseded)"
            + " from %,d base records and %,d operations (%,d of them overridden by a later one on the same key)"
            + " in %.1f s%s%n",
        summary.directory(), summary.meta().recordCount(), summary.inserted(), summary.replaced(), summary.deleted(),
        summary.absentDeletes(), summary.superseded(), summary.baseRecords(), summary.operations(), summary.batchDuplicates(),
        summary.nanos() / 1e9, kept.keepsKeys() ? "" : "; keys kept as " + kept);
    return Varve.OK;
  }

  /** Reads {@code file} to the end, giving each record to the merger as a put, or each key as a delete. */
  private void feed(StoreMerger merger, String file, boolean asDeletes) throws IOException {
    String label = InputOptions.label(file);
    try (RecordReader records = inputOptions.open(file, varve.stdin, asDeletes)) {
      while (records.next()) {
        try {
          if (asDeletes) {
            merger.delete(records.key());
          } else {
            merger.put(records.key(), records.value());
          }
        } catch (IllegalArgumentException e) {
          // An oversized key or value: name the line, as for malformed input.
          throw new InputError(label + ": line " + records.lineNumber() + ": " + e.getMessage());
        }
      }
    } catch (InputFormatException e) {
      throw new InputError(label + ": " + e.getMessage());
    }
  }

  /** What the new store was made from, for its metadata (shown by {@code stats}). */
  private String describe(List<Path> bases) {
    StringBuilder s = new StringBuilder("bases");
    for (Path base : bases) {
      s.append(' ').append(base.toAbsolutePath().normalize().getFileName());
    }
    if (upserts != null) {
      s.append("; upserts ").append(fileName(upserts));
    }
    if (deletes != null) {
      s.append("; deletes ").append(fileName(deletes));
    }
    return s.toString();
  }

  private static String fileName(String file) {
    return file.equals("-") ? "stdin" : String.valueOf(Path.of(file).getFileName());
  }
}
