package io.varve.examples;

import io.varve.core.blocked.BlockedIndexParameters;
import io.varve.core.ect.EctParameters;
import io.varve.core.format.CorruptStoreException;
import io.varve.core.store.KeyMode;
import io.varve.core.store.StoreFile;
import io.varve.reader.Store;
import io.varve.reader.StoreStats;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;

/**
 * The commands that read a store: {@code get}, {@code stats}, {@code verify} and {@code dump}.
 * Exit codes: 0 success, 1 a key was absent ({@code get}, like grep) or the store is damaged, 2 bad
 * usage, or something a store without full keys cannot do ({@code --no-index}).
 *
 * <p>A store without full keys ({@code build --key-mode signature:K} or {@code none}) answers
 * {@code get} for its member keys as any other; for absent keys {@code get} may print another key's
 * value. {@code dump} prints such a store's records as {@code rank<TAB>value}.
 */
final class StoreCommands {
  private StoreCommands() {}

  /** {@code get DIR KEY...}: prints each found value on its own line. */
  static int get(String[] args, PrintStream out, PrintStream err) throws IOException {
    Options options = Options.parse(args, Set.of(NO_INDEX), Set.of());
    boolean withoutIndex = options.flag(NO_INDEX);
    options.checkAllUsed();
    String usage = "usage: varve get DIR KEY... [--no-index] (put -- before keys that start with --)";
    List<String> positional = options.positional();
    if (positional.size() < 2) {
      throw Options.missing(
          positional.isEmpty() ? "DIR and KEY: a store directory and the keys to look up" : "KEY: one or more keys to look up",
          usage);
    }
    int status = 0;
    try (Store store = open(storeDirectory(positional.get(0)), withoutIndex)) {
      for (String key : positional.subList(1, positional.size())) {
        byte[] value = store.get(key.getBytes(StandardCharsets.UTF_8));
        if (value == null) {
          err.println("varve get: " + key + ": not found");
          status = 1;
        } else {
          out.write(value, 0, value.length);
          out.println();
        }
      }
    }
    return status;
  }

  /** The switch that opens a store without its index (binary search over the data). */
  static final String NO_INDEX = "no-index";

  /**
   * Opens the store, without its index on request. A store without full keys cannot be opened so:
   * the request is at fault, not the store, so it is reported as bad usage (exit 2).
   */
  static Store open(Path dir, boolean withoutIndex) throws IOException {
    try {
      return withoutIndex ? Store.openWithoutIndex(dir) : Store.open(dir);
    } catch (UnsupportedOperationException e) {
      throw new IllegalArgumentException(e.getMessage(), e);
    }
  }

  /** {@code stats DIR [--json]}. */
  static int stats(String[] args, PrintStream out) throws IOException {
    Options options = Options.parse(args, Set.of("json"), Set.of());
    boolean json = options.flag("json");
    options.checkAllUsed();
    try (Store store = Store.open(onlyDirectory(options, "stats DIR [--json]"))) {
      StoreStats stats = store.stats();
      if (json) {
        // The key mode is the store's (meta), not a size (stats): added here so that scripts see it.
        String sizes = stats.toJson();
        out.println(sizes.substring(0, sizes.length() - 1) + ",\"keyMode\":\"" + store.meta().keyMode() + "\"}");
      } else {
        printStats(store, stats, out);
      }
    }
    return 0;
  }

  static void printStats(Store store, StoreStats stats, PrintStream out) {
    out.printf("store %s (format version %d)%n", store.directory(), stats.formatVersion());
    out.printf("  records          %,d%n", stats.records());
    KeyMode keyMode = store.meta().keyMode();
    out.printf("  data             %,d bytes (%s records)%n", stats.dataBytes(),
        store.meta().isFixedSize()
            ? "fixed-size: " + storedKeys(keyMode, store.meta().keyLength()) + ", " + store.meta().valueLength() + "-byte values"
            : "variable-size");
    out.printf("  keys             %s%n", describe(keyMode));
    if (!keyMode.keepsKeys()) {
      out.printf("  hashes           %,d bytes (the keys' hashes, for merge and reindex; lookups never read them)%n",
          store.meta().file(StoreFile.HASHES).size());
    }
    if (store.meta().indexParameters() instanceof EctParameters ect) {
      out.printf("  index            %.3f bits/key (ECT: tries %.3f + directory %.3f; g=%d, hmax=%d, skip levels %d)%n",
          stats.indexBitsPerKey(),
          perKey(stats.trieBits(), stats.records()),
          perKey(stats.directoryBits(), stats.records()),
          ect.bucketSize(),
          ect.huffmanMax(),
          ect.skipLevels());
    } else {
      out.printf("  index            %.3f bits/key (blocked: %d keys per 1024-bit block on average)%n",
          stats.indexBitsPerKey(),
          ((BlockedIndexParameters) store.meta().indexParameters()).keysPerBlock());
    }
    if (stats.blockBytes() != 0) {
      // A sparse index finds a key's block, not its record: the block size bounds what a lookup reads.
      out.printf("  sparse index     %d-byte blocks (a lookup searches one block)%n", stats.blockBytes());
      out.printf("  block table      %.3f bits/key%n", stats.offsetsBitsPerKey());
    } else {
      out.printf("  offsets          %.3f bits/key%n", stats.offsetsBitsPerKey());
    }
    out.printf("  memory           %.3f bits/key (%,d bytes of heap)%n", stats.memoryBitsPerKey(), stats.memoryBytes());
    if (stats.loadedBytes() > 0) {
      out.printf("  loaded           %,d bytes of records in memory outside the heap%n", stats.loadedBytes());
    }
    out.printf("  files            %,d bytes%n", stats.fileBytes());
    out.printf("  hash seed        %d%n", store.meta().seed());
    store.meta().userMetadata().forEach((k, v) -> out.printf("  meta %-11s %s%n", k, v));
  }

