package io.varve.examples;

import io.varve.builder.BuildSummary;
import io.varve.builder.DuplicateKeyException;
import io.varve.builder.DuplicatePolicy;
import io.varve.builder.StoreBuilder;
import io.varve.builder.StoreReindexer;
import io.varve.core.blocked.BlockedIndexParameters;
import io.varve.core.codes.TrieCodes;
import io.varve.core.ect.EctParameters;
import io.varve.core.index.IndexKind;
import io.varve.core.index.IndexParameters;
import io.varve.core.store.KeyMode;
import io.varve.core.store.PageCacheWrites;
import io.varve.examples.input.InputFormat;
import io.varve.examples.input.InputFormatException;
import io.varve.examples.input.RecordReader;
import io.varve.examples.input.Utf8Reader;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code varve build INPUT --out DIR}: reads records from a TSV, CSV or JSON-lines file (or stdin)
 * and builds a store, with a dense index or, given {@code --block-size}, a sparse one. Bad input
 * stops the build with the line number and leaves no store. {@code --key-mode} chooses what records
 * keep of their keys (full keys, a signature, or nothing).
 */
final class BuildCommand {
  /** The accepted forms of {@code --key-mode}, for usage messages. */
  static final String KEY_MODES = "full, none or signature:K with K from 1 to 64";

  private static final Pattern SIGNATURE = Pattern.compile("signature:([0-9]{1,2})");

  /** The options that choose the index and its knobs ({@link #indexKnobs}). */
  static final Set<String> INDEX_OPTIONS = Set.of("index", "keys-per-block", "bucket-size", "huffman-max", "skip-levels");

  /** The options that say how to read a TSV, CSV or JSON-lines input (and {@code header}, a switch). */
  static final Set<String> INPUT_OPTIONS = Set.of("format", "key-column", "value-column");

  private static final Set<String> SWITCHES = Set.of("header", "huge-page-writes");
  private static final Set<String> VALUED =
      Options.names(
          Options.names(INDEX_OPTIONS, INPUT_OPTIONS.toArray(String[]::new)),
          "out", "duplicates", "memory", "page-alignment", "block-size", "temp", "key-mode");
  private static final String USAGE = "usage: varve build INPUT --out DIR [options] (INPUT may be - for stdin)";

  private BuildCommand() {}

