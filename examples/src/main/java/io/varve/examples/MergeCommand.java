package io.varve.examples;

import io.varve.builder.MergeSummary;
import io.varve.builder.StoreBuilder;
import io.varve.builder.StoreMerger;
import io.varve.core.store.KeyMode;
import io.varve.examples.input.InputFormat;
import io.varve.examples.input.InputFormatException;
import io.varve.examples.input.RecordReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * {@code varve merge BASE... --out DIR [--upserts FILE] [--deletes FILE]}: makes a new store from
 * old stores (oldest first, newest wins) and a batch of upserts and deletes read from TSV, CSV or
 * JSON-lines files, with {@link StoreMerger}. Upserts are applied before deletes, so a key in both
 * files ends deleted. Bad input stops the merge with the file and line and leaves no store.
 * {@code --key-mode} may make stores with full keys into one with signatures or none; without it
 * the new store keeps keys as the old ones do.
 */
final class MergeCommand {
  private static final String USAGE =
      "usage: varve merge BASE [BASE...] --out DIR [--upserts FILE] [--deletes FILE] [options]"
          + " (FILE may be - for stdin, for one of the two)";

  private static final Set<String> VALUED =
      Options.names(BuildCommand.INPUT_OPTIONS, "out", "upserts", "deletes", "memory", "temp", "key-mode");

  private MergeCommand() {}

  static int run(String[] args, InputStream stdin, PrintStream out, PrintStream err) throws IOException {
    Options options = Options.parse(args, Set.of("header"), VALUED);
    String outDir = options.getString("out", null);
    String upserts = options.getString("upserts", null);
    String deletes = options.getString("deletes", null);
    String formatName = options.getString("format", null);
    boolean header = options.flag("header");
    String keyColumn = options.getString("key-column", null);
    String valueColumn = options.getString("value-column", null);
    long memory = BuildCommand.memoryBudget(options);
    String temp = options.getString("temp", null);
    KeyMode keyMode = BuildCommand.keyMode(options);
    options.checkAllUsed();
    List<String> baseNames =
        options.positional(1, Integer.MAX_VALUE, "BASE: one or more store directories to merge, oldest first", USAGE);
    if (outDir == null) {
      throw Options.missing("--out DIR: where to write the new store", USAGE);
    }
    if ("-".equals(upserts) && "-".equals(deletes)) {
      throw new IllegalArgumentException("--upserts and --deletes cannot both read stdin (-)");
    }
    InputFormat format = formatName != null ? InputFormat.parse(formatName) : null;
    // Fail before any work on a missing input, rather than after reading the other one.
    for (String file : new String[] {upserts, deletes}) {
      if (file != null) {
        BuildCommand.checkInput(file);
      }
    }
    BuildCommand.checkTemporaryDirectory(temp);
    BuildCommand.checkOutput(outDir);
    List<Path> bases = new ArrayList<>();
    for (String base : baseNames) {
      bases.add(StoreCommands.storeDirectory(base));
    }

    StoreMerger merger = StoreMerger.create(Path.of(outDir)).memoryBudget(memory);
    if (temp != null) {
      merger.temporaryDirectory(Path.of(temp));
    }
    StoreDemo.Progress progress = StoreDemo.Progress.forTerminal(err);
    merger.listener(progress);
    String reading = null;
    MergeSummary summary;
    try (merger) {
      for (Path base : bases) {
        merger.base(base);
      }
      // After the bases, so that the library judges the mode against theirs (keys cannot come back).
      if (keyMode != null) {
        merger.keyMode(keyMode);
      }
      merger.metadata("varve.merge", describe(bases, upserts, deletes));
      // The order is the contract: the merger lets the last operation on a key win.
      if (upserts != null) {
        reading = upserts;
        feed(merger, upserts, stdin, format, keyColumn, valueColumn, header, false);
      }
      if (deletes != null) {
        reading = deletes;
        feed(merger, deletes, stdin, format, keyColumn, valueColumn, header, true);
      }
      reading = null;
      summary = merger.merge();
    } catch (InputFormatException e) {
      progress.done();
      err.println("varve merge: " + label(reading) + ": " + e.getMessage());
      return 2;
    } finally {
      progress.done();
    }
    KeyMode kept = summary.meta().keyMode();
    out.printf(
        "merged %s: %,d records (%,d inserted, %,d replaced, %,d deleted, %,d deletes of absent keys, %,d superseded)"
            + " from %,d base records and %,d operations in %.1f s%s%n",
        summary.directory(), summary.meta().recordCount(), summary.inserted(), summary.replaced(), summary.deleted(),
        summary.absentDeletes(), summary.superseded(), summary.baseRecords(), summary.operations(), summary.nanos() / 1e9,
        kept.keepsKeys() ? "" : "; keys kept as " + kept);
    return 0;
  }

  /** Reads {@code file} to the end, giving each record to the merger as a put, or each key as a delete. */
  private static void feed(
      StoreMerger merger,
      String file,
      InputStream stdin,
      InputFormat forced,
      String keyColumn,
      String valueColumn,
      boolean header,
      boolean deletes)
      throws IOException {
    InputFormat format = forced != null ? forced : InputFormat.fromFileName(file);
    boolean json = format == InputFormat.JSON_LINES;
    String key = keyColumn != null ? keyColumn : json ? "key" : "0";
    String value = valueColumn != null ? valueColumn : json ? "value" : "1";
    try (RecordReader records =
        deletes
            ? RecordReader.openKeys(BuildCommand.open(file, stdin), format, key, header)
            : RecordReader.open(BuildCommand.open(file, stdin), format, key, value, header)) {
      while (records.next()) {
        try {
          if (deletes) {
            merger.delete(records.key());
          } else {
            merger.put(records.key(), records.value());
          }
        } catch (IllegalArgumentException e) {
          // An oversized key or value: name the line, as for malformed input.
          throw new IllegalArgumentException(label(file) + ": line " + records.lineNumber() + ": " + e.getMessage(), e);
        }
      }
    }
  }

  /** What the new store was made from, for its metadata (shown by {@code stats}). */
  private static String describe(List<Path> bases, String upserts, String deletes) {
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

  private static String label(String file) {
    return "-".equals(file) ? "stdin" : file;
  }
}