  /** What a store of {@code mode} answers for keys, in a phrase. */
  private static String describe(KeyMode mode) {
    return switch (mode.kind()) {
      case FULL -> "full";
      case SIGNATURE -> mode + " (absent keys found with probability 2^-" + mode.signatureBits() + ")";
      case NONE -> "none (lookups of absent keys are undefined)";
    };
  }

  /** The key part of fixed-size records: a signature's bytes are not a key's. */
  private static String storedKeys(KeyMode mode, int keyLength) {
    return switch (mode.kind()) {
      case FULL -> keyLength + "-byte keys";
      case SIGNATURE -> keyLength + "-byte signatures";
      case NONE -> "no keys";
    };
  }

  private static double perKey(long bits, long records) {
    return records == 0 ? 0 : bits / (double) records;
  }

  /** {@code verify DIR}: all checksums and every record found by its own key. */
  static int verify(String[] args, PrintStream out, PrintStream err) throws IOException {
    Options options = Options.parse(args, Set.of(NO_INDEX), Set.of());
    boolean withoutIndex = options.flag(NO_INDEX);
    options.checkAllUsed();
    Path dir = onlyDirectory(options, "verify DIR [--no-index]");
    long start = System.nanoTime();
    try (Store store = open(dir, withoutIndex)) {
      store.verify();
      // Without full keys the library checks the kept hashes instead: say what was checked.
      out.printf("ok: %s, %,d records, every checksum matches and every %s finds its record (%.1f s)%n",
          dir, store.size(), store.meta().keyMode().keepsKeys() ? "key" : "key's kept hash",
          (System.nanoTime() - start) / 1e9);
      return 0;
    } catch (CorruptStoreException e) {
      err.println("varve verify: damaged store: " + e.getMessage() + Varve.DAMAGED_HINT);
      return 1;
    }
  }

  /**
   * {@code dump DIR [--limit N]}: records in hash order as TSV (escaped like the TSV input). A store
   * without full keys has no keys to print: its records are printed as {@code rank<TAB>value}, the
   * rank being the record's position in hash order ({@code Store.indexOf}, {@code Store.valueAt}),
   * with a note on {@code err} so that the numbers are not taken for keys when read back.
   */
  static int dump(String[] args, PrintStream out, PrintStream err) throws IOException {
    Options options = Options.parse(args, Set.of(NO_INDEX), Set.of("limit"));
    long limit = options.getLong("limit", Long.MAX_VALUE, 0, Long.MAX_VALUE);
    boolean withoutIndex = options.flag(NO_INDEX);
    options.checkAllUsed();
    try (Store store = open(onlyDirectory(options, "dump DIR [--limit N] [--no-index]"), withoutIndex)) {
      boolean keys = store.meta().keyMode().keepsKeys();
      if (!keys) {
        err.println("varve dump: " + store.directory() + " keeps no full keys (key mode " + store.meta().keyMode()
            + "): printing rank<TAB>value");
      }
      Store.Cursor cursor = store.cursor();
      for (long i = 0; i < limit && cursor.next(); i++) {
        out.print(keys ? escapeTsv(cursor.key()) : Long.toString(cursor.index()));
        out.print('\t');
        out.print(escapeTsv(cursor.value()));
        out.print('\n');
      }
    }
    out.flush();
    return 0;
  }

  /** Bytes as UTF-8 text with tab, newline, carriage return and backslash escaped. */
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

  static Path onlyDirectory(Options options, String usage) throws IOException {
    return storeDirectory(options.positional(1, 1, "DIR: a store directory", "usage: varve " + usage).get(0));
  }

  /**
   * {@code dir} as a path, once it is known to be a directory with a meta file: a wrong path is
   * reported as one (exit 2), before anything tries to read a store there. A store directory whose
   * other files are missing is left to {@code Store.open}: that store is damaged (exit 1).
   */
  static Path storeDirectory(String dir) throws IOException {
    if (dir.isEmpty()) {
      throw new IllegalArgumentException("the store directory name is empty");
    }
    Path path = Path.of(dir);
    if (!Files.exists(path)) {
      throw new NoSuchFileException(dir, null, "not a store directory");
    }
    if (!Files.isDirectory(path)) {
      throw new IllegalArgumentException(dir + " is a file, not a store directory");
    }
    if (!Files.exists(path.resolve(StoreFile.META.fileName()))) {
      throw new IllegalArgumentException(dir + " is not a varve store: it has no " + StoreFile.META.fileName() + " file");
    }
    return path;
  }
}
