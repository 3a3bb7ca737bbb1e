package io.varve.cli;

import io.varve.reader.Store;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/**
 * {@code varve dump DIR [--limit N]}: records in hash order as TSV (escaped like the TSV input). A
 * store without full keys has no keys to print: its records are printed as {@code rank<TAB>value},
 * the rank being the record's position in hash order, with a note on stderr so that the numbers
 * are not taken for keys when read back. Not thread-safe.
 */
@Command(
    name = "dump",
    mixinStandardHelpOptions = true,
    header = "Prints the records in hash order as TSV.",
    usageHelpWidth = 100,
    description = "Prints records in hash order as TSV; a store without full keys prints rank<TAB>value (the rank: the record's position in hash order).")
final class DumpCommand implements Callable<Integer> {
  @ParentCommand Varve varve;

  @Parameters(index = "0", paramLabel = "DIR", description = "the store: a directory, or a .varve artifact")
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
    try (Store store = Arguments.openStore(dir, withoutIndex)) {
      boolean keys = store.meta().keyMode().keepsKeys();
      if (!keys) {
        varve.err.println("varve dump: " + store.directory() + " keeps no full keys (key mode " + store.meta().keyMode()
            + "): printing rank<TAB>value");
      }
      Store.Cursor cursor = store.cursor();
      for (long i = 0; i < max && cursor.next(); i++) {
        varve.out.print(keys ? escapeTsv(cursor.key()) : Long.toString(cursor.index()));
        varve.out.print('\t');
        varve.out.print(escapeTsv(cursor.value()));
        varve.out.print('\n');
      }
    }
    varve.out.flush();
    return Varve.OK;
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
