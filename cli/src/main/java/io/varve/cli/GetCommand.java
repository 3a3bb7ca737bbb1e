package io.varve.cli;

import io.varve.reader.ShardedStore;
import io.varve.reader.Store;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.Function;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/**
 * {@code varve get DIR KEY...}: prints {@code key<TAB>value} for each key found, escaped as the
 * TSV input is (so a line per key, whatever the bytes), or the raw values with {@code --values}.
 * An absent key prints nothing on stdout and {@code varve get: KEY: not found} on stderr, and the
 * exit code is 1 (as grep's). A sharded store's root is read as one store: each key is routed to
 * its shard. Not thread-safe.
 *
 * <p>A store without full keys ({@code build --key-mode signature:K} or {@code none}) answers for
 * its member keys as any other; for absent keys it may print another key's value.
 */
@Command(
    name = "get",
    mixinStandardHelpOptions = true,
    header = "Prints key<TAB>value for each key found.",
    usageHelpWidth = 100,
    sortOptions = false,
    description = "Prints key<TAB>value for each key found, escaped as TSV input is (\\t, \\n, \\r, \\\\). An absent key prints nothing on stdout and 'varve get: KEY: not found' on stderr; then the exit code is 1. Put -- before keys that start with -.")
final class GetCommand implements Callable<Integer> {
  @ParentCommand Varve varve;

  @Parameters(index = "0", paramLabel = "DIR", description = Arguments.STORE_PARAMETER)
  String dir;

  @Parameters(index = "1..*", arity = "1..*", paramLabel = "KEY", description = "the keys to look up (UTF-8)")
  List<String> keys;

  @Option(names = "--values", description = "print only each found value, raw (not escaped), one per line")
  boolean valuesOnly;

  @Option(names = "--no-index", description = "open without the index: binary search over the data")
  boolean withoutIndex;

  @Override
  public Integer call() throws IOException {
    if (Arguments.isShardedRoot(dir)) {
      try (ShardedStore store = Arguments.openSharded(dir, withoutIndex)) {
        return print(store::get);
      }
    }
    try (Store store = Arguments.openStore(dir, withoutIndex)) {
      return print(store::get);
    }
  }

  /** Looks every key up with {@code lookup} and prints what it found; returns the exit code. */
  private int print(Function<byte[], byte[]> lookup) {
    int status = Varve.OK;
    for (String key : keys) {
      byte[] keyBytes = key.getBytes(StandardCharsets.UTF_8);
      byte[] value = lookup.apply(keyBytes);
      if (value == null) {
        varve.err.println("varve get: " + key + ": not found");
        status = Varve.ABSENT_OR_DAMAGED;
      } else if (valuesOnly) {
        varve.out.write(value, 0, value.length);
        varve.out.print('\n');
      } else {
        varve.out.print(DumpCommand.escapeTsv(keyBytes) + '\t' + DumpCommand.escapeTsv(value) + '\n');
      }
    }
    varve.out.flush();
    return status;
  }
}