  static int run(String[] args, InputStream stdin, PrintStream out, PrintStream err) throws IOException {
    Options options = Options.parse(args, SWITCHES, VALUED);
    String outDir = options.getString("out", null);
    String formatName = options.getString("format", null);
    boolean header = options.flag("header");
    boolean hugePageWrites = options.flag("huge-page-writes");
    String keyColumn = options.getString("key-column", null);
    String valueColumn = options.getString("value-column", null);
    String duplicates = options.getString("duplicates", "fail");
    long memory = memoryBudget(options);
    int pageAlignment = options.getIntBytes("page-alignment", -1, 0);
    int blockBytes = ReindexCommand.blockBytes(options);
    boolean sparse = blockBytes != StoreReindexer.DENSE;
    IndexParameters knobs = indexKnobs(options, sparse ? StoreReindexer.DEFAULT_SPARSE_INDEX : StoreBuilder.DEFAULT_ECT_INDEX);
    String temp = options.getString("temp", null);
    KeyMode keyMode = keyMode(options);
    options.checkAllUsed();
    String input = options.positional(1, 1, "INPUT: a TSV, CSV or JSON-lines file, or - for stdin", USAGE).get(0);
    if (outDir == null) {
      throw Options.missing("--out DIR: where to write the new store", USAGE);
    }
    InputFormat format = formatName != null ? InputFormat.parse(formatName) : InputFormat.fromFileName(input);
    if (keyColumn == null) {
      keyColumn = format == InputFormat.JSON_LINES ? "key" : "0";
    }
    if (valueColumn == null) {
      valueColumn = format == InputFormat.JSON_LINES ? "value" : "1";
    }
    DuplicatePolicy policy =
        switch (duplicates) {
          case "fail" -> DuplicatePolicy.FAIL;
          case "last-wins" -> DuplicatePolicy.LAST_WINS;
          default -> throw new IllegalArgumentException("--duplicates expects fail or last-wins, got '" + duplicates + "'");
        };
    // After the options, so that a bad option is reported even when a file is wrong too.
    checkInput(input);
    checkTemporaryDirectory(temp);
    checkOutput(outDir);
    StoreBuilder builder = StoreBuilder.create(Path.of(outDir)).memoryBudget(memory).duplicates(policy);
    // Before the block size: the builder checks the block size against the alignment set by then.
    if (pageAlignment >= 0) {
      builder.pageAlignment(pageAlignment);
    }
    // Left to the library to refuse with a sparse index, in its own words.
    if (keyMode != null) {
      builder.keyMode(keyMode);
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
    StoreDemo.Progress progress = StoreDemo.Progress.forTerminal(err);
    builder.listener(progress);
    long start = System.nanoTime();
    try (builder;
        Reader text = open(input, stdin);
        RecordReader records = RecordReader.open(text, format, keyColumn, valueColumn, header)) {
      builder.metadata("varve.source", input.equals("-") ? "stdin" : Path.of(input).getFileName().toString());
      while (records.next()) {
        builder.put(records.key(), records.value());
      }
      BuildSummary summary = builder.build();
      progress.done();
      if (summary.recordsPut() == 0) {
        // Not an error (a day without data makes an empty store), but worth a word: it may be the wrong file.
        err.println("varve build: warning: " + label(input) + " holds no records: the store is empty");
      }
      double seconds = (System.nanoTime() - start) / 1e9;
      KeyMode kept = summary.meta().keyMode();
      out.printf("built %s: %,d records (%,d put, %,d duplicates dropped) in %.1f s, %,.0f records/s%s%s%n",
          summary.directory(), summary.meta().recordCount(), summary.recordsPut(), summary.duplicatesDropped(),
          seconds, summary.recordsPut() / Math.max(1e-9, seconds),
          sparse ? "; sparse index over " + blockBytes + "-byte blocks" : "",
          kept.keepsKeys() ? "" : "; keys kept as " + kept);
      return 0;
    } catch (InputFormatException e) {
      progress.done();
      err.println("varve build: " + label(input) + ": " + e.getMessage());
      return 2;
    } catch (DuplicateKeyException e) {
      progress.done();
      err.println("varve build: " + label(input) + ": duplicate key " + showKey(e.key())
          + whereRepeated(input, e.key(), format, keyColumn, valueColumn, header)
          + "; give --duplicates last-wins to keep the last value of a repeated key");
      return 2;
    }
  }

  private static String label(String input) {
    return input.equals("-") ? "stdin" : input;
  }

  /** A key as it would be written in TSV, in quotes, cut after 200 chars. */
  static String showKey(byte[] key) {
    String text = StoreCommands.escapeTsv(key);
    return text.length() <= 200 ? "\"" + text + "\"" : "\"" + text.substring(0, 200) + "...\" (" + key.length + " bytes)";
  }

  /**
   * {@code " on lines 3 and 17"}: where {@code key} first appears twice in the input, found by
   * reading it again (the builder finds repeats after sorting, when lines are long forgotten), or
   * a note that stdin cannot be read again. Only on the error path, so a second read costs nothing
   * in a build that succeeds.
   */
  private static String whereRepeated(
      String input, byte[] key, InputFormat format, String keyColumn, String valueColumn, boolean header) throws IOException {
    if (input.equals("-")) {
      return " (read from stdin, so its lines are not known)";
    }
    long first = 0;
    try (RecordReader records = RecordReader.open(open(input, null), format, keyColumn, valueColumn, header)) {
      while (records.next()) {
        if (java.util.Arrays.equals(records.key(), key)) {
          if (first != 0) {
            return " on lines " + first + " and " + records.lineNumber();
          }
          first = records.lineNumber();
        }
      }
    } catch (InputFormatException | java.io.UncheckedIOException changed) {
      // Handled below, as a file without the repeat.
    }
    // The file changed since it was read: say nothing rather than something wrong.
    return "";
  }

  /**
   * {@code --memory}: the sort's memory budget, which lives on the Java heap. A budget given that
   * leaves the heap less than a quarter for everything else would end in an OutOfMemoryError
   * after minutes of work on a large input (a build in a 128 MiB heap fails at 112 MiB and passes
   * at 96), so it is refused at once. The default is left alone: it is fine for small inputs
   * whatever the heap.
   */
  static long memoryBudget(Options options) {
    if (!options.has("memory")) {
      return StoreBuilder.DEFAULT_MEMORY_BUDGET;
    }
    long budget = options.getBytes("memory", StoreBuilder.DEFAULT_MEMORY_BUDGET, StoreBuilder.MIN_MEMORY_BUDGET);
    long heap = Runtime.getRuntime().maxMemory();
    if (heap != Long.MAX_VALUE && budget > heap / 4 * 3) {
      throw new IllegalArgumentException(
          "--memory " + Options.showBytes(budget) + " leaves too little of this JVM's " + (heap >> 20) + " MiB heap for the rest"
              + " of the work: give at most " + (heap / 4 * 3 >> 20) + "m, or a larger heap (java -Xmx...)");
    }
    return budget;
  }

  /**
   * The index asked for: {@code --index ect|blocked} and the knobs of that kind ({@code
   * --bucket-size}, {@code --huffman-max}, {@code --skip-levels} for ECT, whose missing knobs come
   * from {@code ectDefaults}; {@code --keys-per-block} for blocked). Knobs alone name their kind.
   * Null when nothing is given, which leaves the choice to the library (its default index, or a
   * store's own when re-indexing).
   *
   * @throws IllegalArgumentException for knobs of the other kind, or an unknown kind
   */
  static IndexParameters indexKnobs(Options options, EctParameters ectDefaults) {
    String kindName = options.getString("index", null);
    boolean ectKnobs = options.has("bucket-size") || options.has("huffman-max") || options.has("skip-levels");
    boolean blockedKnobs = options.has("keys-per-block");
    IndexKind kind =
        kindName != null
            ? IndexKind.fromLabel(kindName)
            : ectKnobs ? IndexKind.ECT : blockedKnobs ? IndexKind.BLOCKED : null;
    if (kind == null) {
      return null;
    }
    if (kind == IndexKind.ECT) {
      if (blockedKnobs) {
        throw new IllegalArgumentException("--keys-per-block is a knob of the blocked index, not of an ECT index");
      }
      return new EctParameters(
          options.getInt("bucket-size", ectDefaults.bucketSize(), 1, EctParameters.MAX_BUCKET_SIZE),
          options.getInt("huffman-max", ectDefaults.huffmanMax(), 1, TrieCodes.MAX_HUFFMAN_CONTEXT),
          options.getInt("skip-levels", ectDefaults.skipLevels(), 0, EctParameters.MAX_SKIP_LEVELS));
    }
    if (ectKnobs) {
      throw new IllegalArgumentException(
          "--bucket-size, --huffman-max and --skip-levels are knobs of the ECT index (--index ect), not of a blocked index");
    }
    return new BlockedIndexParameters(
        options.getInt(
            "keys-per-block",
            BlockedIndexParameters.DEFAULT.keysPerBlock(),
            BlockedIndexParameters.MIN_KEYS_PER_BLOCK,
            BlockedIndexParameters.MAX_KEYS_PER_BLOCK));
  }

  /**
   * {@code --key-mode}: {@code full}, {@code none} or {@code signature:K} (K from 1 to 64), or null
   * when not given, which leaves the choice to the library (full keys for a build, the old stores'
   * mode for a merge). Nothing else is accepted, not even other spellings: a mode that throws keys
   * away cannot be undone, so a typo should not pick one.
   */
  static KeyMode keyMode(Options options) {
    String text = options.getString("key-mode", null);
    if (text == null) {
      return null;
    }
    switch (text) {
      case "full":
        return KeyMode.FULL;
      case "none":
        return KeyMode.NONE;
      default:
        Matcher signature = SIGNATURE.matcher(text);
        if (signature.matches()) {
          int bits = Integer.parseInt(signature.group(1));
          if (bits >= 1 && bits <= 64) {
            return KeyMode.signature(bits);
          }
        }
        throw new IllegalArgumentException("--key-mode expects " + KEY_MODES + ", got '" + text + "'");
    }
  }

  /**
   * Fails unless {@code input} is {@code -} (stdin) or a file that exists, before any work: a
   * missing or misnamed input is reported as such, not as an I/O error halfway.
   */
  static void checkInput(String input) throws IOException {
    if (input.equals("-")) {
      return;
    }
    if (input.isEmpty()) {
      throw new IllegalArgumentException("the input file name is empty");
    }
    Path path = Path.of(input);
    if (Files.isDirectory(path)) {
      throw new IllegalArgumentException(input + " is a directory: give a TSV, CSV or JSON-lines file (or - for stdin)");
    }
    if (!Files.exists(path)) {
      throw new NoSuchFileException(input);
    }
  }

  /**
   * Fails if {@code out} cannot become a store directory because its parent is a file (the library
   * would say the parent does not exist, which reads as wrong when it plainly does). The other
   * cases, an {@code out} that exists or a parent that does not, the library reports itself.
   */
  static void checkOutput(String out) {
    Path parent = Path.of(out).toAbsolutePath().getParent();
    if (parent != null && Files.exists(parent) && !Files.isDirectory(parent)) {
      throw new IllegalArgumentException("--out " + out + ": " + parent + " is a file, not a directory");
    }
  }

  /** Fails unless {@code temp} is null (not given) or an existing directory. */
  static void checkTemporaryDirectory(String temp) throws IOException {
    if (temp == null) {
      return;
    }
    Path path = Path.of(temp);
    if (!Files.exists(path)) {
      throw new NoSuchFileException(temp, null, "the --temp directory does not exist: create it, or leave --temp out");
    }
    if (!Files.isDirectory(path)) {
      throw new IllegalArgumentException("--temp " + temp + " is not a directory");
    }
  }

  /**
   * Opens {@code input} ({@code -}: {@code stdin}) as strictly decoded UTF-8 text: a byte that is
   * not UTF-8 stops the reading at its exact line, rather than being replaced.
   */
  static Reader open(String input, InputStream stdin) throws IOException {
    return new Utf8Reader(input.equals("-") ? stdin : Files.newInputStream(Path.of(input)));
  }
}
